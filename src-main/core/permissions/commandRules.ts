/**
 * The bash tool's decision, layers 1–4 plus the fall-through to a person:
 *   1 hard blocks → deny;  2 denied_commands → deny;  3 compound/code-running constructs → ask (allowed_commands
 *   cannot override);  4 every simple command allowed (allowed_commands or the read-only list) → allow;
 *   otherwise → ask.
 */
import { alwaysAskReason } from './alwaysAsk.js';
import { firstMatchingPattern } from './commandPatterns.js';
import { sensitiveReason, type SensitivityContext } from './fileRules.js';
import { findHardBlock, type HardBlock } from './hardBlocks.js';
import { isReadOnlyCommand } from './readOnlyCommands.js';
import { commandRisk, riskOf, type Risk } from './risk.js';
import { analyzeCommand } from './shell/analyze.js';
import { pathCandidates } from './shell/normalize.js';
import { hasUnknown, type ShellAnalysis, type SimpleCommand } from './shell/types.js';
import { PRIVILEGE_WRAPPERS } from './shell/wrappers.js';
import type { Verdict } from './types.js';

export interface CommandRuleContext extends SensitivityContext {
  cwd: string;
  allowedCommands: readonly string[];
  deniedCommands: readonly string[];
}

export interface CommandVerdict extends Risk {
  decision: Verdict;
  layer: string;
  reason: string;
  /** Every command only reads, by the built-in list (plan mode lets such lines run). */
  readOnly: boolean;
  hardBlock?: HardBlock;
  analysis?: ShellAnalysis;
}

/** Environment assignments that cannot change what a read-only command does. */
const SAFE_ENV = /^(LANG|LANGUAGE|LC_[A-Z]+|TZ|NO_COLOR|FORCE_COLOR|CLICOLOR|CLICOLOR_FORCE|TERM|COLORTERM|COLUMNS|LINES|CI|GREP_COLORS?|LS_COLORS|LSCOLORS|GIT_PAGER_IN_USE|POSIXLY_CORRECT)$/;

/** Programs whose first operand is a pattern, not a file. */
const PATTERN_FIRST = new Set(['grep', 'egrep', 'fgrep', 'rg', 'ag', 'ack', 'sed', 'gsed', 'jq', 'yq', 'awk']);

const quote = (s: string, max = 120): string => `\`${s.length > max ? `${s.slice(0, max - 1)}…` : s}\``;

function sensitiveArgument(cmd: SimpleCommand, ctx: CommandRuleContext): string | undefined {
  let operands = cmd.args.map((a) => a.value).filter((v) => !v.startsWith('-') && !hasUnknown(v));
  if (PATTERN_FIRST.has(cmd.name) && !cmd.args.some((a) => a.value === '-e' || a.value === '-f')) operands = operands.slice(1);
  for (const v of operands) {
    for (const abs of pathCandidates(v, { home: ctx.home, cwd: ctx.cwd })) {
      const why = sensitiveReason(abs, ctx);
      if (why) return `${quote(cmd.innerText)} reads ${v}, a sensitive file: ${why}`;
    }
  }
  return undefined;
}

interface CommandStanding {
  allowed: boolean;
  /** The command reads a sensitive file (asks even when a pattern or the read-only list would allow it). */
  readsSecret: boolean;
  why: string;
}

function standing(cmd: SimpleCommand, ctx: CommandRuleContext): CommandStanding {
  const privileged = cmd.wrappers.some((w) => PRIVILEGE_WRAPPERS.has(w));
  const texts = privileged ? [cmd.text] : [cmd.text, cmd.innerText];
  const pattern = firstMatchingPattern(ctx.allowedCommands, texts);
  const sensitive = sensitiveArgument(cmd, ctx);
  if (pattern) {
    if (sensitive) return { allowed: false, readsSecret: true, why: sensitive };
    return { allowed: true, readsSecret: false, why: `${quote(cmd.innerText)} matches allowed_commands "${pattern}"` };
  }
  const unsafeEnv = cmd.assignments.find((a) => !SAFE_ENV.test(a.name));
  if (!privileged && !unsafeEnv && isReadOnlyCommand(cmd)) {
    if (sensitive) return { allowed: false, readsSecret: true, why: sensitive };
    return { allowed: true, readsSecret: false, why: `${quote(cmd.innerText)} is on the read-only list` };
  }
  const label = cmd.nameDynamic ? quote(cmd.text) : quote(cmd.innerText);
  if (unsafeEnv) return { allowed: false, readsSecret: false, why: `${label} sets ${unsafeEnv.name}, which may change what it does` };
  return { allowed: false, readsSecret: false, why: `${label} is not on the read-only list and matches no allowed_commands pattern` };
}

