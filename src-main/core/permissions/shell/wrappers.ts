/**
 * Commands that run another command: `sudo rm …` is rm, `env X=1 timeout 5 nice -n 2 rm …` is rm. Each
 * wrapper's options are read from a table; an option we do not know could take a value, so the reading is
 * marked uncertain and every later word is also tried as the real command (for hard blocks).
 */
import { commandName } from './commandKinds.js';
import type { Assignment, ShellWord } from './types.js';
import { plainWord } from './words.js';

interface WrapperSpec {
  /** Short options that take a value (`-u root`, `-uroot`). */
  valueShort?: string;
  /** Short options whose value, if any, is glued (`xargs -i{}`, `-l5`). */
  optionalShort?: string;
  /** Long options that take a value when written without `=`. */
  valueLong?: string[];
  /** Short options that take no value. Unknown options make the reading uncertain. */
  flagShort?: string;
  flagLong?: string[];
  /** Leading operands before the command (`timeout DURATION cmd`). */
  operands?: number;
  /** `NAME=value` words before the command are assignments (`env`, `sudo`). */
  assignments?: boolean;
  /** The rest of the line is one shell string, not a command (`watch`). */
  joinsShellString?: boolean;
  /** Option whose value is a shell string (`su -c`, `env -S`). */
  shellStringOption?: string;
  /** Options that mean "don't run, just look up" (`command -v`). */
  lookupOptions?: string[];
}

const WRAPPERS: Record<string, WrapperSpec> = {
  sudo: {
    valueShort: 'ugCDhprtTUc',
    valueLong: [
      '--user',
      '--group',
      '--close-from',
      '--chdir',
      '--host',
      '--prompt',
      '--role',
      '--type',
      '--other-user',
      '--command-timeout',
    ],
    flagShort: 'AbEeHiKklnPSsVv',
    flagLong: [
      '--askpass',
      '--background',
      '--preserve-env',
      '--set-home',
      '--login',
      '--non-interactive',
      '--stdin',
      '--shell',
      '--reset-timestamp',
      '--remove-timestamp',
      '--validate',
      '--preserve-groups',
    ],
    assignments: true,
  },
  doas: { valueShort: 'uC', flagShort: 'ns', assignments: false },
  env: {
    valueShort: 'uPC',
    valueLong: ['--unset', '--chdir'],
    flagShort: 'i0v',
    flagLong: ['--ignore-environment', '--null', '--debug'],
    assignments: true,
    shellStringOption: 'S',
  },
  command: { flagShort: 'p', lookupOptions: ['-v', '-V'] },
  builtin: {},
  exec: { valueShort: 'a', flagShort: 'cl' },
  nohup: {},
  nice: { valueShort: 'n', valueLong: ['--adjustment'] },
  timeout: {
    valueShort: 'sk',
    valueLong: ['--signal', '--kill-after'],
    flagShort: 'v',
    flagLong: ['--preserve-status', '--foreground', '--verbose'],
    operands: 1,
  },
  gtimeout: {
    valueShort: 'sk',
    valueLong: ['--signal', '--kill-after'],
    flagShort: 'v',
    flagLong: ['--preserve-status', '--foreground', '--verbose'],
    operands: 1,
  },
  time: { flagShort: 'plv', valueShort: 'fo' },
  xargs: {
    valueShort: 'ILnPsEdaJR',
    optionalShort: 'iel',
    valueLong: ['--arg-file', '--delimiter', '--max-args', '--max-procs', '--max-chars', '--process-slot-var'],
    flagShort: '0rtpxo',
    flagLong: ['--null', '--no-run-if-empty', '--verbose', '--interactive', '--exit', '--open-tty', '--show-limits'],
  },
  // `script -q /dev/null CMD…` (macOS: the first operand is the log file), `script -c 'CMD' log` (Linux).
  script: { valueShort: 'tTIOBE', flagShort: 'adefkpqrwF', shellStringOption: 'c', operands: 1 },
  flock: { valueShort: 'wE', flagShort: 'sxunoFh', shellStringOption: 'c', operands: 1 },
  chroot: { valueLong: ['--userspec', '--groups'], flagLong: ['--skip-chdir'], operands: 1 },
  taskset: { flagShort: 'acp', operands: 1 },
  chrt: { flagShort: 'abdfiormpRvT', operands: 1 },
  runuser: { valueShort: 'ugGs', flagShort: 'lmpfP', shellStringOption: 'c', operands: 0 },
  setpriv: {},
  fakeroot: {},
  pkexec: { valueLong: ['--user'] },
  'ssh-agent': { valueShort: 'aEPt', flagShort: 'cDdks' },
  'dbus-launch': {},
  'xvfb-run': { valueShort: 'nfepsw', flagShort: 'a' },
  stdbuf: { valueShort: 'ioe', valueLong: ['--input', '--output', '--error'] },
  caffeinate: { valueShort: 'tw', flagShort: 'dimsu' },
  arch: { flagShort: '', valueShort: 'e', flagLong: [] },
  setsid: { flagShort: 'cfw' },
  unbuffer: { flagShort: 'p' },
  ionice: { valueShort: 'cnp', flagShort: 't' },
  coproc: {},
  busybox: {},
  su: { valueShort: 'gGs', flagShort: 'lmp', shellStringOption: 'c', operands: 0 },
  watch: { valueShort: 'nd', flagShort: 'bcegptx', joinsShellString: true },
  'sandbox-exec': { valueShort: 'fnpD' },
  chronic: {},
  torsocks: {},
  proxychains: {},
  proxychains4: {},
  'dbus-run-session': {},
};

