/**
 * What kind of program a command is, for the rules that care: shells and interpreters that run code,
 * downloaders, decoders, static text emitters. Names are compared lower-cased: macOS file systems are
 * case-insensitive, so `RM` runs /bin/rm.
 */
import { hasUnknown, type ShellWord, type SimpleCommand } from './types.js';
import { decodeCEscapes } from './words.js';

/** `/bin/RM` → `rm`; `python3.12` stays (callers use the family helpers below). */
export function commandName(program: string): string {
  const base = program.slice(program.lastIndexOf('/') + 1);
  return base.toLowerCase();
}

const SHELLS = new Set([
  'sh',
  'bash',
  'zsh',
  'dash',
  'ksh',
  'mksh',
  'pdksh',
  'csh',
  'tcsh',
  'fish',
  'ash',
  'yash',
  'rbash',
]);
export const isShell = (name: string): boolean => SHELLS.has(name);

/** Family of an interpreter name (`python3.12` → `python`), or undefined. */
export function interpreterFamily(name: string): string | undefined {
  if (/^(python|pypy)[0-9.]*$/.test(name)) return 'python';
  if (/^perl[0-9.]*$/.test(name)) return 'perl';
  if (/^ruby[0-9.]*$/.test(name) || name === 'irb') return 'ruby';
  if (name === 'node' || name === 'nodejs' || name === 'bun' || name === 'deno') return 'node';
  if (/^php[0-9.]*$/.test(name)) return 'php';
  if (/^lua[0-9.]*$/.test(name) || name === 'luajit') return 'lua';
  if (name === 'osascript') return 'osascript';
  if (name === 'rscript') return 'r';
  if (name === 'tclsh' || name === 'wish') return 'tcl';
  if (name === 'pwsh' || name === 'powershell') return 'powershell';
  if (name === 'jshell' || name === 'groovy') return 'jvm';
  return undefined;
}

/** Options that take code as their value, per family. A short option may be clustered (`-lc`, `-pe`). */
const CODE_OPTIONS: Record<string, { short: string; long: string[] }> = {
  shell: { short: 'c', long: [] },
  python: { short: 'c', long: [] },
  perl: { short: 'eE', long: [] },
  ruby: { short: 'e', long: [] },
  node: { short: 'ep', long: ['--eval', '--print'] },
  php: { short: 'r', long: [] },
  lua: { short: 'e', long: [] },
  osascript: { short: 'e', long: [] },
  r: { short: 'e', long: [] },
  powershell: { short: 'c', long: ['-command', '--command', '-encodedcommand', '-e'] },
  tcl: { short: '', long: [] },
  jvm: { short: 'e', long: [] },
};

/** Letters that take a glued value, ending a cluster (`-rsocket` is -r socket, not -e). */
const VALUE_LETTERS: Record<string, string> = {
  perl: 'IMmdDxl0iFC',
  ruby: 'rIECFKTWx0il',
  python: 'WXQm',
  node: 'r',
  php: 'cdfzt',
};

export function codeFamily(name: string): string | undefined {
  return isShell(name) ? 'shell' : interpreterFamily(name);
}

/** Indexes of arguments that carry inline code (`bash -c CODE`, `python3 -c CODE`, `osascript -e CODE` …). */
export function inlineCodeArgs(cmd: SimpleCommand): number[] {
  const family = codeFamily(cmd.name);
  if (!family) return [];
  if (family === 'node' && cmd.name === 'deno' && cmd.args[0]?.value === 'eval') return cmd.args.length > 1 ? [1] : [];
  const spec = CODE_OPTIONS[family]!;
  const out: number[] = [];
  for (let i = 0; i < cmd.args.length; i++) {
    const a = cmd.args[i]!.value;
    if (a === '--') break;
    const lower = a.toLowerCase();
    const long = spec.long.find((l) => lower === l || lower.startsWith(`${l}=`));
    if (long) {
      if (lower.includes('=')) out.push(i);
      else if (i + 1 < cmd.args.length) out.push(++i);
      continue;
    }
    if (/^-[A-Za-z]+/.test(a) && !a.startsWith('--') && spec.short) {
      // A cluster up to the first letter that takes a glued value (`ruby -rsocket`, `perl -Mfeature=say`).
      const stop = VALUE_LETTERS[family] ?? '';
      let code = false;
      for (const ch of a.slice(1)) {
        if (spec.short.includes(ch)) {
          code = true;
          break;
        }
        if (stop.includes(ch)) break;
      }
      // Perl's `-e` may be followed by more clustered flags (`-ne`): the code is the next word.
      if (code) {
        if (i + 1 < cmd.args.length) out.push(++i);
        continue;
      }
      if (/^-[A-Za-z]$/.test(a) && stop.includes(a[1]!) && !/^-[mM]$/.test(a)) i++;
      continue;
    }
    // The first operand is a script path: options after it belong to the script.
    if (!a.startsWith('-') && family !== 'osascript') break;
  }
  return out;
}

