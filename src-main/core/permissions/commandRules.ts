/**
 * The bash tool's decision, layers 1–4 plus the fall-through to a person:
 *   1 hard blocks → deny;  2 denied_commands → deny;  3 compound/code-running constructs and writes to
 *   persistence locations → ask (allowed_commands cannot override);  4 every simple command allowed
 *   (allowed_commands or the read-only list) and nothing secret read → allow;  otherwise → ask.
 *
 * Besides the verdict it says whether the line only reads (plan mode, and the bash tool's own
 * isReadOnly / isConcurrencySafe, which come from here: whoever builds a tool context hands the bash tool
 * `commandClassifier(home)` as ToolContext.classifyCommand; nothing is registered when this module loads).
 */
import picomatch from 'picomatch';
import { alwaysAskReason } from './alwaysAsk.js';
import { firstMatchingPattern } from './commandPatterns.js';
import { sensitiveReason, type SensitivityContext } from './fileRules.js';
import { gitRepoRisk } from './gitRepoConfig.js';
import { findHardBlock, type HardBlock } from './hardBlocks.js';
import { readOnlyVerdict, type ReadOnlyVerdict } from './readOnlyCommands.js';
import { commandRisk, isDestructiveLine, riskOf, type Risk } from './risk.js';
import { secretSearch } from './secretSearch.js';
import { analyzeCommand } from './shell/analyze.js';
import { protectedWriteReason, writeTargets } from './protectedWrites.js';
import { cronCommands, plistStrings } from './shell/commandKinds.js';
import { historyFile, pathCandidates, persistencePlace, type PathContext } from './shell/normalize.js';
import { isShellParserReady } from './shell/parser.js';
import { hasUnknown, UNKNOWN, UNKNOWN_NONEMPTY, type ShellAnalysis, type SimpleCommand } from './shell/types.js';
import { PRIVILEGE_WRAPPERS } from './shell/wrappers.js';
import type { Verdict } from './types.js';
import type { CommandClassification, CommandClassifier } from '../tools/builtin/support/commandSafety.js';

export interface CommandRuleContext extends SensitivityContext {
  cwd: string;
  allowedCommands: readonly string[];
  deniedCommands: readonly string[];
  /** Paths compare case-insensitively (default: as this platform's volumes do). */
  caseInsensitive?: boolean;
  /** The environment git will run with (default: this process's), for the repository-settings check. */
  env?: NodeJS.ProcessEnv;
}

export interface CommandVerdict extends Risk {
  decision: Verdict;
  layer: string;
  reason: string;
  /** Every command only reads, by the built-in list (plan mode lets such lines run). */
  readOnly: boolean;
  hardBlock?: HardBlock;
  analysis?: ShellAnalysis;
  /**
   * The line writes a place that runs code at login, in every shell or on a schedule: it asks in every mode
   * but bypassPermissions (always_allow_tools, acceptEdits, --yes and auto_approve do not approve it).
   */
  persistence?: string;
  /** The line changes one of Rein's protected places (protectedPlaces.ts): it asks in every mode, bypassPermissions too. */
  protected?: string;
}

/** Environment assignments that cannot change what a read-only command does. */
const SAFE_ENV =
  /^(LANG|LANGUAGE|LC_[A-Z]+|TZ|NO_COLOR|FORCE_COLOR|CLICOLOR|CLICOLOR_FORCE|TERM|COLORTERM|COLUMNS|LINES|CI|GREP_COLORS?|LS_COLORS|LSCOLORS|GIT_PAGER_IN_USE|POSIXLY_CORRECT)$/;

const quote = (s: string, max = 120): string => `\`${s.length > max ? `${s.slice(0, max - 1)}…` : s}\``;

// ---- secrets ---------------------------------------------------------------------------------------