/** Reasons layer 3 always asks about the line, whatever allowed_commands says. */
function compoundReasons(a: ShellAnalysis): string[] {
  const out: string[] = [];
  if (!a.complete) out.push(`${a.problems[0] ?? 'the line could not be fully understood'}, so it cannot be allowed automatically`);
  if (a.fileWrites.length > 0) out.push(`it writes to ${a.fileWrites.map((r) => r.target).slice(0, 3).join(', ')} with a redirection`);
  if (a.substitutions > 0) out.push('it uses command substitution, whose result is only known when it runs');
  if (a.riskyAssignments.length > 0) out.push(`it sets ${[...new Set(a.riskyAssignments)].slice(0, 3).join(', ')}, which changes what programs run`);
  for (const c of a.commands) {
    const r = alwaysAskReason(c);
    if (r && !out.includes(r)) out.push(r);
  }
  return out;
}

export function checkCommandLine(line: string, ctx: CommandRuleContext): CommandVerdict {
  if (line.trim() === '') {
    return { decision: 'deny', layer: 'tool', reason: 'the command is empty', readOnly: false, ...riskOf('low', 'nothing to run') };
  }
  const analysis = analyzeCommand(line, { home: ctx.home, cwd: ctx.cwd });
  const block = findHardBlock(analysis, { home: ctx.home, cwd: ctx.cwd });
  if (block) {
    return { decision: 'deny', layer: 'hard_block', reason: block.reason, readOnly: false, hardBlock: block, analysis, ...commandRisk(analysis, block, false) };
  }

  const everything = [...analysis.commands, ...analysis.hidden];
  const denied = firstMatchingPattern(ctx.deniedCommands, [line, ...everything.flatMap((c) => [c.text, c.innerText])], {
    bareNameMatchesAnyArgs: true,
    caseInsensitive: true,
  });
  if (denied) {
    return {
      decision: 'deny',
      layer: 'denied_commands',
      reason: `matches denied_commands pattern "${denied}"`,
      readOnly: false,
      analysis,
      ...commandRisk(analysis, undefined, false),
    };
  }

  const standings = analysis.commands.map((c) => standing(c, ctx));
  const readOnly =
    analysis.complete &&
    analysis.fileWrites.length === 0 &&
    analysis.substitutions === 0 &&
    analysis.riskyAssignments.length === 0 &&
    analysis.commands.every((c) => isReadOnlyCommand(c) && !c.wrappers.some((w) => PRIVILEGE_WRAPPERS.has(w)));
  const risk = commandRisk(analysis, undefined, readOnly);

  const compound = compoundReasons(analysis);
  if (compound.length > 0) {
    return { decision: 'ask', layer: 'compound', reason: compound.slice(0, 3).join('; '), readOnly, analysis, ...risk };
  }

  // An exact (glob-free) entry equal to the whole line — what "always allow" saves — allows that line as a
  // whole. Glob entries never match whole lines: `npm test*` must not allow `npm test; rm -rf x`.
  const exactLine = ctx.allowedCommands.find((p) => !/[*?]/.test(p) && p.trim().replace(/\s+/g, ' ') === line.trim().replace(/\s+/g, ' '));
  if (exactLine && !standings.some((s) => s.readsSecret)) {
    return { decision: 'allow', layer: 'allowed', reason: `the whole line is in allowed_commands ("${exactLine}")`, readOnly, analysis, ...risk };
  }

  const refused = standings.filter((s) => !s.allowed);
  if (refused.length === 0) {
    const why =
      standings.length === 0
        ? 'the line runs no command'
        : standings.length === 1
          ? standings[0]!.why
          : `all ${standings.length} commands are allowed: ${standings.map((s) => s.why).slice(0, 3).join('; ')}`;
    return { decision: 'allow', layer: 'allowed', reason: why, readOnly, analysis, ...risk };
  }
  const secret = refused.some((s) => s.readsSecret);
  return {
    decision: 'ask',
    layer: 'tool',
    reason: refused.map((s) => s.why).slice(0, 3).join('; '),
    readOnly,
    analysis,
    ...(secret && readOnly ? riskOf('medium', 'reads a file that may hold secrets') : risk),
  };
}