/** Options of shells and interpreters that take a separate value (so the value is not mistaken for a script). */
const VALUE_OPTIONS = new Set([
  '-o',
  '-O',
  '--rcfile',
  '--init-file',
  '-W',
  '-X',
  '-r',
  '--require',
  '--import',
  '--loader',
  '-I',
  '-l',
  '-M',
  '-m',
  '-f',
  '-s',
]);

/** True when the command would read its program from standard input (`curl … | sh`, `… | python3`). */
export function readsProgramFromStdin(cmd: SimpleCommand): boolean {
  // A program only known at run time may be a shell.
  if (cmd.nameDynamic) return true;
  // `at` and `batch` run the shell code they read, later.
  if (cmd.name === 'at' || cmd.name === 'batch')
    return !cmd.args.some((a) => /^-[A-Za-z]*[flrdc]/.test(a.value) || a.value === '-f');
  if (cmd.name === 'source' || cmd.name === '.') {
    const target = cmd.args[0]?.value;
    return target === undefined || isStdinPath(target);
  }
  const family = codeFamily(cmd.name);
  if (!family) return false;
  if (cmd.wrappers.includes('xargs')) return true;
  if (inlineCodeArgs(cmd).length > 0) return false;
  for (let i = 0; i < cmd.args.length; i++) {
    const a = cmd.args[i]!.value;
    if (a === '-' || isStdinPath(a)) return true;
    if (a === '--')
      return i + 1 >= cmd.args.length || isStdinPath(cmd.args[i + 1]!.value) || cmd.args[i + 1]!.value === '-';
    if (family === 'shell' && /^-[A-Za-z]*s[A-Za-z]*$/.test(a)) return true;
    if (family === 'python' && (a === '-m' || a.startsWith('-m'))) return false;
    if (a.startsWith('-') || a.startsWith('+')) {
      if (VALUE_OPTIONS.has(a) && !(family === 'shell' && (a === '-l' || a === '-s'))) i++;
      continue;
    }
    return false;
  }
  return true;
}

const isStdinPath = (p: string): boolean => /^\/dev\/(stdin|fd\/0)$|^\/proc\/self\/fd\/0$/.test(p);

const DOWNLOADERS = new Set([
  'curl',
  'wget',
  'wget2',
  'fetch',
  'aria2c',
  'http',
  'https',
  'httpie',
  'xh',
  'xhs',
  'lwp-request',
  'lwp-download',
  'get',
  'nc',
  'ncat',
  'netcat',
  'socat',
  'ftp',
  'tftp',
  'telnet',
  'axel',
  'curlie',
  'lynx',
  'w3m',
  'links',
  'elinks',
  // DNS answers carry payloads too (`dig +short TXT x.example | sh`), and so does another machine's output.
  'dig',
  'host',
  'nslookup',
  'drill',
  'kdig',
  'whois',
  'ssh',
  'gsutil',
]);

