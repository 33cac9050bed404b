/**
 * A deterministic risk level for every decision, with one line saying why — computed from the call itself,
 * never by a model. It describes what the call would do, not what the engine decided.
 */
import type { RiskLevel } from '../api/events.js';
import { alwaysAskReason, gitSubcommand } from './alwaysAsk.js';
import { HARD_BLOCK_RULES, type HardBlock } from './hardBlocks.js';
import { isDownloader } from './shell/commandKinds.js';
import type { ShellAnalysis, SimpleCommand } from './shell/types.js';
import { PRIVILEGE_WRAPPERS } from './shell/wrappers.js';

export interface Risk {
  risk: RiskLevel;
  riskExplanation: string;
}

export const riskOf = (risk: RiskLevel, riskExplanation: string): Risk => ({ risk, riskExplanation });

/** Commands that destroy or overwrite data, stop the machine, or touch other processes. */
function destructive(c: SimpleCommand): string | undefined {
  const args = c.args.map((a) => a.value);
  switch (c.name) {
    case 'rm':
    case 'srm':
      return args.some((a) => /^-[A-Za-z]*[rRf]/.test(a) || a === '--recursive' || a === '--force')
        ? 'deletes files without a way back'
        : undefined;
    case 'shred':
    case 'truncate':
    case 'dd':
      return `\`${c.name}\` overwrites data`;
    case 'kill':
    case 'killall':
    case 'pkill':
      return 'stops running programs';
    case 'shutdown':
    case 'reboot':
    case 'halt':
      return 'stops or restarts the computer';
    case 'chmod':
    case 'chown':
    case 'chgrp':
      return args.some((a) => /^-[A-Za-z]*R/.test(a)) ? 'changes permissions of whole folder trees' : undefined;
    case 'crontab':
      return args.includes('-r') ? 'deletes all scheduled jobs' : undefined;
    case 'mv':
    case 'gmv':
      return 'moves files, replacing any already at the destination';
    case 'find':
    case 'gfind':
      return args.includes('-delete') ||
        args.some(
          (a, i) =>
            /^-(exec|execdir|ok|okdir)$/.test(a) &&
            /^(rm|shred|unlink|rmdir)$/.test((args[i + 1] ?? '').split('/').pop() ?? ''),
        )
        ? 'deletes the files it finds'
        : undefined;
    case 'unlink':
    case 'rmdir':
      return 'deletes files';
    case 'wipefs':
    case 'fdisk':
      return 'erases disk data';
    case 'git': {
      const { sub, rest } = gitSubcommand(args);
      if (
        sub === 'push' &&
        rest.some((a) => a === '-f' || a.startsWith('--force') || a === '--delete' || a === '-d' || a.startsWith('+'))
      )
        return 'rewrites or deletes published history';
      if (sub === 'reset' && rest.includes('--hard')) return 'throws away uncommitted work';
      if (sub === 'clean') return 'deletes untracked files';
      if (sub === 'branch' && rest.includes('-D')) return 'deletes a branch that may not be merged';
      if (sub === 'checkout' && rest.includes('--')) return 'discards local changes';
      return undefined;
    }
    default:
      return undefined;
  }
}

/** The line deletes, overwrites or rewrites history (the bash tool's isDestructive). */
export function isDestructiveLine(analysis: ShellAnalysis): boolean {
  if (analysis.commands.some((c) => destructive(c) !== undefined || /^(mkfs|newfs)/.test(c.name))) return true;
  // `> file` truncates it; `>>`, `>&` and `> /dev/null` do not destroy anything.
  return analysis.fileWrites.some(
    (r) => !r.operator.startsWith('>>') && r.operator !== '>&' && !/^\/dev\//.test(r.target),
  );
}

export function commandRisk(analysis: ShellAnalysis, block: HardBlock | undefined, readOnly: boolean): Risk {
  if (block) return riskOf('high', HARD_BLOCK_RULES[block.rule]);
  const cmds = analysis.commands;
  const privileged = cmds.find(
    (c) => c.wrappers.some((w) => PRIVILEGE_WRAPPERS.has(w)) || PRIVILEGE_WRAPPERS.has(c.name),
  );
  if (privileged) return riskOf('high', 'runs with administrator rights');
  for (const c of cmds) {
    const why = destructive(c);
    if (why) return riskOf('high', why);
  }
  if (readOnly) return riskOf('low', 'only reads: every command is on the read-only list');
  const code = cmds.map(alwaysAskReason).find((r) => r !== undefined);
  if (code) return riskOf('medium', code.replace(/`/g, ''));
  if (!analysis.complete) return riskOf('medium', 'the line could not be fully understood');
  if (analysis.fileWrites.length > 0) return riskOf('medium', 'writes files through redirection');
  if (cmds.some(isDownloader)) return riskOf('medium', 'contacts the network');
  return riskOf('medium', 'may change files or run programs');
}