export const isWrapperName = (name: string): boolean => Object.hasOwn(WRAPPERS, name);

/** Wrappers that change who runs the command: never auto-allowed. */
export const PRIVILEGE_WRAPPERS = new Set(['sudo', 'doas', 'su', 'pkexec', 'runuser']);

/**
 * Programs that run a command given as their arguments, whose options this analysis does not model:
 * every later word that is not an option is also read as where the command may start (for hard blocks).
 */
const LOOSE_WRAPPERS = new Set([
  'firejail',
  'nsenter',
  'unshare',
  'systemd-run',
  'sg',
  'chpst',
  'proot',
  'strace',
  'ltrace',
  'dtruss',
  'valgrind',
  'catchsegv',
  'tsp',
  'nq',
  'daemonize',
  'numactl',
  'cpulimit',
  'trickle',
  'tsocks',
  'aws-vault',
  'op',
  'doppler',
  'direnv',
  'poetry',
  'pipenv',
  'pdm',
  'hatch',
  'rbenv',
  'pyenv',
  'nodenv',
  'asdf',
  'mise',
  'rtx',
  'devbox',
  'conda',
  'mamba',
  'micromamba',
  'dotenv',
  'cross-env',
  'env-cmd',
  'entr',
  'watchexec',
  'nodemon',
  'gdb',
  'lldb',
  'expect',
  'with-contenv',
  's6-setuidgid',
  'retry',
  'until-success',
  'tmux',
  'screen',
]);
export const isLooseWrapper = (name: string): boolean => LOOSE_WRAPPERS.has(name);