export function isDownloader(cmd: SimpleCommand): boolean {
  if (DOWNLOADERS.has(cmd.name)) return true;
  const a = cmd.args.map((w) => w.value);
  if (cmd.name === 'openssl') return a[0] === 's_client';
  // `gh api …`, `gh gist view …`, `gh release download -O - …`, `aws s3 cp s3://x -`.
  if (cmd.name === 'gh') return ['api', 'gist', 'release', 'run'].includes(a.find((v) => !v.startsWith('-')) ?? '');
  if (cmd.name === 'aws') return a.includes('s3') && (a.includes('cp') || a.includes('presign'));
  return false;
}

/** Network clients a reverse shell wires a shell to. */
export function isNetworkClient(cmd: SimpleCommand): boolean {
  return ['nc', 'ncat', 'netcat', 'socat', 'telnet', 'openssl', 'ssh', 'cryptcat', 'pwncat', 'sbd'].includes(cmd.name);
}

/** Variable names that look like they hold secrets (`GITHUB_TOKEN`, `ANTHROPIC_API_KEY`, `DATABASE_URL`). */
export function looksSecretName(name: string): boolean {
  if (name === 'PWD' || name === 'OLDPWD') return false;
  return (
    /(^|_)(API_?KEYS?|KEYS?|TOKENS?|SECRETS?|PASSWORDS?|PASSWD|PASSPHRASE|PASS|PWD|PW|CREDENTIALS?|CREDS?|AUTH|COOKIES?|SESSION|PRIVATE|SIGNING|BEARER|DSN)(_|$)/i.test(
      name,
    ) ||
    /^(ANTHROPIC|OPENAI|CLAUDE|GEMINI|MISTRAL|GROQ|HF|HUGGING_?FACE)_/i.test(name) ||
    (/^REIN_/i.test(name) && !/^REIN_(HOME|SKIP_CLI_BUILD|LOG_LEVEL|DEBUG)$/i.test(name)) ||
    /(^|_)(DATABASE|DB|REDIS|MONGO(DB)?|POSTGRES(QL)?|PG|MYSQL|AMQP|RABBITMQ|BROKER|SENTRY)_(URL|URI|DSN)$/i.test(
      name,
    ) ||
    /_CONNECTION_STRING$/i.test(name) ||
    /^(KUBECONFIG|NETRC|HISTFILE|SSH_AUTH_SOCK|GNUPGHOME|PASSWORD_STORE_DIR)$/i.test(name)
  );
}

const AWKS = new Set(['awk', 'gawk', 'mawk', 'nawk', 'goawk', 'bwk', 'onetrue-awk']);
export const isAwk = (name: string): boolean => AWKS.has(name);

/**
 * Where an awk command's program is: the first operand after its options (`-F fs`, `-v a=b`), or none when
 * it comes from a file (`-f prog.awk`, gawk's `-i`/`-l`/`--exec`). `options` lists the options seen.
 */
export function awkProgram(args: readonly string[]): { index?: number; fromFile: boolean; options: string[] } {
  const options: string[] = [];
  let fromFile = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') return { ...(i + 1 < args.length && !fromFile ? { index: i + 1 } : {}), fromFile, options };
    if (!a.startsWith('-') || a === '-') return { ...(fromFile ? {} : { index: i }), fromFile, options };
    options.push(a);
    const m = /^(-[A-Za-z]|--[a-z-]+)(=?)(.*)$/.exec(a)!;
    const opt = m?.[1] ?? a;
    if (/^-[fiE]$|^--(file|include|exec|load|source)$|^-l$/.test(opt)) fromFile = true;
    // Options with a value: glued (`-F:`, `-vx=1`) or the next word.
    if (/^-[FvfiEle]$|^--(field-separator|assign|file|include|exec|load|source)$/.test(opt) && !m?.[3] && !m?.[2]) i++;
  }
  return { fromFile, options };
}

