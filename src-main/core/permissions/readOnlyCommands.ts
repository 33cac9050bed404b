/**
 * Layer 4's built-in list: commands that only look. Each entry decides from the arguments, because most
 * "read" tools have a flag that writes or runs something (`find -delete`, `sed -i`, `sort -o`, `rg --pre`,
 * `git branch -D`). Builds and test runners are deliberately absent: they run project code. Users who want
 * them unprompted add them to `allowed_commands`.
 */
import { hasUnknown, type SimpleCommand } from './shell/types.js';

type Check = (args: string[]) => boolean;

interface Entry {
  check: Check;
  /** Arguments only known at run time could be a dangerous flag: refuse them. */
  strict: boolean;
}

const always: Check = () => true;
const bare: Check = (a) => a.length === 0;

/** True when no argument is one of these options (short clusters and `--long=value` forms included). */
const without =
  (...flags: string[]): Check =>
  (args) => {
    const shorts = flags.filter((f) => /^-[A-Za-z0-9]$/.test(f)).map((f) => f[1]!);
    const longs = flags.filter((f) => f.startsWith('--') || f.length > 2);
    for (const a of args) {
      if (a === '--') break;
      if (longs.some((l) => a === l || a.startsWith(`${l}=`))) return false;
      if (/^-[A-Za-z0-9]+$/.test(a) && !a.startsWith('--') && shorts.some((s) => a.slice(1).includes(s))) return false;
    }
    return true;
  };

const operands = (args: string[]) => args.filter((a) => !a.startsWith('-'));

/** First word is one of these sub-commands (`brew list`, `docker ps`); `more` checks the rest. */
const sub =
  (subs: string[], more: Check = always): Check =>
  (args) => {
    const i = args.findIndex((a) => !a.startsWith('-'));
    if (i === -1) return args.length > 0 && args.every((a) => a === '--version' || a === '-v' || a === '-V' || a === '--help' || a === '-h');
    return subs.includes(args[i]!) && more(args.slice(i + 1));
  };

/** Two-word sub-commands: `image ls`, `config view`. */
const sub2 =
  (pairs: string[], singles: string[] = []): Check =>
  (args) => {
    const ops = operands(args);
    if (ops.length === 0) return args.some((a) => a === '--version' || a === 'version');
    return singles.includes(ops[0]!) || pairs.includes(`${ops[0]} ${ops[1] ?? ''}`.trim());
  };

const versionOnly: Check = (a) => a.length === 1 && ['--version', '-v', '-V', 'version', '--help', '-h'].includes(a[0]!);

/** Checks a sed script for the commands that write files (`w`, `W`, `s///w`) or run programs (`e`, `s///e`). */
export function sedScriptIsSafe(script: string): boolean {
  let i = 0;
  const n = script.length;
  const skipTo = (stop: RegExp) => {
    while (i < n && !stop.test(script[i]!)) i++;
  };
  const delimited = (d: string) => {
    while (i < n && script[i] !== d) {
      if (script[i] === '\\') i++;
      i++;
    }
    i++;
  };
  while (i < n) {
    const c = script[i]!;
    if (/[\s;{}!,0-9$~+]/.test(c)) {
      i++;
      continue;
    }
    if (c === '/') {
      i++;
      delimited('/');
      continue;
    }
    if (c === '\\') {
      const d = script[i + 1] ?? '';
      i += 2;
      delimited(d);
      continue;
    }
    i++;
    switch (c) {
      case 's': {
        const d = script[i++] ?? '';
        delimited(d);
        delimited(d);
        const start = i;
        while (i < n && /[a-zA-Z0-9]/.test(script[i]!)) i++;
        if (/[weWE]/.test(script.slice(start, i))) return false;
        break;
      }
      case 'y': {
        const d = script[i++] ?? '';
        delimited(d);
        delimited(d);
        break;
      }
      case 'w':
      case 'W':
      case 'e':
        return false;
      case 'r':
      case 'R':
      case 'a':
      case 'i':
      case 'c':
        skipTo(/\n/);
        break;
      case ':':
      case 'b':
      case 't':
      case 'T':
        skipTo(/[;\n]/);
        break;
      case 'q':
      case 'Q':
      case 'l':
      case 'L':
        while (i < n && /[0-9]/.test(script[i]!)) i++;
        break;
      default:
        if (!'pdnNgGhHxzDP=F'.includes(c)) return false;
    }
  }
  return true;
}