/** Places where keys and tokens usually are, to test globs against (`cat ~/.ss?/id_*`). */
const HOME_SECRET_SAMPLES = [
  '.ssh/id_rsa',
  '.ssh/id_ed25519',
  '.ssh/id_ecdsa',
  '.ssh/config',
  '.aws/credentials',
  '.aws/config',
  '.netrc',
  '.npmrc',
  '.pypirc',
  '.git-credentials',
  '.docker/config.json',
  '.kube/config',
  '.config/gh/hosts.yml',
  '.config/gcloud/credentials.db',
  '.gnupg/private-keys-v1.d/k.key',
  'Library/Keychains/login.keychain-db',
  '.zsh_history',
  '.bash_history',
];
const FOLDER_SECRET_SAMPLES = [
  '.env',
  '.env.local',
  '.env.production',
  'server.pem',
  'server.key',
  'id_rsa',
  'id_ed25519',
  'credentials.json',
  'tokens.json',
  'cert.p12',
  '.netrc',
  '.npmrc',
  'credentials',
  '.git-credentials',
  'login.keychain-db',
  'app.secrets',
];
const GLOBBY = new RegExp(`[*?[${UNKNOWN}${UNKNOWN_NONEMPTY}]`);
/** A glob segment with a literal character in it (not only wildcards and dots). */
const AIMED = new RegExp(`[^*?.[\\]${UNKNOWN}${UNKNOWN_NONEMPTY}]`);

const globMatchers = new Map<string, picomatch.Matcher>();
function globMatcher(glob: string): picomatch.Matcher {
  let m = globMatchers.get(glob);
  if (!m) {
    // As bash expands it: `*` and `?` do not match a leading dot (no dotglob), so `cat *` does not reach `.env`.
    m = picomatch(glob.replaceAll(UNKNOWN, '*').replaceAll(UNKNOWN_NONEMPTY, '*'), {
      dot: false,
      nocase: true,
      strictBrackets: false,
    });
    if (globMatchers.size > 500) globMatchers.clear();
    globMatchers.set(glob, m);
  }
  return m;
}

interface SecretContext extends SensitivityContext {
  pctx: PathContext;
}

/** Why reading this path (as a shell command would) reveals a secret, or undefined. */
function secretPath(raw: string, s: SecretContext): string | undefined {
  if (raw === '' || raw === '-') return undefined;
  for (const abs of pathCandidates(raw, s.pctx)) {
    // Public keys are meant to be shown.
    if (/\.pub$/i.test(abs)) continue;
    if (/^\/proc\/[^/]+\/(task\/[^/]+\/)?environ$/.test(abs))
      return `${raw} is a process's environment, which holds its secrets`;
    // A glob aimed at secrets (`id_*`, `*.pem`, `.e*`, `~/.ss?/…`) is tested against where secrets usually are;
    // a bare `*` is not (it would make `grep foo *` ask in every folder).
    const lastSegment = abs.slice(abs.lastIndexOf('/') + 1);
    if (GLOBBY.test(abs) && AIMED.test(lastSegment.replace(/\[[^\]]*\]/g, ''))) {
      const m = globMatcher(abs);
      const dir = abs.slice(
        0,
        abs.split('/').findIndex((seg) => GLOBBY.test(seg)) === -1
          ? abs.length
          : abs.lastIndexOf('/', abs.search(GLOBBY)),
      );
      const samples = [
        ...HOME_SECRET_SAMPLES.map((r) => `${s.home}/${r}`),
        ...FOLDER_SECRET_SAMPLES.map((r) => `${dir || '/'}/${r}`.replace('//', '/')),
      ];
      const hit = samples.find((x) => m(x) && !/\.pub$/i.test(x));
      if (hit)
        return `the pattern ${raw.replaceAll(UNKNOWN, '$…').replaceAll(UNKNOWN_NONEMPTY, '$…')}, which can match ${hit.startsWith(`${s.home}/`) ? `~/${hit.slice(s.home.length + 1)}` : hit} (it holds secrets)`;
    }
    const why = sensitiveReason(abs, s);
    if (why) return `${raw} is a sensitive file (${why})`;
    const h = historyFile(abs, s.pctx);
    if (h) return `${raw} is a shell history file, which often holds tokens typed on the command line`;
  }
  return undefined;
}