/** The commands of a crontab's entries (schedule fields, and a system crontab's user field, dropped). */
export function cronCommands(text: string, system = false): string[] {
  const out: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || /^[A-Za-z_][A-Za-z0-9_]*\s*=/.test(line)) continue;
    const fields = line.split(/\s+/);
    const skip = line.startsWith('@') ? 1 : 5;
    const rest = fields.slice(skip);
    // `%` is a newline in a crontab command (`\%` a literal percent sign).
    const fix = (s: string) => s.replace(/(^|[^\\])%/g, '$1\n').replace(/\\%/g, '%');
    out.push(fix(rest.join(' ')));
    // Read without the `%` rule too: a payload that the rule would cut short still counts.
    if (rest.join(' ').includes('%')) out.push(rest.join(' '));
    if (system && rest.length > 1) out.push(fix(rest.slice(1).join(' ')));
    if (out.length >= 16) break;
  }
  return out.filter((c) => c.trim());
}

/** The strings of a property list (a launch agent's ProgramArguments), each alone and all joined. */
export function plistStrings(text: string): string[] {
  const unescape = (s: string) =>
    s
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&apos;/g, "'")
      .replace(/&amp;/g, '&');
  const strings = [...text.matchAll(/<string>([\s\S]*?)<\/string>/g)].map((m) => unescape(m[1]!)).slice(0, 32);
  return [...strings.filter((s) => /\s/.test(s)), strings.join(' ')].filter((s) => s.trim());
}

/** Programs that turn an encoded or compressed blob back into text (used to hide a payload). */
export function isDecoder(cmd: SimpleCommand): boolean {
  const args = cmd.args.map((a) => a.value);
  const has = (...flags: string[]) =>
    args.some(
      (a) => flags.includes(a) || (/^-[A-Za-z]+$/.test(a) && flags.some((f) => f.length === 2 && a.includes(f[1]!))),
    );
  switch (cmd.name) {
    case 'base64':
    case 'base32':
    case 'basenc':
    case 'gbase64':
      return has('-d', '-D', '--decode') || args.includes('--decode');
    case 'openssl':
      return (
        args.some((a) => a === 'base64' || a === 'enc' || a.startsWith('-a') || a === '-base64') && args.includes('-d')
      );
    case 'xxd':
      return has('-r') || args.includes('-revert');
    case 'uudecode':
    case 'b64decode':
    case 'gunzip':
    case 'zcat':
    case 'gzcat':
    case 'bunzip2':
    case 'bzcat':
    case 'unxz':
    case 'xzcat':
    case 'unzstd':
    case 'zstdcat':
    case 'lzcat':
    case 'rev':
    case 'rot13':
    case 'caesar':
      return true;
    // Character maps and re-encodings turn an innocent-looking string into a command (rot13).
    case 'tr':
      return args.filter((a) => !a.startsWith('-')).length >= 2 && !has('-d');
    case 'iconv':
      return true;
    case 'gpg':
    case 'gpg2':
      return has('-d') || args.includes('--decrypt');
    case 'unzip':
      return has('-p') || has('-c');
    case 'gzip':
    case 'bzip2':
    case 'xz':
    case 'zstd':
    case 'lzma':
      return has('-d') || args.includes('--decompress');
    default:
      return false;
  }
}

/**
 * The text an `echo` or `printf` with static arguments writes, or undefined. Lets the analysis read
 * `echo 'rm -rf /' | sh` and `$(printf rm) -rf /` as the commands they are.
 */