export interface Unwrapped {
  wrappers: string[];
  /** The real command word and its arguments (empty when the wrapper runs nothing, e.g. bare `env`). */
  words: ShellWord[];
  assignments: Assignment[];
  /** Other readings: each word after an unknown wrapper option, as the command. */
  alternates: ShellWord[][];
  /** Strings a wrapper will run as shell code (`env -S`, `su -c`, `watch`). */
  shellStrings: ShellWord[];
  uncertain: boolean;
  /** `command -v x`, `sudo -v`: the wrapper itself was the command (its name is in words[0]). */
  wrapperIsCommand: boolean;
  /** `xargs -I R` / `-i` / `--replace`: the placeholder xargs fills with each input item. */
  xargsReplace?: string;
}

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** Splits one wrapper's words into its own options and the command it runs. */
function unwrapOne(name: string, spec: WrapperSpec, rest: ShellWord[]) {
  let i = 0;
  let uncertain = false;
  let lookup = false;
  const assignments: Assignment[] = [];
  const shellStrings: ShellWord[] = [];
  let operands = spec.operands ?? 0;
  let sawAskShell = false;
  let replace: string | undefined;
  while (i < rest.length) {
    const w = rest[i]!;
    const a = w.value;
    if (a === '--') {
      i++;
      break;
    }
    if (spec.lookupOptions?.includes(a)) {
      lookup = true;
      i++;
      continue;
    }
    if (a.startsWith('--')) {
      const [written] = a.split('=', 1) as [string];
      // GNU getopt: a unique prefix of a long option is that option (`env --split=…`, `sudo --us=root`).
      const known = [
        ...(spec.valueLong ?? []),
        ...(spec.flagLong ?? []),
        ...(name === 'env' ? ['--split-string'] : []),
      ];
      const matches = known.includes(written) ? [written] : known.filter((l) => l.startsWith(written));
      const flag = matches.length === 1 ? matches[0]! : written;
      if (name === 'xargs' && '--replace'.startsWith(flag) && flag.length > 4) {
        // `--replace[=R]`: the value, if any, is glued.
        replace = a.includes('=') ? a.slice(a.indexOf('=') + 1) : '{}';
        i++;
      } else if (spec.valueLong?.includes(flag)) i += a.includes('=') ? 1 : 2;
      else if (spec.flagLong?.includes(flag)) i++;
      else if (name === 'env' && flag === '--split-string') {
        const v = a.includes('=') ? plainWord(a.slice(a.indexOf('=') + 1)) : rest[i + 1];
        if (v) shellStrings.push(v);
        i += a.includes('=') ? 1 : 2;
      } else {
        uncertain = true;
        i++;
      }
      continue;
    }
    if (name === 'nice' && /^-[0-9]+$/.test(a)) {
      // Old-style `nice -10 cmd`.
      i++;
      continue;
    }
    if (a.length > 1 && a.startsWith('-')) {
      // A cluster of short options; the first one that takes a value eats the rest or the next word.
      let consumedNext = false;
      for (let k = 1; k < a.length; k++) {
        const ch = a[k]!;
        if (spec.shellStringOption === ch) {
          const attached = a.slice(k + 1);
          const v = attached ? plainWord(attached) : rest[i + 1];
          if (v) shellStrings.push(v);
          consumedNext = !attached;
          break;
        }
        if (spec.valueShort?.includes(ch)) {
          consumedNext = k === a.length - 1;
          if (name === 'xargs' && (ch === 'I' || ch === 'J'))
            replace = consumedNext ? rest[i + 1]?.value : a.slice(k + 1);
          break;
        }
        if (spec.optionalShort?.includes(ch)) {
          if (name === 'xargs' && ch === 'i') replace = a.slice(k + 1) || '{}';
          break;
        }
        if (name === 'sudo' && (ch === 's' || ch === 'i')) sawAskShell = true;
        if (!spec.flagShort?.includes(ch)) uncertain = true;
      }
      i += consumedNext ? 2 : 1;
      continue;
    }
    if (spec.assignments && ASSIGNMENT.test(a)) {
      const eq = a.indexOf('=');
      assignments.push({ name: a.slice(0, eq), value: a.slice(eq + 1), dynamic: w.dynamic });
      i++;
      continue;
    }
    if (name === 'su' && shellStrings.length > 0) {
      // `su user -c CMD`: the operand is a user name; nothing after it is a command.
      i = rest.length;
      break;
    }
    if (operands > 0) {
      operands--;
      i++;
      continue;
    }
    break;
  }
  let words = rest.slice(i);
  // `su` runs a shell: with -c it runs that string, without it reads commands from its input.
  if (name === 'su') words = shellStrings.length > 0 ? [] : [plainWord('sh')];
  if (spec.joinsShellString && words.length > 0) {
    shellStrings.push(plainWord(words.map((w) => w.value).join(' ')));
    words = [];
  }
  // `sudo -s` / `sudo -i` with no command starts a shell that reads the rest of its input as code.
  if (name === 'sudo' && sawAskShell && words.length === 0) words = [plainWord('sh')];
  return { words, assignments, shellStrings, uncertain, lookup, replace, skipped: rest.slice(0, i) };
}

/** Sees through every wrapper around the command in `words` (words[0] is the command word). */
export function unwrap(words: ShellWord[]): Unwrapped {
  const out: Unwrapped = {
    wrappers: [],
    words,
    assignments: [],
    alternates: [],
    shellStrings: [],
    uncertain: false,
    wrapperIsCommand: false,
  };
  for (let guard = 0; guard < 16 && out.words.length > 0; guard++) {
    const name = commandName(out.words[0]!.value);
    const spec = WRAPPERS[name];
    if (!spec) break;
    const r = unwrapOne(name, spec, out.words.slice(1));
    out.assignments.push(...r.assignments);
    out.shellStrings.push(...r.shellStrings);
    if (r.lookup || (r.words.length === 0 && r.shellStrings.length === 0)) {
      // The wrapper runs nothing else: it is the command (`env`, `command -v ls`, `sudo -v`, `xargs`).
      out.wrapperIsCommand = true;
      break;
    }
    out.wrappers.push(name);
    if (r.replace !== undefined) out.xargsReplace = r.replace;
    if (r.uncertain) {
      out.uncertain = true;
      // An unknown option may have eaten the next word: every later word could be the command.
      for (let k = 0; k < r.skipped.length; k++) {
        if (!r.skipped[k]!.value.startsWith('-')) out.alternates.push([...r.skipped.slice(k), ...r.words]);
      }
      for (let k = 1; k < r.words.length; k++) out.alternates.push(r.words.slice(k));
    }
    out.words = r.words;
  }
  return out;
}