/** A recursive read of this folder sweeps up keys and tokens: the home folder or above, or a secrets folder. */
function sweepsSecrets(raw: string, s: SecretContext): string | undefined {
  for (const abs of pathCandidates(raw, s.pctx)) {
    const a = abs.toLowerCase();
    const h = s.home.toLowerCase().replace(/\/+$/, '');
    if (h === a || h.startsWith(`${a === '/' ? '' : a}/`))
      return `${raw} is ${h === a ? 'your home folder' : 'a folder above your home folder'}, which holds keys and tokens`;
    if (
      a.startsWith(`${h}/`) &&
      /^(\.ssh|\.aws|\.gnupg|\.config|\.kube|\.docker|library|\.password-store)(\/|$)/.test(a.slice(h.length + 1))
    ) {
      return `${raw} holds keys or tokens`;
    }
    const why = sensitiveReason(abs, s);
    if (why) return `${raw} is sensitive (${why})`;
  }
  return undefined;
}

/** Why this command would show a secret, or undefined. */
function commandSecret(cmd: SimpleCommand, v: ReadOnlyVerdict, s: SecretContext): string | undefined {
  const label = quote(cmd.innerText || cmd.text);
  if (v.secret) return `${label} ${v.secret}`;
  const reads = v.known ? v.reads : cmd.args.map((a) => a.value).filter((x) => !x.startsWith('-') || x === '-');
  for (const r of reads) {
    const why = secretPath(r, s);
    if (why) return `${label} reads ${why}`;
  }
  // rg and ag skip hidden folders (~/.ssh, ~/.aws, ~/.config) unless told otherwise; grep -r does not.
  const skipsHidden =
    (cmd.name === 'rg' || cmd.name === 'ag') &&
    !cmd.args.some(
      (x) =>
        /^(--hidden|--unrestricted|-[a-zA-Z]*u[a-zA-Z]*|--no-ignore-hidden|-\.|--all-types)$/.test(x.value) ||
        /^-[a-zA-Z]*[H]/.test(x.value),
    );
  for (const w of skipsHidden ? [] : v.walks) {
    const why = sweepsSecrets(w, s);
    if (why) return `${label} searches every file in ${why}`;
  }
  // Searches for key material, however spelt (secretSearch.ts; the list is in docs/permissions.md, *Secrets*).
  const search = secretSearch(cmd, quote);
  if (search) return `${label} ${search}`;
  return undefined;
}

// ---- persistence -----------------------------------------------------------------------------------

const STARTUP_WORDS: Record<string, string> = {
  'shell-startup': 'what is written there runs in every new shell',
  'launch-agent': 'it starts programs at login or boot',
  cron: 'its jobs run on a schedule',
  'ssh-access': 'it decides who may log in over SSH and what runs when they do',
  'git-config': 'it can name programs that every git command runs',
  'login-item': 'it starts programs at login',
};

/** Why the line installs something that runs later (persistence), or undefined. */
function persistenceReason(a: ShellAnalysis, pctx: PathContext): string | undefined {
  for (const cmd of a.commands) {
    const label = quote(cmd.innerText || cmd.text);
    for (const t of writeTargets(cmd)) {
      const place = persistencePlace(t, pctx);
      if (place) return `${label} writes ${place.path}, ${place.what}: ${STARTUP_WORDS[place.kind]}`;
    }
    const values = cmd.args.map((v) => v.value);
    const verb = values.find((v) => !v.startsWith('-'));
    if (cmd.name === 'crontab' && !values.some((v) => /^-[a-zA-Z]*[lr]/.test(v)))
      return `${label} installs a crontab: its jobs run on a schedule`;
    if (cmd.name === 'launchctl' && ['load', 'bootstrap', 'enable', 'submit', 'kickstart'].includes(verb ?? ''))
      return `${label} loads a launch agent or daemon, which runs at login or boot`;
    if ((cmd.name === 'at' || cmd.name === 'batch') && !values.some((v) => /^-[a-zA-Z]*[lrd]/.test(v)))
      return `${label} schedules commands to run later`;
    if (cmd.name === 'systemctl' && values.includes('enable'))
      return `${label} enables a service that starts at boot or login`;
    if (cmd.name === 'defaults' && verb === 'write' && values.some((v) => /^(LoginHook|LogoutHook)$/i.test(v)))
      return `${label} sets a login hook, which runs at every login`;
    if (cmd.name === 'git' && values.includes('config') && values.some((v) => v === '--global' || v === '--system')) {
      const key = values.slice(values.indexOf('config') + 1).find((v) => !v.startsWith('-'));
      if (
        key &&
        /(^|\.)(pager|editor|sshcommand|fsmonitor|external|textconv|command|program|clean|smudge|process|askpass|hookspath|cmd|browser)$|^alias\./i.test(
          key,
        )
      ) {
        return `${label} sets a program in your git settings, which git runs later`;
      }
    }
    if (cmd.name === 'osascript' && a.inlineCode.some((c) => c.command === cmd && /login item/i.test(c.code)))
      return `${label} adds a login item, which starts at every login`;
  }
  for (const r of a.fileWrites) {
    const place = persistencePlace(r.target, pctx);
    if (place)
      return `the redirection \`${r.operator} ${r.target}\` writes ${place.path}, ${place.what}: ${STARTUP_WORDS[place.kind]}`;
  }
  return undefined;
}

