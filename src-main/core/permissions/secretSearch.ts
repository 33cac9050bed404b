/**
 * Searches for key material: what a search command looks for (grep and its kin, rg, ag, ack, `git grep`,
 * `git log -S/-G/--grep`), and whether that is a key, a token or a password however it is spelt — in any
 * case, with `-` or `_` or nothing between the parts (`sk-ant`, `sk_ant`, `SKANT`), as a regular
 * expression (`sk\-ant`, `s[k].ant`, `-{5}BEGIN`), after `-e`, `--regexp=` or as the first operand.
 * Patterns read from a file (`-f FILE`) or only known when the line runs cannot be judged, so they count
 * too. Such a search asks (commandRules.ts, *Secrets* in docs/permissions.md); it is no hard block,
 * except over Rein's own folder, which `rein-secrets` (reinGuards.ts) refuses whatever is searched for.
 *
 * The list is in docs/permissions.md, *Secrets*. Words as common in code as in secrets (`token`, `secret`,
 * `auth`) only count as assignments (`token=`, `secret:`): asking at every `grep -r token src` would teach
 * people to say yes without reading.
 */
import { optionSpecOf } from './readOnlyCommands.js';
import { parseOptions, type OptionSpec } from './shell/getopt.js';
import { showValue } from './shell/normalize.js';
import { hasUnknown, type SimpleCommand } from './shell/types.js';

/** Not a letter or digit before (the start of a word, once separators are normalised). */
const B = '(?<![a-z0-9])';
/** Not a letter or digit after. */
const E = '(?![a-z0-9])';

/**
 * What counts, on the pattern normalised by `normalisePattern` (lower case, every run of separators one
 * `-`): the token prefixes of the common providers, private-key blocks, and the names of secrets.
 */
const KEY_MATERIAL: ReadonlyArray<readonly [RegExp, string]> = [
  [new RegExp(`${B}sk-?ant`), 'Anthropic API keys'],
  [new RegExp(`${B}(sk|rk)-?(proj|live|svcacct)`), 'API keys'],
  [new RegExp(`${B}gh[pousr]${E}|${B}github-?pat`), 'GitHub tokens'],
  [new RegExp(`${B}glpat`), 'GitLab tokens'],
  [new RegExp(`${B}xox[abposre]${E}`), 'Slack tokens'],
  [new RegExp(`${B}akia`), 'AWS access keys'],
  [/aws-?(secret-?access-?key|access-?key-?id|session-?token)|secret-?access-?key/, 'AWS credentials'],
  [new RegExp(`${B}begin-([a-z0-9-]*-)?(rsa|dsa|ec|openssh|pgp|encrypted|private)${E}|private-?key`), 'private keys'],
  [/api-?key|secret-?key|client-?secret|auth-?token/, 'API keys and tokens'],
  [/passw(or)?d|passphrase/, 'passwords'],
  [new RegExp(`${B}bearer-`), 'bearer tokens'],
];