const sedIsReadOnly: Check = (args) => {
  const scripts: string[] = [];
  let sawScriptOption = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '-i' || a.startsWith('-i') || a === '-I' || a.startsWith('--in-place') || a === '-f' || a.startsWith('--file')) return false;
    if (/^-[A-Za-z]+$/.test(a) && /[iIf]/.test(a.slice(1).replace(/e.*$/, ''))) return false;
    if (a === '-e' || a === '--expression') {
      sawScriptOption = true;
      scripts.push(args[++i] ?? '');
    } else if (a.startsWith('--expression=')) {
      sawScriptOption = true;
      scripts.push(a.slice(13));
    } else if (/^-[A-Za-z]*e$/.test(a)) {
      sawScriptOption = true;
      scripts.push(args[++i] ?? '');
    }
  }
  if (!sawScriptOption) {
    const first = args.find((a) => !a.startsWith('-'));
    if (first === undefined) return false;
    scripts.push(first);
  }
  return scripts.every(sedScriptIsSafe);
};

const findIsReadOnly = without('-exec', '-execdir', '-ok', '-okdir', '-delete', '-fprint', '-fprint0', '-fprintf', '-fls');
const fdIsReadOnly = without('-x', '-X', '--exec', '--exec-batch');

const GIT_READ = new Set([
  'status', 'log', 'show', 'diff', 'blame', 'annotate', 'shortlog', 'describe', 'rev-parse', 'rev-list', 'cat-file',
  'ls-files', 'ls-tree', 'ls-remote', 'name-rev', 'count-objects', 'verify-commit', 'verify-tag', 'show-ref',
  'for-each-ref', 'merge-base', 'check-ignore', 'check-attr', 'grep', 'whatchanged', 'cherry', 'range-diff', 'help',
  'version', 'var', 'show-branch', 'diff-tree', 'diff-files', 'diff-index',
]);
const GIT_BRANCH_LIST = new Set(['-a', '--all', '-r', '--remotes', '-v', '-vv', '--verbose', '--list', '-l', '--show-current', '--merged', '--no-merged', '--contains', '--no-contains', '--points-at', '-i', '--ignore-case', '--no-color', '--color', '--column', '--no-column', '--omit-empty']);
const GIT_TAG_LIST = new Set(['-l', '--list', '-n', '--contains', '--no-contains', '--merged', '--no-merged', '--points-at', '-i', '--ignore-case', '--column', '--no-column']);

function listingOnly(args: string[], allowed: Set<string>, listFlags: string[]): boolean {
  const listing = args.some((a) => listFlags.includes(a));
  return args.every((a) => {
    if (a.startsWith('--sort=') || a.startsWith('--format=') || a.startsWith('--color=') || a.startsWith('-n')) return true;
    if (a.startsWith('-')) return allowed.has(a.split('=')[0]!);
    // Without --list a name means "create".
    return listing;
  });
}

export function gitIsReadOnly(args: string[]): boolean {
  let i = 0;
  while (i < args.length) {
    const a = args[i]!;
    if (a === '-C') i += 2;
    else if (['--no-pager', '-P', '--no-optional-locks', '--literal-pathspecs', '--no-replace-objects', '--bare', '-p', '--paginate'].includes(a)) i++;
    else if (a.startsWith('--git-dir=') || a.startsWith('--work-tree=') || a.startsWith('--namespace=')) i++;
    else break;
  }
  const [subcommand, ...rest] = args.slice(i);
  if (subcommand === undefined) return false;
  if (subcommand === '--version' || subcommand === '--help') return true;
  if (rest.some((a) => a.startsWith('--output') || a === '--ext-diff' || a === '-O' || a.startsWith('--open-files-in-pager'))) return false;
  if (GIT_READ.has(subcommand)) return true;
  switch (subcommand) {
    case 'branch':
      return listingOnly(rest, GIT_BRANCH_LIST, ['--list', '-l']);
    case 'tag':
      return listingOnly(rest, GIT_TAG_LIST, ['--list', '-l']);
    case 'remote':
      return rest.length === 0 || rest.every((a) => a === '-v' || a === '--verbose') || ['show', 'get-url'].includes(rest[0]!);
    case 'stash':
      return rest[0] === 'list' || rest[0] === 'show';
    case 'config':
      return rest.some((a) => ['--get', '--get-all', '--get-regexp', '--list', '-l', '--get-urlmatch'].includes(a)) && !rest.some((a) => ['--add', '--unset', '--unset-all', '--replace-all', '--rename-section', '--remove-section', '-e', '--edit'].includes(a));
    case 'reflog':
      return rest.length === 0 || rest[0] === 'show' || rest[0]!.startsWith('-');
    case 'worktree':
      return rest[0] === 'list';
    case 'submodule':
      return rest[0] === 'status' || rest.length === 0;
    case 'notes':
      return rest.length === 0 || rest[0] === 'list' || rest[0] === 'show';
    default:
      return false;
  }
}

const dateIsReadOnly: Check = (args) =>
  !args.some((a) => a === '-s' || a.startsWith('--set') || /^[0-9]{4,}(\.[0-9]{2})?$/.test(a));