// ---- network ---------------------------------------------------------------------------------------

const NETWORK: Record<string, string> = {
  dig: 'looks up DNS names (a name can carry data to whoever runs its DNS server)',
  host: 'looks up DNS names (a name can carry data to whoever runs its DNS server)',
  nslookup: 'looks up DNS names (a name can carry data to whoever runs its DNS server)',
  drill: 'looks up DNS names',
  kdig: 'looks up DNS names',
  whois: 'sends a query to a whois server, which may be any host',
  ping: 'sends packets to a host (their payload can carry data)',
  ping6: 'sends packets to a host (their payload can carry data)',
  traceroute: 'sends packets to a host',
  traceroute6: 'sends packets to a host',
  tracepath: 'sends packets to a host',
  mtr: 'sends packets to a host',
  arping: 'sends packets on the local network',
  nmap: 'scans hosts on the network',
  curl: 'talks to a server on the network',
  wget: 'downloads from the network',
  nc: 'opens network connections',
  ncat: 'opens network connections',
  netcat: 'opens network connections',
  socat: 'opens network connections',
  telnet: 'opens network connections',
  ssh: 'connects to another computer',
  scp: 'copies files over the network',
  sftp: 'copies files over the network',
  ftp: 'talks to a server on the network',
  http: 'talks to a server on the network',
  https: 'talks to a server on the network',
  xh: 'talks to a server on the network',
};

// ---- standing of one command ---------------------------------------------------------------------------

interface CommandStanding {
  allowed: boolean;
  /** The command reads a secret (asks even when a pattern or the read-only list would allow it). */
  readsSecret: boolean;
  why: string;
  /** On the built-in list and read-only (after the repository-settings check for git). */
  readOnly: boolean;
}

function gitSettingsRisk(
  cmd: SimpleCommand,
  v: ReadOnlyVerdict,
  ctx: CommandRuleContext,
  a: ShellAnalysis,
  pctx: PathContext,
): string | undefined {
  if (!v.git) return undefined;
  if (
    cmd.args.length === 1 &&
    ['--version', 'version', '--help', '--exec-path', '--html-path', '--man-path', '--info-path'].includes(
      cmd.args[0]!.value,
    )
  )
    return undefined;
  const dynamic = [...v.git.dirs, ...(v.git.gitDir !== undefined ? [v.git.gitDir] : [])].some(
    (d) => d === '' || hasUnknown(d),
  );
  if (dynamic || a.cdTargets.some(hasUnknown))
    return 'git runs in a folder only known when it runs, so the repository settings there cannot be checked';
  // The folders git may run in: the working folder and every `cd` target, then each `-C` in turn.
  const bases = [ctx.cwd, ...a.cdTargets.flatMap((t) => pathCandidates(t, { ...pctx, cdTargets: [] }))];
  for (const base of [...new Set(bases)].slice(0, 4)) {
    let dir = base;
    for (const c of v.git.dirs) dir = pathCandidates(c, { ...pctx, cwd: dir, cdTargets: [] })[0] ?? dir;
    const gitDir =
      v.git.gitDir === undefined ? undefined : pathCandidates(v.git.gitDir, { ...pctx, cwd: dir, cdTargets: [] })[0];
    const why = gitRepoRisk({
      dir,
      home: ctx.home,
      ...(gitDir !== undefined ? { gitDir } : {}),
      ...(ctx.env ? { env: ctx.env } : {}),
    });
    if (why) return why;
  }
  return undefined;
}

