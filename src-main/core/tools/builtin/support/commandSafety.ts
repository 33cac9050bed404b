/**
 * Best-effort, per-call safety hints for the bash tool. The permission engine parses shell properly and has
 * the final word; these only need to be conservative: a command is read-only when it is one plain command
 * from a short list, and anything with shell syntax (pipes, redirections, substitutions, chaining) is not.
 */

// Any of these means more than one simple command, a redirection or an expansion we would have to reason about.
const SHELL_SYNTAX = /[;&|<>$`()\\\n\r]/;

/** Commands that only look, given no argument from their "writes or runs something" list. */
const READ_ONLY_COMMANDS: Record<string, (args: string[]) => boolean> = {
  ls: () => true,
  cat: () => true,
  head: () => true,
  tail: () => true,
  wc: () => true,
  pwd: () => true,
  echo: () => true,
  whoami: () => true,
  uname: () => true,
  which: () => true,
  du: () => true,
  df: () => true,
  stat: () => true,
  grep: () => true,
  // `date -s` sets the clock; `file -C` compiles a magic file.
  date: (args) => !args.some((a) => a === '-s' || a.startsWith('--set')),
  file: (args) => !args.some((a) => a === '-C' || a === '--compile'),
  // `env CMD` runs CMD; only the bare listing is read-only.
  env: (args) => args.length === 0,
  printenv: () => true,
  // `rg --pre CMD` runs CMD on every file.
  rg: (args) => !args.some((a) => a.startsWith('--pre')),
  git: gitIsReadOnly,
};

const GIT_BRANCH_LISTING_FLAGS = new Set(['-a', '-r', '-v', '-vv', '-l', '--all', '--remotes', '--list', '--verbose', '--show-current']);

function gitIsReadOnly(args: string[]): boolean {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'status':
      return true;
    case 'log':
    case 'diff':
    case 'show':
      // `--output=FILE` writes a file.
      return !rest.some((a) => a.startsWith('--output'));
    case 'branch':
      // Anything else creates, renames or deletes a branch.
      return rest.every((a) => GIT_BRANCH_LISTING_FLAGS.has(a));
    default:
      return false;
  }
}

function words(command: string): string[] {
  return command.trim().split(/\s+/).filter(Boolean);
}

export function isReadOnlyCommand(command: string): boolean {
  if (SHELL_SYNTAX.test(command)) return false;
  const [first, ...args] = words(command);
  if (!first) return false;
  const check = READ_ONLY_COMMANDS[first];
  return check !== undefined && check(args);
}

/**
 * Read-only commands may run beside others, except those that never finish on their own: following a file
 * (`tail -f`) or reading a device (/dev/zero, /dev/tty …) would hold a concurrency slot forever.
 */
export function isConcurrencySafeCommand(command: string): boolean {
  if (!isReadOnlyCommand(command)) return false;
  const [first, ...args] = words(command);
  if (args.some((a) => a.startsWith('/dev/'))) return false;
  if (first === 'tail' && args.some((a) => /^-[a-zA-Z]*[fF]/.test(a) || a.startsWith('--follow') || a === '--retry')) {
    return false;
  }
  return true;
}

/** Patterns of commands that delete, overwrite or rewrite history. Best-effort: it flags, it does not parse. */
const DESTRUCTIVE_PATTERNS: RegExp[] = [
  /(^|[\s;&|(`])(sudo\s+)?(rm|rmdir|unlink|shred|truncate|mkfs(\.\w+)?|dd|fdisk|wipefs)(\s|$)/,
  /(^|[\s;&|(`])(sudo\s+)?mv\s/,
  /(^|[\s;&|(`])git\s+(reset\s+--hard|clean\s+-\w*f|push\s+.*(--force|-f\b|--delete)|checkout\s+--\s|restore\s|branch\s+-D|stash\s+(drop|clear))/,
  /(^|[\s;&|(`])find\s.*\s-(delete|exec\s+rm)/,
  /xargs\s+(-\S+\s+)*rm(\s|$)/,
  /(^|[\s;&|(`])(chmod|chown)\s+-\w*R/,
  // `> file` truncates it; `>>`, `>&`, `2>&1` and `> /dev/null` do not destroy anything.
  /(^|[^>&\d])\d?>(?![>&])\s*(?!\/dev\/null\b)[^\s&|;]/,
];

export function isDestructiveCommand(command: string): boolean {
  return DESTRUCTIVE_PATTERNS.some((re) => re.test(command));
}