/** On the pattern as written (escapes removed, lower case): a PEM armour line, an assignment of a secret. */
const RAW_MATERIAL: ReadonlyArray<readonly [RegExp, string]> = [
  [/(-{2,}|-\{\d+,?\d*\}|-[+*])\s*begin/, 'private keys'],
  [/(token|secret|passw(or)?d|passphrase|pwd|api[-_]?key)["']?\s*[=:]/, 'tokens and passwords'],
];

/**
 * A search pattern as the list reads it: lower case; regular-expression escapes and one-character classes
 * undone (`\-` → `-`, `[k]` → `k`, `[Kk]` → `k`, `\s` → a separator); every run of what is not a letter or
 * a digit (`-`, `_`, `.`, spaces, `?`, `|`, parentheses) one `-`.
 */
export function normalisePattern(raw: string): string {
  return raw
    .toLowerCase()
    .replace(/\[\[:(space|punct|blank):\]\]/g, '-')
    .replace(/\\[sSwWbBdD<>]/g, '-')
    .replace(/\\(.)/g, '$1')
    .replace(/\[\^?([^\]]{1,8})\]/g, (_m, inner: string) => inner[0] ?? '')
    .replace(/\{\d+,?\d*\}/g, '-')
    .replace(/[^a-z0-9]+/g, '-');
}

/** What kind of secret this search pattern looks for, or undefined. */
export function keyMaterialIn(pattern: string): string | undefined {
  const raw = pattern.toLowerCase().replace(/\\(.)/g, '$1');
  for (const [re, what] of RAW_MATERIAL) if (re.test(raw)) return what;
  const n = normalisePattern(pattern);
  for (const [re, what] of KEY_MATERIAL) if (re.test(n)) return what;
  return undefined;
}

/** Programs that search file contents for a pattern, the grep way (`-e`, `-f`, else the first operand). */
const GREP_LIKE = new Set([
  'grep',
  'egrep',
  'fgrep',
  'ggrep',
  'zgrep',
  'zegrep',
  'zfgrep',
  'bzgrep',
  'xzgrep',
  'lzgrep',
  'zstdgrep',
  'pcregrep',
  'pcre2grep',
  'ugrep',
  'rg',
  'ag',
  'ack',
  'ack-grep',
  'sift',
  'pt',
]);

/** The options that take a value, of the searchers not on the read-only list and not grep's kin (ack, sift, pt). */
const FALLBACK_SPEC: OptionSpec = {
  short: 'e:f:m:A:B:C:t:',
  long: [
    'regexp=',
    'file=',
    'match=',
    'max-count=',
    'after-context=',
    'before-context=',
    'context=?',
    'type=',
    'ignore-dir=',
    'include=',
    'exclude=',
  ],
  lenient: true,
};
/** git's own options that take the next word as their value (before the sub-command). */
const GIT_VALUE_OPTIONS = new Set([
  '-C',
  '-c',
  '--git-dir',
  '--work-tree',
  '--namespace',
  '--config-env',
  '--exec-path',
]);
/** git commands whose `-S`, `-G`, `--grep` search the history. */
const GIT_HISTORY = new Set(['log', 'show', 'diff', 'whatchanged', 'rev-list', 'shortlog', 'reflog']);
/** `git grep`'s options that take a value (the pattern ones among them). */
const GIT_GREP_SPEC: OptionSpec = {
  short: 'e:f:m:A:B:C:O::',
  long: [
    'regexp=',
    'file=',
    'max-count=',
    'after-context=',
    'before-context=',
    'context=',
    'threads=',
    'max-depth=',
    'open-files-in-pager=?',
    'color=?',
  ],
  lenient: true,
};

export interface SearchPatterns {
  /** The patterns as the program will read them (with the other values a word may take). */
  patterns: string[];
  /** A file the patterns come from (`-f FILE`): what is in it is not known here. */
  fromFile?: string;
}

/** What a search command looks for, or undefined when it is not one. */
export function searchPatterns(cmd: SimpleCommand): SearchPatterns | undefined {
  const words = cmd.args;
  const values = words.map((a) => a.value);
  const withAlternatives = (ps: string[]) => [
    ...new Set(ps.flatMap((p) => [p, ...words.filter((w) => w.value === p).flatMap((w) => w.alternatives)])),
  ];
  if (cmd.name === 'git') {
    let at = 0;
    while (at < values.length && values[at]!.startsWith('-')) at += GIT_VALUE_OPTIONS.has(values[at]!) ? 2 : 1;
    const sub = values[at];
    const rest = values.slice(at + 1);
    if (sub === 'grep') return grepPatterns(rest, GIT_GREP_SPEC, withAlternatives);
    if (!GIT_HISTORY.has(sub ?? '')) return undefined;
    // The pickaxe and the message search of the history commands (`git log -S sk-ant -p`).
    const found: string[] = [];
    rest.forEach((v, i) => {
      const m = /^(-S|-G|--grep=?|--author=?|--committer=?)(.*)$/.exec(v);
      if (!m) return;
      const value = m[2] !== '' ? m[2]! : m[1]!.endsWith('=') ? '' : rest[i + 1];
      if (value !== undefined && value !== '') found.push(value);
    });
    return found.length > 0 ? { patterns: withAlternatives(found) } : undefined;
  }
  if (!GREP_LIKE.has(cmd.name)) return undefined;
  const spec =
    optionSpecOf(cmd.name) ?? (cmd.name.endsWith('grep') ? optionSpecOf('grep') : undefined) ?? FALLBACK_SPEC;
  return grepPatterns(values, spec, withAlternatives);
}

function grepPatterns(args: string[], spec: OptionSpec, withAlternatives: (ps: string[]) => string[]): SearchPatterns {
  const p = parseOptions(args, spec);
  const given = p.options
    .filter((o) => ['-e', '--regexp', '--match'].includes(o.name) && o.value !== undefined)
    .map((o) => o.value!);
  const file = p.options.find((o) => (o.name === '-f' || o.name === '--file') && o.value !== undefined)?.value;
  const patterns = given.length > 0 || file !== undefined ? given : p.operands.slice(0, 1);
  return { patterns: withAlternatives(patterns), ...(file !== undefined ? { fromFile: file } : {}) };
}

/** Why this command searches for key material (a phrase after the command), or undefined. */
export function secretSearch(cmd: SimpleCommand, quote: (s: string, max?: number) => string): string | undefined {
  const s = searchPatterns(cmd);
  if (!s) return undefined;
  for (const pattern of s.patterns) {
    if (hasUnknown(pattern))
      return `searches for a pattern only known when it runs (${quote(showValue(pattern), 40)}), which may be key material`;
    const what = keyMaterialIn(pattern);
    if (what) return `searches for ${what} (${quote(pattern, 40)})`;
  }
  if (s.fromFile !== undefined)
    return `reads the patterns it searches for from ${quote(s.fromFile, 60)}, which may hold key material`;
  return undefined;
}