function standing(cmd: SimpleCommand, ctx: CommandRuleContext, a: ShellAnalysis, s: SecretContext): CommandStanding {
  const privileged = cmd.wrappers.some((w) => PRIVILEGE_WRAPPERS.has(w));
  const texts = privileged ? [cmd.text] : [cmd.text, cmd.innerText];
  const pattern = firstMatchingPattern(ctx.allowedCommands, texts);
  const v = readOnlyVerdict(cmd);
  const secret = commandSecret(cmd, v, s);
  const label = cmd.nameDynamic ? quote(cmd.text) : quote(cmd.innerText);
  const unsafeEnv = cmd.assignments.find((x) => !SAFE_ENV.test(x.name));
  let readOnly = v.readOnly && !unsafeEnv;
  let why = v.why;
  if (readOnly) {
    const repo = gitSettingsRisk(cmd, v, ctx, a, s.pctx);
    if (repo) {
      readOnly = false;
      why = repo;
    }
  }
  if (pattern) {
    if (secret) return { allowed: false, readsSecret: true, why: secret, readOnly };
    return {
      allowed: true,
      readsSecret: false,
      why: `${quote(cmd.innerText)} matches allowed_commands "${pattern}"`,
      readOnly,
    };
  }
  if (!privileged && !unsafeEnv && readOnly) {
    if (secret) return { allowed: false, readsSecret: true, why: secret, readOnly };
    return { allowed: true, readsSecret: false, why: `${quote(cmd.innerText)} is on the read-only list`, readOnly };
  }
  if (secret) return { allowed: false, readsSecret: true, why: secret, readOnly };
  if (unsafeEnv)
    return {
      allowed: false,
      readsSecret: false,
      why: `${label} sets ${unsafeEnv.name}, which may change what it does`,
      readOnly,
    };
  if (why) return { allowed: false, readsSecret: false, why: `${label} is not read-only: ${why}`, readOnly };
  const net = NETWORK[cmd.name];
  if (net) return { allowed: false, readsSecret: false, why: `${label} ${net}`, readOnly };
  return {
    allowed: false,
    readsSecret: false,
    why: `${label} is not on the read-only list and matches no allowed_commands pattern`,
    readOnly,
  };
}

/** Reasons layer 3 always asks about the line, whatever allowed_commands says. */
function compoundReasons(a: ShellAnalysis, persistence: string | undefined): string[] {
  const out: string[] = [];
  if (persistence) out.push(persistence);
  if (!a.complete)
    out.push(`${a.problems[0] ?? 'the line could not be fully understood'}, so it cannot be allowed automatically`);
  if (a.fileWrites.length > 0)
    out.push(
      `it writes to ${a.fileWrites
        .map((r) => r.target)
        .slice(0, 3)
        .join(', ')} with a redirection`,
    );
  if (a.substitutions > 0) out.push('it uses command substitution, whose result is only known when it runs');
  if (a.riskyAssignments.length > 0)
    out.push(`it sets ${[...new Set(a.riskyAssignments)].slice(0, 3).join(', ')}, which changes what programs run`);
  for (const c of a.commands) {
    const r = alwaysAskReason(c);
    if (r && !out.includes(r)) out.push(r);
  }
  return out;
}