const READ_ONLY: Record<string, Entry> = {};
const add = (names: string[], check: Check, strict = check !== always) => {
  for (const n of names) READ_ONLY[n] = { check, strict };
};

// Shell built-ins that change nothing outside the shell itself.
add([':', 'true', 'false', 'test', '[', 'cd', 'pushd', 'popd', 'dirs', 'exit', 'return', 'wait', 'unset', 'hash', 'shopt', 'type', 'sleep', 'break', 'continue'], always);
add(['export', 'declare', 'typeset', 'local', 'readonly'], (a) => a.every((x) => !x.startsWith('-f')));
add(['set'], (a) => a.every((x) => /^[-+][A-Za-z]+$/.test(x) || /^(pipefail|errexit|nounset|xtrace|noglob|noclobber|verbose)$/.test(x)));
// Looking at files and text.
add(['ls', 'gls', 'echo', 'printf', 'cat', 'head', 'tail', 'wc', 'stat', 'du', 'df', 'basename', 'dirname', 'realpath', 'readlink', 'seq', 'cal', 'which', 'whereis', 'grep', 'egrep', 'fgrep', 'ag', 'ack', 'tr', 'cut', 'paste', 'fold', 'fmt', 'nl', 'rev', 'expand', 'unexpand', 'column', 'comm', 'diff', 'colordiff', 'cmp', 'strings', 'od', 'hexdump', 'jq', 'md5', 'md5sum', 'shasum', 'sha1sum', 'sha224sum', 'sha256sum', 'sha384sum', 'sha512sum', 'b2sum', 'cksum', 'locate', 'mdfind', 'mdls', 'printenv', 'locale', 'info', 'help', 'apropos', 'whatis', 'tac', 'look', 'numfmt', 'factor', 'expr', 'bc', 'getconf', 'lipo', 'otool', 'nm'], always);
add(['iconv'], without('-o', '--output'));
add(['file'], without('-C', '--compile'));
// `man -P CMD` and `man -H` run a program of the caller's choosing.
add(['man'], without('-P', '--pager', '-H', '--html'));
add(['uname'], always);
add(['date'], dateIsReadOnly);
add(['rg'], without('--pre', '--pre-glob'));
add(['sort'], without('-o', '--output'));
add(['uniq'], (a) => operands(a).length <= 1);
add(['xxd'], (a) => operands(a).length <= 1);
add(['base64', 'base32'], (a) => without('-o', '--output')(a) && operands(a).length <= 1);
add(['yq'], without('-i', '--inplace'));
add(['tree'], without('-o'));
add(['find', 'gfind'], findIsReadOnly);
add(['fd', 'fdfind'], fdIsReadOnly);
add(['sed', 'gsed'], sedIsReadOnly);
add(['codesign'], (a) => a.some((x) => x === '-d' || x === '-v' || x === '--display' || x === '--verify' || x.startsWith('-dv')) && !a.some((x) => x === '-s' || x === '--sign' || x === '--remove-signature'));
add(['plutil'], (a) => a.some((x) => x === '-p' || x === '-lint' || x === '-help' || x === '-type' || x === '-extract') && !a.some((x) => x === '-convert' || x === '-insert' || x === '-replace' || x === '-remove' || x === '-o' || x === '-s'));
add(['pkgutil'], (a) => a.every((x) => !/^--(forget|expand|flatten|learn)/.test(x)));
// The system.
add(['pwd', 'id', 'whoami', 'groups', 'tty', 'uptime', 'nproc', 'w', 'who', 'last', 'users', 'sw_vers', 'vm_stat', 'iostat', 'ioreg', 'system_profiler', 'lsof', 'pgrep', 'ps', 'netstat', 'ping', 'ping6', 'traceroute', 'traceroute6', 'tracepath', 'dig', 'nslookup', 'host', 'whois', 'ss', 'lsblk', 'free', 'lscpu', 'vmstat'], always);
add(['hostname', 'arch', 'env'], bare);
// `command -v x` only looks a name up (without -v it runs x, and the analysis sees through it as a wrapper).
add(['command'], (a) => a[0] === '-v' || a[0] === '-V');
add(['top'], (a) => a.includes('-l') || a.some((x) => /^-l[0-9]+$/.test(x)) || a.includes('-b') || a.includes('-bn1'));
add(['sysctl'], (a) => !a.some((x) => x === '-w' || x.includes('=')));
add(['ifconfig'], (a) => operands(a).length <= 1);
add(['route'], (a) => operands(a)[0] === 'get' || operands(a)[0] === 'monitor');
add(['arp'], (a) => a.every((x) => /^-[an]+$/.test(x)) && a.length > 0);
add(['ip'], (a) => ['addr', 'address', 'route', 'link', 'neigh', 'a', 'r', 'l'].includes(operands(a)[0] ?? '') && (operands(a)[1] === undefined || ['show', 'list', 'ls'].includes(operands(a)[1]!)));
add(['defaults'], sub(['read', 'read-type', 'domains', 'find']));
add(['launchctl'], sub(['list', 'print', 'print-disabled', 'blame', 'version', 'managerpid', 'manageruid', 'managername']));
add(['diskutil'], sub(['list', 'info', 'activity', 'listFilesystems']));
add(['scutil'], (a) => a.some((x) => x === '--get' || x === '--dns' || x === '--proxy' || x === '--nwi'));
add(['mount'], bare);
// Version control, read-only forms.
add(['git'], gitIsReadOnly);
add(['gh'], sub2(['pr list', 'pr view', 'pr status', 'pr diff', 'pr checks', 'issue list', 'issue view', 'issue status', 'repo view', 'release list', 'release view', 'run list', 'run view', 'auth status', 'workflow list', 'workflow view'], ['status', '--version', 'version']));
// Toolchain versions and package queries.
add(['node', 'python', 'python3', 'ruby', 'perl', 'rustc', 'swift', 'java', 'javac', 'cmake', 'clang', 'gcc', 'g++', 'make', 'deno', 'bun', 'php', 'lua', 'tsc', 'docker-compose', 'terraform', 'xcodebuild', 'xcrun', 'pod', 'sqlite3'], versionOnly);
add(['go'], sub(['version', 'env', 'list', 'doc']));
add(['rustup'], sub(['show', 'which', '--version']));
add(['npm'], sub(['list', 'ls', 'outdated', 'view', 'info', 'show', 'search', 'explain', 'why', 'help', 'root', 'prefix', 'version', '--version', '-v', 'ping', 'whoami'], without('--json-output-file')));
add(['pnpm'], sub(['list', 'ls', 'outdated', 'why', 'root', '--version', '-v']));
add(['yarn'], sub(['list', 'info', 'why', '--version', '-v']));
add(['pip', 'pip3'], sub(['list', 'show', 'freeze', 'check', '--version', '-V']));
add(['brew'], sub(['list', 'ls', 'info', 'search', 'outdated', 'deps', 'uses', 'leaves', 'config', 'doctor', 'desc', '--version', '--prefix', '--cellar', '--repository', 'shellenv']));
add(['cargo'], sub(['tree', 'metadata', 'version', 'search', 'verify-project', 'read-manifest', '--version', '-V']));
add(['gem'], sub(['list', 'search', 'info', 'contents', 'environment', '--version']));
add(['docker', 'podman'], sub2(['image ls', 'image inspect', 'image history', 'network ls', 'network inspect', 'volume ls', 'volume inspect', 'container ls', 'container inspect', 'container logs', 'compose ps', 'compose logs', 'compose config', 'compose ls', 'context ls', 'system df'], ['ps', 'images', 'inspect', 'logs', 'top', 'version', 'info', 'history', 'port', 'diff']));
add(['kubectl'], sub2(['config view', 'config current-context', 'config get-contexts', 'config get-clusters', 'auth can-i'], ['get', 'describe', 'logs', 'top', 'version', 'api-resources', 'api-versions', 'explain', 'cluster-info']));
add(['terraform', 'tofu'], sub2(['state list', 'state show'], ['version', 'validate', 'output', 'providers', 'graph', 'show']));
add(['aws'], sub2(['sts get-caller-identity', 's3 ls', 'configure list', 'configure get'], ['--version']));
add(['gcloud'], sub2(['config list', 'auth list', 'projects list'], ['version', 'info', '--version']));
// Linters that read files and report.
add(['shellcheck', 'hadolint', 'yamllint', 'staticcheck', 'actionlint'], always);
add(['ruff'], (a) => operands(a)[0] === 'check' && without('--fix', '--unsafe-fixes', '--watch')(a));
add(['flake8', 'pyflakes', 'pycodestyle'], without('--output-file'));
add(['buf'], sub(['lint', 'ls-files', '--version']));
add(['golangci-lint'], (a) => operands(a)[0] === 'run' && without('--fix')(a));

/** The built-in read-only list knows this program at all (used to explain decisions). */
export const isKnownReadOnlyProgram = (name: string): boolean => Object.hasOwn(READ_ONLY, name);

/** True when the command only looks (given its arguments); wrappers and assignments are judged elsewhere. */
export function isReadOnlyCommand(cmd: SimpleCommand): boolean {
  if (cmd.nameDynamic || cmd.name === '') return false;
  const entry = READ_ONLY[cmd.name];
  if (!entry) return false;
  const args = cmd.args.map((a) => a.value);
  if (entry.strict && args.some(hasUnknown)) return false;
  return entry.check(args);
}