export function staticOutput(cmd: SimpleCommand): string | undefined {
  if (cmd.nameDynamic) return undefined;
  const words = cmd.args;
  if (words.some((w) => hasUnknown(w.value))) return undefined;
  if (cmd.name === 'echo') {
    let i = 0;
    let escapes = false;
    while (i < words.length && /^-[neE]+$/.test(words[i]!.value)) {
      if (words[i]!.value.includes('e')) escapes = true;
      i++;
    }
    const text = words
      .slice(i)
      .map((w) => w.value)
      .join(' ');
    return escapes ? decodeCEscapes(text) : text;
  }
  if (cmd.name === 'printf') {
    const [format, ...rest] = words.map((w) => w.value);
    if (format === undefined || format === '-v') return undefined;
    // Good enough for reading intent: escapes decoded, each %s/%b/%c filled from the arguments in turn.
    let k = 0;
    const filled = format.replace(/%%|%[-+ #0-9.]*[sbcdiouxXeEfgG]/g, (m) => (m === '%%' ? '%' : (rest[k++] ?? '')));
    const tail = k < rest.length ? rest.slice(k).join(' ') : '';
    return decodeCEscapes(filled + tail);
  }
  return undefined;
}

/** Paths a download writes to: `curl -o F`, `wget -O F`, `curl -O URL` (its basename). */
export function downloadTargets(cmd: SimpleCommand): string[] {
  if (!isDownloader(cmd)) return [];
  const out: string[] = [];
  const a = cmd.args.map((w: ShellWord) => w.value);
  for (let i = 0; i < a.length; i++) {
    const v = a[i]!;
    if (
      (cmd.name === 'curl' && (v === '-o' || v === '--output')) ||
      (cmd.name.startsWith('wget') && (v === '-O' || v === '--output-document'))
    ) {
      if (a[i + 1] !== undefined) out.push(a[i + 1]!);
    } else if (v.startsWith('--output=') || v.startsWith('--output-document=')) {
      out.push(v.slice(v.indexOf('=') + 1));
    } else if (cmd.name === 'curl' && (v === '-O' || v === '--remote-name')) {
      const url = a.find((x) => /^[a-z]+:\/\//i.test(x));
      if (url)
        out.push(
          url
            .replace(/[?#].*$/, '')
            .split('/')
            .pop() ?? '',
        );
    } else if (/^-[A-Za-z]*o$/.test(v) && cmd.name === 'curl' && a[i + 1] !== undefined) {
      out.push(a[i + 1]!);
    } else if (cmd.name === 'curl' && /^-[A-Za-z]*o./.test(v)) {
      // Glued: `-o/tmp/x`, `-so/tmp/x`.
      out.push(v.slice(v.indexOf('o') + 1));
    } else if (cmd.name.startsWith('wget') && /^-[A-Za-z]*O./.test(v)) {
      out.push(v.slice(v.indexOf('O') + 1));
    }
  }
  if (cmd.name.startsWith('wget') && out.length === 0) {
    const url = a.find((x) => /^[a-z]+:\/\//i.test(x));
    if (url)
      out.push(
        url
          .replace(/[?#].*$/, '')
          .split('/')
          .pop() ?? '',
      );
  }
  for (const r of cmd.redirects) if (r.kind === 'write') out.push(r.target);
  return out.filter((p) => p.length > 0 && p !== '-');
}

/** The script file a command runs, if any: `./x.sh`, `bash x.sh`, `python3 x.py`, `source x`. */
export function scriptFileRun(cmd: SimpleCommand): string | undefined {
  if (cmd.nameDynamic) return undefined;
  if (codeFamily(cmd.name) || cmd.name === 'source' || cmd.name === '.') {
    if (inlineCodeArgs(cmd).length > 0) return undefined;
    return cmd.args.find((a) => !a.value.startsWith('-') && !a.value.startsWith('+'))?.value;
  }
  return cmd.program.includes('/') ? cmd.program : undefined;
}

/** Files a command writes with `>`/`>>` or `tee`. */
export function filesWritten(cmd: SimpleCommand): string[] {
  const out = cmd.redirects.filter((r) => r.kind === 'write').map((r) => r.target);
  if (cmd.name === 'tee') out.push(...cmd.args.map((a) => a.value).filter((v) => !v.startsWith('-')));
  return out.filter((p) => p && !hasUnknown(p) && !/^\/dev\/(null|stdout|stderr|tty)$/.test(p));
}

/** The text a command writes out, when it is static: echo/printf arguments, or a heredoc given to cat/tee. */
export function staticText(cmd: SimpleCommand): string | undefined {
  const out = staticOutput(cmd);
  if (out !== undefined) return out;
  if (cmd.name !== 'cat' && cmd.name !== 'tee') return undefined;
  const operands = cmd.args.filter((a) => !a.value.startsWith('-')).length;
  if (cmd.name === 'cat' && operands > 0) return undefined;
  const here = cmd.redirects.find((r) => r.kind === 'heredoc' || (r.kind === 'herestring' && !r.targetDynamic));
  return here?.target;
}