/** Secrets the line reads outside any one command: `$TOKEN` expansions, `< ~/.ssh/id_rsa`. */
function lineSecrets(a: ShellAnalysis, s: SecretContext): string | undefined {
  if (a.secretVariables.length > 0) {
    return `it expands ${a.secretVariables
      .slice(0, 3)
      .map((n) => `$${n}`)
      .join(', ')}, whose name${a.secretVariables.length > 1 ? 's say they hold secrets' : ' says it holds a secret'}`;
  }
  for (const r of a.redirects) {
    if (r.kind !== 'read') continue;
    const why = secretPath(r.target, s);
    if (why) return `the redirection \`${r.operator} ${r.target}\` reads ${why}`;
  }
  // Commands fed file names by xargs or a loop read those files too.
  for (const c of a.hidden) {
    if (c.via !== 'fed_script' || !c.wrappers.includes('xargs')) continue;
    if (c.name === '') continue;
    const why = commandSecret(c, readOnlyVerdict(c), s);
    if (why) return why;
  }
  return undefined;
}

export function checkCommandLine(line: string, ctx: CommandRuleContext): CommandVerdict {
  if (line.trim() === '') {
    return {
      decision: 'deny',
      layer: 'tool',
      reason: 'the command is empty',
      readOnly: false,
      ...riskOf('low', 'nothing to run'),
    };
  }
  const analysis = analyzeCommand(line, { home: ctx.home, cwd: ctx.cwd });
  const hardCtx = {
    home: ctx.home,
    cwd: ctx.cwd,
    ...(ctx.caseInsensitive !== undefined ? { caseInsensitive: ctx.caseInsensitive } : {}),
  };
  const block = findHardBlock(analysis, hardCtx);
  if (block) {
    return {
      decision: 'deny',
      layer: 'hard_block',
      reason: block.reason,
      readOnly: false,
      hardBlock: block,
      analysis,
      ...commandRisk(analysis, block, false),
    };
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

  const pctx: PathContext = {
    home: ctx.home,
    cwd: ctx.cwd,
    extraHomes: analysis.homeValues,
    cdTargets: analysis.cdTargets,
    links: analysis.links,
    ...(ctx.caseInsensitive !== undefined ? { caseInsensitive: ctx.caseInsensitive } : {}),
  };
  const secrets: SecretContext = { home: ctx.home, reinHome: ctx.reinHome, extraPatterns: ctx.extraPatterns, pctx };
  const standings = analysis.commands.map((c) => standing(c, ctx, analysis, secrets));
  const persistence = persistenceReason(analysis, pctx);
  const guarded = protectedWriteReason(analysis, {
    home: ctx.home,
    reinHome: ctx.reinHome,
    env: ctx.env ?? process.env,
    pctx,
  });
  const readOnly =
    analysis.complete &&
    analysis.fileWrites.length === 0 &&
    analysis.substitutions === 0 &&
    analysis.riskyAssignments.length === 0 &&
    persistence === undefined &&
    guarded === undefined &&
    standings.every((st) => st.readOnly) &&
    analysis.commands.every((c) => !c.wrappers.some((w) => PRIVILEGE_WRAPPERS.has(w)));
  const risk = commandRisk(analysis, undefined, readOnly);
  const withPersistence = { ...(persistence ? { persistence } : {}), ...(guarded ? { protected: guarded } : {}) };

  const compound = compoundReasons(analysis, guarded ?? persistence);
  if (compound.length > 0) {
    return {
      decision: 'ask',
      layer: 'compound',
      reason: compound.slice(0, 3).join('; '),
      readOnly,
      analysis,
      ...risk,
      ...withPersistence,
    };
  }

  const lineSecret = lineSecrets(analysis, secrets);
  const secretStanding = standings.find((st) => st.readsSecret);
  if (lineSecret || secretStanding) {
    const reason = [lineSecret, ...standings.filter((st) => st.readsSecret).map((st) => st.why)]
      .filter(Boolean)
      .slice(0, 2)
      .join('; ');
    return {
      decision: 'ask',
      layer: 'tool',
      reason: `it may show secrets: ${reason}`,
      readOnly,
      analysis,
      ...riskOf('medium', 'may show secrets (keys, tokens, passwords)'),
    };
  }

  // An exact (glob-free) entry equal to the whole line — what "always allow" saves — allows that line as a
  // whole. Glob entries never match whole lines: `npm test*` must not allow `npm test; rm -rf x`.
  const exactLine = ctx.allowedCommands.find(
    (p) => !/[*?]/.test(p) && p.trim().replace(/\s+/g, ' ') === line.trim().replace(/\s+/g, ' '),
  );
  if (exactLine) {
    return {
      decision: 'allow',
      layer: 'allowed',
      reason: `the whole line is in allowed_commands ("${exactLine}")`,
      readOnly,
      analysis,
      ...risk,
    };
  }

  const refused = standings.filter((st) => !st.allowed);
  if (refused.length === 0) {
    const why =
      standings.length === 0
        ? 'the line runs no command'
        : standings.length === 1
          ? standings[0]!.why
          : `all ${standings.length} commands are allowed: ${standings
              .map((st) => st.why)
              .slice(0, 3)
              .join('; ')}`;
    return { decision: 'allow', layer: 'allowed', reason: why, readOnly, analysis, ...risk };
  }
  return {
    decision: 'ask',
    layer: 'tool',
    reason: refused
      .map((st) => st.why)
      .slice(0, 3)
      .join('; '),
    readOnly,
    analysis,
    ...risk,
  };
}

// ---- text written where it runs later ---------------------------------------------------------------

/**
 * The hard block for text a file tool writes into a place that runs it later (a shell startup file, a
 * launch agent's property list, a crontab): the same rules as the line would get through bash
 * (`echo 'curl x | sh' >> ~/.zshrc` is `download-into-shell`). Needs the shell parser.
 */
export function plantedPayload(
  kind: string,
  text: string,
  ctx: { home: string; cwd: string; caseInsensitive?: boolean },
): HardBlock | undefined {
  if (!isShellParserReady() || text.trim() === '') return undefined;
  const pieces = kind === 'launch-agent' ? plistStrings(text) : kind === 'cron' ? cronCommands(text, true) : [text];
  for (const code of pieces.slice(0, 24)) {
    const a = analyzeCommand(code.length > 100_000 ? code.slice(0, 100_000) : code, { home: ctx.home, cwd: ctx.cwd });
    const block = findHardBlock(a, ctx);
    if (block) return block;
  }
  return undefined;
}

// ---- the bash tool's own hints come from here -----------------------------------------------------------

const FOLLOWS = /^-[a-zA-Z]*[fF]|^--follow|^--retry/;

/** How the bash tool should treat a command: read-only, safe to run beside others, destructive. */
export function classifyForTool(command: string, home: string, cwd: string): CommandClassification | undefined {
  if (!isShellParserReady() || command.trim() === '') return undefined;
  const v = checkCommandLine(command, {
    home,
    cwd,
    reinHome: `${home}/.rein`,
    extraPatterns: [],
    allowedCommands: [],
    deniedCommands: [],
  });
  const a = v.analysis;
  const readOnly = v.readOnly && v.decision !== 'deny';
  // Never-ending reads (following a file, a device, a pager or ping without a count) would hold a slot forever.
  const endless =
    !a ||
    [...a.commands].some(
      (c) =>
        c.args.some((x) => x.value.startsWith('/dev/')) ||
        c.redirects.some((r) => r.kind === 'read' && r.target.startsWith('/dev/')) ||
        (c.name === 'tail' && c.args.some((x) => FOLLOWS.test(x.value))) ||
        c.name === 'top' ||
        c.name === 'watch' ||
        c.name === 'yes' ||
        (c.name === 'sleep' && c.args.some((x) => !/^[0-9.]+[smhd]?$/.test(x.value) || parseFloat(x.value) > 60)),
    );
  return {
    readOnly,
    concurrencySafe: readOnly && !endless,
    destructive: v.decision === 'deny' || (a ? isDestructiveLine(a) : true),
  };
}

/**
 * The classifier a run hands its tools (ToolContext.classifyCommand): the shell analysis for the home folder
 * it runs under, in the call's working folder, remembering the last few hundred lines.
 */
export function commandClassifier(home: string): CommandClassifier {
  const classified = new Map<string, CommandClassification>();
  return (command, cwd) => {
    const key = `${cwd}\0${command}`;
    const hit = classified.get(key);
    if (hit) return hit;
    const c = classifyForTool(command, home, cwd);
    if (!c) return undefined;
    if (classified.size > 256) classified.clear();
    classified.set(key, c);
    return c;
  };
}
