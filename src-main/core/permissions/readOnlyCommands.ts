/**
 * Layer 4's built-in list: commands that only look. Each entry reads the arguments the way the program
 * does (shell/getopt.ts: clustered and glued short options, long options abbreviated to a unique prefix)
 * and names the options that write a file, run a program or change a setting (`sort -o`, `sort
 * --compress-program`, `sed -i`, `rg --pre`, `man -P`, `fd -x`, `find -fprint`, `git grep -O`). Entries
 * marked strict refuse options they do not know; lenient ones belong to programs that have no dangerous
 * option besides the ones listed. Builds and test runners are deliberately absent: they run project code.
 * Users who want them unprompted add them to `allowed_commands`.
 *
 * Besides yes/no, the verdict says which operands the command reads (for the sensitive-file checks) and
 * whether it only lists names, so `ls ~/.ssh` is a listing and `cat ~/.ssh/id_rsa` a secret read.
 */
import { hasUnknown, type SimpleCommand } from './shell/types.js';
import { awkProgram, isAwk as isAwkName, looksSecretName } from './shell/commandKinds.js';
import { parseOptions, type OptionSpec, type ParsedArgs } from './shell/getopt.js';

/** What the operands of a program are. */
type Operands = 'content' | 'names' | 'none' | 'after-first';

interface Entry {
  spec: OptionSpec;
  /** Why the command is not read-only given its arguments, or undefined. */
  check?: (p: ParsedArgs, args: string[], cmd: SimpleCommand) => string | undefined;
  /** Why the command reveals secrets (environment values, tokens), or undefined. */
  secret?: (p: ParsedArgs, args: string[], cmd: SimpleCommand) => string | undefined;
  operands: Operands;
  /** Folders the command reads recursively (grep -r, rg). */
  walks?: (p: ParsedArgs, files: string[]) => string[];
  /** Arguments only known at run time could be a dangerous option: refuse them. */
  strict: boolean;
}

export interface ReadOnlyVerdict {
  /** On the list and read-only with these arguments. */
  readOnly: boolean;
  /** The program is on the list (false: nothing is known about it). */
  known: boolean;
  /** Why not read-only, in words a person understands. */
  why?: string;
  /** It would show secrets: environment values, tokens, key material. */
  secret?: string;
  /** Operands (and option values) whose contents it reads. */
  reads: string[];
  /** Operands it only lists or looks at the metadata of. */
  lists: string[];
  /** Folders it reads everything in. */
  walks: string[];
  /** Files its options or operands would write (`sort -o F`, `uniq IN OUT`, `find -fprint F`). */
  writes: string[];
  /** For git: the sub-command and the `-C` folders / `--git-dir` it acts in. */
  git?: { dirs: string[]; gitDir?: string };
}

const TABLE: Record<string, Entry> = {};
const add = (names: string[], e: Partial<Entry> & { spec?: OptionSpec }) => {
  const entry: Entry = {
    spec: e.spec ?? { lenient: true },
    operands: e.operands ?? 'content',
    strict:
      e.strict ?? (e.check !== undefined || Object.keys(e.spec?.danger ?? {}).length > 0 || e.spec?.lenient === false),
    ...(e.check ? { check: e.check } : {}),
    ...(e.secret ? { secret: e.secret } : {}),
    ...(e.walks ? { walks: e.walks } : {}),
  };
  for (const n of names) TABLE[n] = entry;
};

const lenient = (short = '', long: string[] = [], extra: Partial<OptionSpec> = {}): OptionSpec => ({
  short,
  long,
  lenient: true,
  ...extra,
});

const WRITES = 'writes to a file';
const RUNS = 'runs a program of the caller\u2019s choosing';

// ---- shell built-ins that change nothing outside the shell itself ----------------------------------------

add(
  [
    ':',
    'true',
    'false',
    'test',
    '[',
    'cd',
    'pushd',
    'popd',
    'dirs',
    'exit',
    'return',
    'wait',
    'unset',
    'hash',
    'shopt',
    'type',
    'sleep',
    'break',
    'continue',
    'times',
    'umask',
  ],
  {
    operands: 'none',
    check: (_p, args, cmd) =>
      cmd.name === 'umask' && args.some((a) => !a.startsWith('-')) ? 'sets the file-creation mask' : undefined,
    strict: false,
  },
);
// Printing every variable (or the exported ones) shows whatever tokens the environment holds.
const printsVariables = (cmd: string) => (_p: ParsedArgs, args: string[]) => {
  const names = args.filter((a) => !a.startsWith('-') && !a.startsWith('+'));
  const assigns = names.filter((a) => a.includes('='));
  if (names.length === 0 && (args.length === 0 || args.some((a) => /^-[a-zA-Z]*[pxF]/.test(a))))
    return `\`${cmd}\` with no names prints every variable, secrets included`;
  if (assigns.length < names.length && args.some((a) => /^-[a-zA-Z]*p/.test(a))) {
    const secret = names.find((n) => !n.includes('=') && looksSecretName(n));
    if (secret) return `prints the variable ${secret}, whose name says it holds a secret`;
  }
  return undefined;
};
add(['export', 'declare', 'typeset', 'local', 'readonly'], {
  operands: 'none',
  check: (_p, args) => (args.some((a) => /^-[a-zA-Z]*f/.test(a)) ? 'defines or exports shell functions' : undefined),
  secret: (p, args, cmd) => printsVariables(cmd.name)(p, args),
  strict: false,
});
add(['set'], {
  operands: 'none',
  check: (_p, args) =>
    args.every(
      (x) => /^[-+][A-Za-z]+$/.test(x) || /^(pipefail|errexit|nounset|xtrace|noglob|noclobber|verbose|--)$/.test(x),
    )
      ? undefined
      : 'sets positional parameters or unknown options',
  secret: (_p, args) =>
    args.length === 0 ? '`set` with no arguments prints every variable, secrets included' : undefined,
  strict: false,
});
add(['echo', 'printf'], { operands: 'none', strict: false });
add(['printenv'], {
  operands: 'none',
  secret: (p) => {
    const names = p.operands;
    if (names.length === 0) return '`printenv` with no names prints the whole environment, secrets included';
    const s = names.find(looksSecretName);
    return s ? `prints ${s}, whose name says it holds a secret` : undefined;
  },
  strict: false,
});
// `env` alone prints the environment; `env CMD` is seen through as a wrapper before this list is asked.
add(['env'], { operands: 'none', secret: () => '`env` prints the whole environment, secrets included', strict: false });

// ---- looking at files and text -----------------------------------------------------------------------

add(['cat', 'tac', 'rev', 'nl', 'fold', 'fmt', 'expand', 'unexpand', 'look', 'strings', 'od', 'hexdump'], {
  spec: lenient(),
});
add(['head', 'tail'], {
  spec: lenient('n:c:b:s:', ['lines=', 'bytes=', 'sleep-interval=', 'pid=', 'max-unchanged-stats=', 'follow=?'], {
    numeric: true,
  }),
});
add(['less', 'more', 'most', 'pg'], {
  spec: lenient(
    'b:h:j:k:o:O:p:P:t:T:x:y:z:#:D:',
    ['log-file=', 'LOG-FILE=', 'lesskey-file=', 'lesskey-src=', 'lesskey-content=', 'tag=', 'tag-file='],
    {
      danger: {
        '-o': WRITES,
        '-O': WRITES,
        '--log-file': WRITES,
        '--LOG-FILE': WRITES,
        '-k': 'loads key bindings that can run commands',
        '--lesskey-file': 'loads key bindings that can run commands',
        '--lesskey-src': 'loads key bindings that can run commands',
        '--lesskey-content': 'loads key bindings that can run commands',
      },
    },
  ),
  check: (_p, args) => (args.some((a) => a.startsWith('+')) ? 'runs start-up commands given with `+`' : undefined),
});
add(['bat', 'batcat'], {
  spec: lenient(
    'l:H:r:m:',
    [
      'language=',
      'highlight-line=',
      'file-name=',
      'diff-context=',
      'tabs=',
      'wrap=',
      'terminal-width=',
      'color=',
      'italic-text=',
      'decorations=',
      'paging=',
      'pager=',
      'map-syntax=',
      'theme=',
      'style=',
      'line-range=',
      'ignored-suffix=',
    ],
    {
      danger: { '--pager': RUNS },
    },
  ),
  check: (p) => (p.operands[0] === 'cache' ? '`bat cache` rebuilds or clears its cache' : undefined),
});
add(['wc'], { spec: lenient('', ['files0-from=']), operands: 'names' });
add(['ls', 'gls', 'exa', 'eza', 'lsd'], {
  spec: lenient('I:T:w:D:', [
    'block-size=',
    'color=?',
    'colour=?',
    'format=',
    'hide=',
    'ignore=',
    'indicator-style=',
    'quoting-style=',
    'sort=',
    'time=',
    'time-style=',
    'tabsize=',
    'width=',
    'hyperlink=?',
    'level=',
    'git-ignore',
  ]),
  operands: 'names',
});
add(['stat', 'gstat'], { spec: lenient('f:t:c:', ['format=', 'printf=']), operands: 'names' });
add(['du'], {
  spec: lenient('d:B:t:X:I:', [
    'max-depth=',
    'block-size=',
    'threshold=',
    'exclude=',
    'exclude-from=',
    'files0-from=',
    'time=?',
    'time-style=',
  ]),
  operands: 'names',
});
add(['df'], { spec: lenient('B:t:x:', ['block-size=', 'type=', 'exclude-type=', 'output=?']), operands: 'names' });
add(['basename', 'dirname', 'realpath', 'readlink', 'grealpath', 'greadlink'], {
  spec: lenient('s:', ['suffix=', 'relative-to=', 'relative-base=']),
  operands: 'names',
});
add(['seq', 'cal', 'ncal', 'factor', 'expr', 'numfmt', 'getconf', 'locale', 'bc', 'uname'], {
  spec: lenient('f:s:t:m:A:B:d:H:', [
    'format=',
    'separator=',
    'from=',
    'to=',
    'from-unit=',
    'to-unit=',
    'padding=',
    'field=',
    'suffix=',
    'invalid=',
    'delimiter=',
    'round=',
    'grouping',
  ]),
  operands: 'none',
});
add(['which', 'whereis', 'apropos', 'whatis', 'help'], { spec: lenient('B:M:S:'), operands: 'none' });
add(['tr'], { operands: 'none' });
add(['cut', 'paste', 'column', 'comm', 'join'], {
  spec: lenient('b:c:d:f:s:o:N:R:E:H:O:W:J:n:l:t:1:2:a:e:j:v:', [
    'delimiter=',
    'fields=',
    'bytes=',
    'characters=',
    'output-delimiter=',
    'delimiters=',
    'separator=',
    'output-separator=',
    'table-columns=',
    'table-right=',
    'table-hide=',
    'table-order=',
    'table-wrap=',
    'table-name=',
  ]),
});
add(['diff', 'colordiff', 'cmp'], {
  spec: lenient('C:D:F:I:L:S:U:W:x:X:i:n:', [
    'to-file=',
    'from-file=',
    'label=',
    'line-format=',
    'old-line-format=',
    'new-line-format=',
    'unchanged-line-format=',
    'old-group-format=',
    'new-group-format=',
    'changed-group-format=',
    'unchanged-group-format=',
    'exclude=',
    'exclude-from=',
    'ignore-matching-lines=',
    'starting-file=',
    'horizon-lines=',
    'tabsize=',
    'width=',
    'color=?',
    'palette=',
    'unified=?',
    'context=?',
    'ignore-initial=',
    'bytes=',
  ]),
});
add(
  [
    'md5',
    'md5sum',
    'shasum',
    'sha1sum',
    'sha224sum',
    'sha256sum',
    'sha384sum',
    'sha512sum',
    'b2sum',
    'cksum',
    'gmd5sum',
    'gsha256sum',
  ],
  {
    spec: lenient('a:s:l:', ['algorithm=', 'length=']),
  },
);
add(['locate', 'mdfind', 'glocate'], { spec: lenient('d:l:n:', ['database=', 'limit=']), operands: 'none' });
add(['mdls'], {
  spec: lenient('', []),
  operands: 'names',
  check: (_p, args) => {
    const i = args.indexOf('-plist');
    return i !== -1 && args[i + 1] !== '-' ? '`mdls -plist FILE` writes the attributes to FILE' : undefined;
  },
});
add(['info'], {
  spec: lenient('d:f:n:o:O:', ['directory=', 'file=', 'node=', 'output=', 'dribble=', 'restore='], {
    danger: { '-o': WRITES, '--output': WRITES, '--dribble': 'records keystrokes into a file' },
  }),
  operands: 'none',
});
add(['lipo'], {
  operands: 'names',
  check: (_p, args) =>
    args.some((a) => /^-(output|create|extract|extract_family|remove|replace|thin)$/.test(a))
      ? '`lipo` with -output/-create/-extract/-remove/-replace/-thin writes a file'
      : undefined,
});
add(['otool', 'nm', 'dwarfdump', 'size', 'objdump'], { operands: 'names' });
add(['iconv'], {
  spec: {
    short: 'f:t:o:lcsu',
    long: ['from-code=', 'to-code=', 'list', 'output=', 'silent', 'verbose', 'help', 'usage', 'version'],
    danger: { '-o': WRITES, '--output': WRITES },
  },
});
add(['file'], {
  spec: lenient(
    'e:f:F:m:M:P:',
    ['exclude=', 'files-from=', 'separator=', 'magic-file=', 'parameter=', 'exclude-quiet='],
    { danger: { '-C': 'compiles a magic file and writes it', '--compile': 'compiles a magic file and writes it' } },
  ),
  operands: 'names',
});
// `man -P CMD`, `man -H[browser]` and a config file run programs of the caller's choosing.
add(['man'], {
  spec: lenient(
    'C:d::D::e:E:H::L:m:M:p:P:r:R:S:s:T::X::',
    [
      'config-file=',
      'pager=',
      'html=?',
      'gxditview=?',
      'manpath=',
      'systems=',
      'sections=',
      'extension=',
      'locale=',
      'encoding=',
      'preprocessor=',
      'prompt=',
      'recode=',
      'troff-device=?',
    ],
    {
      danger: {
        '-P': RUNS,
        '--pager': RUNS,
        '-H': 'opens a browser',
        '--html': 'opens a browser',
        '-X': RUNS,
        '--gxditview': RUNS,
        '-C': 'reads a configuration that names programs',
        '--config-file': 'reads a configuration that names programs',
      },
    },
  ),
  operands: 'none',
});
add(['date', 'gdate'], {
  spec: {
    short: 'd:f:I::r:s:uRjnv:z:',
    long: [
      'date=',
      'file=',
      'iso-8601=?',
      'rfc-email',
      'rfc-3339=',
      'rfc-2822',
      'reference=',
      'set=',
      'debug',
      'universal',
      'utc',
      'help',
      'version',
    ],
    danger: { '-s': 'sets the clock', '--set': 'sets the clock' },
  },
  operands: 'none',
  check: (p) => {
    // BSD `date 0101000070` sets the clock; `-j` only parses.
    const setsClock =
      p.operands.some((o) => !o.startsWith('+')) &&
      !p.options.some((o) => o.name === '-j' || o.name === '-f' || o.name === '-d' || o.name === '--date');
    return setsClock ? 'sets the clock (an operand that is not a +FORMAT)' : undefined;
  },
});
add(['rg'], {
  spec: lenient(
    'A:B:C:e:f:g:j:m:M:t:T:E:r:d:',
    [
      'after-context=',
      'before-context=',
      'context=',
      'regexp=',
      'file=',
      'glob=',
      'iglob=',
      'threads=',
      'max-count=',
      'max-columns=',
      'type=',
      'type-not=',
      'encoding=',
      'replace=',
      'max-depth=',
      'pre=',
      'pre-glob=',
      'hostname-bin=',
      'hyperlink-format=',
      'ignore-file=',
      'sort=',
      'sortr=',
      'color=',
      'colors=',
      'context-separator=',
      'field-context-separator=',
      'field-match-separator=',
      'path-separator=',
      'type-add=',
      'type-clear=',
      'engine=',
      'max-filesize=',
      'dfa-size-limit=',
      'regex-size-limit=',
      'generate=',
    ],
    {
      danger: { '--pre': RUNS + ' on every file', '--hostname-bin': RUNS },
    },
  ),
  operands: 'after-first',
  walks: (_p, files) => (files.length > 0 ? files : ['.']),
});
add(['ag'], {
  spec: lenient(
    'A:B:C:G:g:m:p:W:',
    [
      'after=?',
      'before=?',
      'context=?',
      'file-search-regex=',
      'ignore=',
      'ignore-dir=',
      'depth=',
      'max-count=',
      'path-to-ignore=',
      'width=',
      'workers=',
      'color-line-number=',
      'color-match=',
      'color-path=',
      'pager=',
    ],
    {
      danger: { '--pager': RUNS },
    },
  ),
  operands: 'after-first',
  walks: (_p, files) => (files.length > 0 ? files : ['.']),
});
add(['grep', 'egrep', 'fgrep', 'ggrep'], {
  spec: lenient(
    'e:f:m:A:B:C:d:D:',
    [
      'regexp=',
      'file=',
      'max-count=',
      'after-context=',
      'before-context=',
      'context=?',
      'directories=',
      'devices=',
      'exclude=',
      'include=',
      'exclude-dir=',
      'exclude-from=',
      'label=',
      'color=?',
      'colour=?',
      'binary-files=',
      'group-separator=',
      'recursive',
      'dereference-recursive',
    ],
    { numeric: true },
  ),
  operands: 'after-first',
  walks: (p, files) => {
    const recursive = p.options.some(
      (o) =>
        ['-r', '-R', '--recursive', '--dereference-recursive'].includes(o.name) ||
        ((o.name === '-d' || o.name === '--directories') && o.value === 'recurse'),
    );
    return recursive ? (files.length > 0 ? files : ['.']) : [];
  },
});
add(['sort', 'gsort'], {
  spec: {
    short: 'bcCdfghik:mMno:rRsS:t:T:uVz',
    long: [
      'ignore-leading-blanks',
      'dictionary-order',
      'ignore-case',
      'general-numeric-sort',
      'ignore-nonprinting',
      'month-sort',
      'human-numeric-sort',
      'numeric-sort',
      'random-sort',
      'random-source=',
      'reverse',
      'sort=',
      'version-sort',
      'batch-size=',
      'check=?',
      'compress-program=',
      'debug',
      'files0-from=',
      'key=',
      'merge',
      'output=',
      'stable',
      'buffer-size=',
      'field-separator=',
      'temporary-directory=',
      'parallel=',
      'unique',
      'zero-terminated',
      'help',
      'version',
      'mmap',
      'radixsort',
      'mergesort',
      'qsort',
      'heapsort',
    ],
    danger: { '-o': WRITES, '--output': WRITES, '--compress-program': RUNS + ' on its temporary files' },
  },
});
add(['uniq', 'guniq'], {
  spec: lenient('f:s:w:', ['skip-fields=', 'skip-chars=', 'check-chars=', 'all-repeated=?', 'group=?']),
  check: (p) => (p.operands.length > 1 ? '`uniq IN OUT` writes OUT' : undefined),
});
add(['xxd'], {
  spec: lenient('c:g:l:o:s:n:C:R:'),
  check: (p) => (p.operands.length > 1 ? '`xxd IN OUT` writes OUT' : undefined),
});
add(['base64', 'base32', 'gbase64', 'basenc'], {
  spec: {
    short: 'dDhib:w:o:',
    long: [
      'decode',
      'ignore-garbage',
      'wrap=',
      'break=',
      'input=',
      'output=',
      'help',
      'version',
      'base64',
      'base64url',
      'base32',
      'base32hex',
      'base16',
      'base2msbf',
      'base2lsbf',
      'z85',
    ],
    danger: { '-o': WRITES, '--output': WRITES },
  },
  check: (p) => (p.operands.length > 1 ? 'a second operand is an output file' : undefined),
});
add(['yq'], {
  spec: lenient(
    'o:p:I:s:',
    [
      'output-format=',
      'input-format=',
      'indent=',
      'split-exp=',
      'split-exp-file=',
      'expression=',
      'from-file=',
      'front-matter=',
      'xml-attribute-prefix=',
      'arg=',
      'inplace',
    ],
    {
      danger: {
        '-i': 'edits the file in place',
        '--inplace': 'edits the file in place',
        '-s': 'writes a file per document',
        '--split-exp': 'writes a file per document',
        '--from-file': 'reads its expression from a file that cannot be inspected here',
      },
    },
  ),
  operands: 'after-first',
  check: (_p, args) =>
    args.some((a) => /\bload(_str|_xml|_props|_base64)?\s*\(/.test(a))
      ? 'the expression loads another file'
      : undefined,
  secret: (_p, args) =>
    args.some((a) => /\b(str)?env\s*\(|\$ENV\b|\benv\b/.test(a) && !a.startsWith('-'))
      ? 'the expression reads environment variables, secrets included'
      : undefined,
});
add(['jq', 'gojq', 'jaq'], {
  spec: lenient('f:L:', ['from-file=', 'indent=', 'arg=', 'argjson=', 'slurpfile=', 'rawfile=', 'args', 'jsonargs']),
  operands: 'after-first',
  check: (_p, args) =>
    args.some((a) => a === '-f' || a.startsWith('--from-file') || /^-[a-zA-Z]*f$/.test(a))
      ? 'reads its program from a file that cannot be inspected here'
      : undefined,
  secret: (_p, args) => {
    const prog = args.find((a) => !a.startsWith('-'));
    return prog !== undefined && /\$ENV\b|(^|[^A-Za-z0-9_$.])env\b/.test(prog)
      ? 'the program reads environment variables, secrets included'
      : undefined;
  },
});
add(['tree'], {
  spec: lenient(
    'L:P:I:H:T:o:',
    ['charset=', 'filelimit=', 'timefmt=', 'sort=', 'fromfile', 'gitfile=', 'infofile=', 'hintro=', 'houtro='],
    {
      danger: { '-o': WRITES, '-R': 'writes an HTML file into every folder' },
    },
  ),
  operands: 'names',
});
add(['fd', 'fdfind'], {
  spec: lenient(
    'd:e:E:t:j:c:S:o:',
    [
      'max-depth=',
      'min-depth=',
      'exact-depth=',
      'extension=',
      'exclude=',
      'type=',
      'threads=',
      'color=',
      'size=',
      'owner=',
      'changed-within=',
      'changed-before=',
      'max-results=',
      'base-directory=',
      'path-separator=',
      'search-path=',
      'ignore-file=',
      'format=',
      'batch-size=',
      'exec=',
      'exec-batch=',
    ],
    {
      danger: {
        '-x': RUNS + ' on every result',
        '--exec': RUNS + ' on every result',
        '-X': RUNS + ' on the results',
        '--exec-batch': RUNS + ' on the results',
      },
    },
  ),
  operands: 'names',
});

// find: its expression is single-dash words; anything not in this list is not understood.
const FIND_NO_ARG = new Set([
  '-print',
  '-print0',
  '-ls',
  '-prune',
  '-quit',
  '-true',
  '-false',
  '-empty',
  '-readable',
  '-writable',
  '-executable',
  '-nouser',
  '-nogroup',
  '-depth',
  '-daystart',
  '-follow',
  '-mount',
  '-xdev',
  '-noleaf',
  '-ignore_readdir_race',
  '-noignore_readdir_race',
  '-not',
  '-and',
  '-or',
  '-a',
  '-o',
  '!',
  '(',
  ')',
  ',',
  '-d',
  '-s',
  '-x',
  '-E',
  '-H',
  '-L',
  '-P',
  '-X',
  '-xattr',
  '-acl',
  '-flags',
]);
const FIND_ONE_ARG = new Set([
  '-name',
  '-iname',
  '-path',
  '-ipath',
  '-wholename',
  '-iwholename',
  '-regex',
  '-iregex',
  '-lname',
  '-ilname',
  '-type',
  '-xtype',
  '-size',
  '-mtime',
  '-atime',
  '-ctime',
  '-mmin',
  '-amin',
  '-cmin',
  '-Btime',
  '-Bmin',
  '-newer',
  '-anewer',
  '-cnewer',
  '-Bnewer',
  '-user',
  '-group',
  '-uid',
  '-gid',
  '-perm',
  '-links',
  '-inum',
  '-samefile',
  '-maxdepth',
  '-mindepth',
  '-fstype',
  '-used',
  '-regextype',
  '-printf',
  '-context',
  '-D',
  '-f',
  '-newermt',
  '-newerct',
  '-newerat',
  '-newermm',
  '-newerBt',
  '-xattrname',
]);
const FIND_DANGER: Record<string, string> = {
  '-exec': 'runs a command on every file',
  '-execdir': 'runs a command on every file',
  '-ok': 'runs a command on every file',
  '-okdir': 'runs a command on every file',
  '-delete': 'deletes what it finds',
  '-fprint': WRITES,
  '-fprint0': WRITES,
  '-fprintf': WRITES,
  '-fls': WRITES,
};
add(['find', 'gfind'], {
  operands: 'names',
  check: (_p, args) => {
    for (let i = 0; i < args.length; i++) {
      const a = args[i]!;
      if (FIND_DANGER[a]) return `\`${a}\` ${FIND_DANGER[a]}`;
      if (/^-newer[aBcmt][aBcmt]$/.test(a) || FIND_ONE_ARG.has(a)) {
        i++;
        continue;
      }
      if (FIND_NO_ARG.has(a) || /^-O[0-9]$/.test(a)) continue;
      if (a.startsWith('-') && a.length > 1 && !/^-[0-9]/.test(a)) return `\`${a}\` is not a find test this list knows`;
    }
    return undefined;
  },
  strict: true,
});

/** Checks a sed script for the commands that write files (`w`, `W`, `s///w`), read other files (`r`, `R`) or run programs (`e`, `s///e`). */
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
      // Address flags: `/x/I`, `/x/M`.
      while (i < n && /[IM]/.test(script[i]!)) i++;
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
      case 'r':
      case 'R':
      case 'v':
        return false;
      case 'a':
      case 'i':
      case 'c':
        skipTo(/\n/);
        break;
      case ':':
      case 'b':
      case 't':
      case 'T':
        skipTo(/[;\n}]/);
        break;
      case 'q':
      case 'Q':
      case 'l':
      case 'L':
        while (i < n && /[0-9\s]/.test(script[i]!)) i++;
        break;
      default:
        if (!'pdnNgGhHxzDP=F#'.includes(c)) return false;
        if (c === '#') skipTo(/\n/);
    }
  }
  return true;
}

const SED_SPEC: OptionSpec = {
  short: 'nrEsuzl:e:f:i::I::ab',
  long: [
    'quiet',
    'silent',
    'debug',
    'expression=',
    'file=',
    'follow-symlinks',
    'in-place=?',
    'line-length=',
    'null-data',
    'zero-terminated',
    'posix',
    'regexp-extended',
    'separate',
    'sandbox',
    'unbuffered',
    'binary',
    'help',
    'version',
  ],
  danger: {
    '-i': 'edits files in place',
    '-I': 'edits files in place',
    '--in-place': 'edits files in place',
    '-f': 'runs a script file that cannot be inspected here',
    '--file': 'runs a script file that cannot be inspected here',
  },
};
add(['sed', 'gsed'], {
  spec: SED_SPEC,
  operands: 'after-first',
  check: (p) => {
    const scripts = p.options.filter((o) => o.name === '-e' || o.name === '--expression').map((o) => o.value ?? '');
    if (scripts.length === 0) {
      if (p.operands.length === 0) return 'has no script';
      scripts.push(p.operands[0]!);
    }
    const bad = scripts.find((s) => !sedScriptIsSafe(s));
    return bad !== undefined
      ? `its script \`${bad.length > 40 ? `${bad.slice(0, 39)}…` : bad}\` writes a file, reads another file or runs a program (w, W, r, R, e, s///w, s///e)`
      : undefined;
  },
});

/**
 * An awk program that only prints: no `system()`, no pipes (`print | "cmd"`, `"cmd" | getline`), no
 * output redirection inside print/printf, no `getline < file`, no ENVIRON, no gawk `@load`/`@include`.
 */
export function awkProgramIsSafe(program: string): string | undefined {
  // Strings and regular expressions are data; look at the code around them.
  let code = '';
  let i = 0;
  let lastSignificant = '';
  while (i < program.length) {
    const c = program[i]!;
    if (c === '"') {
      let j = i + 1;
      while (j < program.length && program[j] !== '"') j += program[j] === '\\' ? 2 : 1;
      code += '""';
      i = j + 1;
      lastSignificant = '"';
      continue;
    }
    if (c === '/' && (lastSignificant === '' || /[(,~!{};&|=\n]/.test(lastSignificant))) {
      let j = i + 1;
      while (j < program.length && program[j] !== '/' && program[j] !== '\n') j += program[j] === '\\' ? 2 : 1;
      code += '//';
      i = j + 1;
      lastSignificant = '/';
      continue;
    }
    if (c === '#') {
      while (i < program.length && program[i] !== '\n') i++;
      continue;
    }
    code += c;
    if (!/\s/.test(c)) lastSignificant = c;
    else if (c === '\n') lastSignificant = '\n';
    i++;
  }
  if (/\bsystem\s*\(/.test(code)) return 'calls system(), which runs a shell command';
  if (code.includes('|')) {
    // `||` is a logical or; anything else with a pipe is a command.
    if (/(^|[^|])\|(?!\|)/.test(code.replace(/\|\|/g, ''))) return 'pipes to or from a command';
  }
  if (/\bgetline\b[^;}\n]*</.test(code)) return 'reads another file with getline';
  if (/\bENVIRON\b|\bPROCINFO\b/.test(code)) return 'reads environment variables, secrets included';
  if (/@(load|include|namespace)\b/.test(code)) return 'loads extensions or other files';
  if (/\b(close|fflush)\s*\(/.test(code) && /\bprint/.test(code) && /[>]/.test(code)) return 'writes to files';
  // A `>` inside a print or printf statement is a redirection to a file.
  for (const m of code.matchAll(/\bprintf?\b([^;}\n]*)/g)) {
    const stmt = m[1]!.replace(/\([^()]*\)/g, '()');
    if (/>/.test(stmt)) return 'writes to a file from print';
  }
  return undefined;
}

add(['awk', 'gawk', 'mawk', 'nawk'], {
  spec: lenient(),
  operands: 'after-first',
  check: (_p, args) => {
    const prog = awkProgram(args);
    const bad = prog.options.find(
      (o) =>
        !/^(-F.*|-v.*|--field-separator(=.*)?|--assign(=.*)?|-[vF]|--posix|--traditional|-P|--re-interval|-r|--characters-as-bytes|-b|--use-lc-numeric|-N|--sandbox|-S|--lint(=.*)?|--)$/.test(
          o,
        ),
    );
    if (prog.fromFile) return 'runs a program file that cannot be inspected here';
    if (bad)
      return `\`${bad}\` is not an awk option this list knows (gawk's -o, -p and -d write files; -f, -i, -l, -E load programs)`;
    if (prog.index === undefined) return 'has no program';
    return awkProgramIsSafe(args[prog.index]!);
  },
});
add(['codesign'], {
  operands: 'names',
  check: (_p, a) =>
    a.some((x) => x === '-d' || x === '-v' || x === '--display' || x === '--verify' || /^-d+v*$|^-v+d*$/.test(x)) &&
    !a.some((x) => x === '-s' || x === '--sign' || x === '--remove-signature' || x === '-f' || x === '--force')
      ? undefined
      : 'signs or changes a signature',
});
add(['plutil'], {
  check: (_p, a) =>
    a.some((x) => x === '-p' || x === '-lint' || x === '-help' || x === '-type' || x === '-extract') &&
    !a.some(
      (x) =>
        x === '-convert' ||
        x === '-insert' ||
        x === '-replace' ||
        x === '-remove' ||
        x === '-o' ||
        x === '-s' ||
        x === '-create',
    )
      ? undefined
      : 'converts or edits a property list',
});
add(['pkgutil'], {
  operands: 'none',
  check: (_p, a) =>
    a.some((x) => /^--(forget|expand|flatten|learn|unlink)/.test(x))
      ? 'changes the package database or writes files'
      : undefined,
});

// ---- the system -----------------------------------------------------------------------------------

add(
  [
    'pwd',
    'id',
    'whoami',
    'groups',
    'tty',
    'uptime',
    'nproc',
    'w',
    'who',
    'last',
    'users',
    'sw_vers',
    'vm_stat',
    'iostat',
    'ioreg',
    'system_profiler',
    'lsof',
    'pgrep',
    'netstat',
    'ss',
    'lsblk',
    'free',
    'lscpu',
    'vmstat',
    'kextstat',
    'hostinfo',
    'pmap',
    'zprint',
    'machine',
    'logname',
  ],
  {
    operands: 'none',
    strict: false,
  },
);
add(['ps'], {
  operands: 'none',
  strict: false,
  secret: (_p, args) => {
    const first = args[0] ?? '';
    return args.some((a) => /^-[a-zA-Z]*E/.test(a)) ||
      (/^[a-zA-Z]+$/.test(first) && first.includes('e')) ||
      args.slice(1).some((a) => /^[a-zA-Z]*e[a-zA-Z]*$/.test(a) && !a.startsWith('-') && a.length <= 4)
      ? "shows other processes' environments, secrets included"
      : undefined;
  },
});
add(['hostname'], {
  operands: 'none',
  check: (p, args) =>
    p.operands.length > 0 ||
    args.some((a) => /^-[a-zA-Z]*[Fb]/.test(a) || a.startsWith('--file') || a.startsWith('--boot'))
      ? 'sets the host name'
      : undefined,
});
// `command -v x` only looks a name up (without -v it runs x, and the analysis sees through it as a wrapper).
add(['command'], {
  operands: 'none',
  check: (_p, a) => (a[0] === '-v' || a[0] === '-V' ? undefined : 'runs a command'),
});
add(['top'], {
  operands: 'none',
  check: (_p, a) =>
    a.includes('-l') || a.some((x) => /^-l[0-9]+$/.test(x)) || a.includes('-b') || a.includes('-bn1')
      ? undefined
      : 'waits for a terminal',
});
add(['sysctl'], {
  operands: 'none',
  check: (_p, a) => (a.some((x) => x === '-w' || x.includes('=')) ? 'changes a kernel setting' : undefined),
});
add(['ifconfig'], {
  operands: 'none',
  check: (p) => (p.operands.length > 1 ? 'changes a network interface' : undefined),
});
add(['route'], {
  operands: 'none',
  check: (p) =>
    p.operands[0] === 'get' || p.operands[0] === 'monitor' || p.operands[0] === 'show'
      ? undefined
      : 'changes the routing table',
});
add(['arp'], {
  operands: 'none',
  check: (_p, a) => (a.length > 0 && a.every((x) => /^-[an]+$/.test(x)) ? undefined : 'changes the ARP table'),
});
add(['ip'], {
  operands: 'none',
  check: (p) => {
    const [obj, verb] = p.operands;
    return ['addr', 'address', 'route', 'link', 'neigh', 'a', 'r', 'l'].includes(obj ?? '') &&
      (verb === undefined || ['show', 'list', 'ls'].includes(verb))
      ? undefined
      : 'changes network settings';
  },
});
/** First operand is one of these sub-commands (`brew list`, `docker ps`); options must be known ones. */
const sub =
  (subs: string[], more?: (rest: string[]) => string | undefined) =>
  (_p: ParsedArgs, args: string[]): string | undefined => {
    const i = args.findIndex((a) => !a.startsWith('-'));
    if (i === -1) {
      return args.length > 0 && args.every((a) => ['--version', '-v', '-V', '--help', '-h', 'version'].includes(a))
        ? undefined
        : 'has no read-only sub-command';
    }
    if (!subs.includes(args[i]!)) return `\`${args[i]}\` is not one of its read-only sub-commands`;
    return more?.(args.slice(i + 1));
  };
/** Two-word sub-commands: `image ls`, `config view`. */
const sub2 =
  (pairs: string[], singles: string[] = []) =>
  (p: ParsedArgs, args: string[]): string | undefined => {
    const ops = p.operands;
    if (ops.length === 0)
      return args.some((a) => a === '--version' || a === 'version') ? undefined : 'has no read-only sub-command';
    return singles.includes(ops[0]!) || pairs.includes(`${ops[0]} ${ops[1] ?? ''}`.trim())
      ? undefined
      : `\`${ops.slice(0, 2).join(' ')}\` is not one of its read-only sub-commands`;
  };
add(['defaults'], { operands: 'none', check: sub(['read', 'read-type', 'domains', 'find', 'help']) });
add(['launchctl'], {
  operands: 'none',
  check: sub([
    'list',
    'print',
    'print-disabled',
    'print-cache',
    'blame',
    'version',
    'managerpid',
    'manageruid',
    'managername',
    'help',
    'error',
  ]),
});
add(['diskutil'], {
  operands: 'none',
  check: (_p, a) => {
    const ops = a.filter((x) => !x.startsWith('-'));
    if (['list', 'info', 'activity', 'listFilesystems'].includes(ops[0] ?? '')) return undefined;
    if (
      (ops[0] === 'apfs' || ops[0] === 'cs' || ops[0] === 'ar') &&
      ['list', 'listSnapshots', 'listVolumeGroups', 'listCryptoUsers', 'info'].includes(ops[1] ?? '')
    )
      return undefined;
    return 'changes disks or volumes';
  },
});
add(['scutil'], {
  operands: 'none',
  check: (_p, a) =>
    a.some((x) => x === '--get' || x === '--dns' || x === '--proxy' || x === '--nwi') && !a.includes('--set')
      ? undefined
      : 'changes system configuration',
});
add(['mount'], { operands: 'none', check: (_p, a) => (a.length === 0 ? undefined : 'mounts a volume') });
add(['pmset'], { operands: 'none', check: (_p, a) => (a[0] === '-g' ? undefined : 'changes power settings') });
add(['fdesetup'], {
  operands: 'none',
  check: sub([
    'status',
    'list',
    'isactive',
    'haspersonalrecoverykey',
    'hasinstitutionalrecoverykey',
    'supportsauthrestart',
    'showdeferralinfo',
    'usingrecoverykey',
    'version',
    'help',
  ]),
});
add(['csrutil'], {
  operands: 'none',
  check: (_p, a) =>
    a[0] === 'status' || (a[0] === 'authenticated-root' && a[1] === 'status') || a[0] === 'report'
      ? undefined
      : 'changes System Integrity Protection',
});
add(['spctl'], {
  operands: 'names',
  check: (_p, a) => {
    const writes = a.find(
      (x) =>
        /^--(master-|global-)?(enable|disable)$|^--(add|remove|reset-default|label|rule|enable-status|disable-status)$|^developer-mode$/.test(
          x,
        ) ||
        (x === 'kext-consent' && a.some((y) => /^(enable|disable|add|remove)$/.test(y))),
    );
    if (writes) return `\`${writes}\` changes Gatekeeper`;
    return a.some((x) => x === '--status' || x === '--assess' || x === '-a' || x === '--list' || x === 'kext-consent')
      ? undefined
      : 'has no read-only action';
  },
});
add(['crontab'], {
  operands: 'none',
  check: (_p, a) =>
    a.some((x) => /^-[a-zA-Z]*l/.test(x)) &&
    !a.some((x) => /^-[a-zA-Z]*[re]/.test(x)) &&
    a.every((x) => x.startsWith('-') || a[a.indexOf(x) - 1] === '-u')
      ? undefined
      : 'installs or removes scheduled jobs',
});
add(['tmutil'], {
  operands: 'none',
  check: sub([
    'status',
    'listbackups',
    'latestbackup',
    'destinationinfo',
    'machinedirectory',
    'version',
    'isexcluded',
    'listlocalsnapshots',
    'listlocalsnapshotdates',
    'help',
  ]),
});
add(['profiles'], {
  operands: 'none',
  check: (_p, a) =>
    ['list', 'status', 'show', '-P', '-L', 'version', 'help', '-C', '-H'].includes(a[0] ?? '') &&
    !a.some((x) => /^-[a-zA-Z]*[ID]/.test(x) || x === 'remove' || x === 'install' || x === 'renew')
      ? undefined
      : 'installs or removes configuration profiles',
});
add(['networksetup'], {
  operands: 'none',
  check: (_p, a) =>
    /^-(get|list|show|print|is|version|help)/i.test(a[0] ?? '') ? undefined : 'changes network settings',
});
add(['systemsetup'], {
  operands: 'none',
  check: (_p, a) => (/^-(get|list|help|printcommands)/i.test(a[0] ?? '') ? undefined : 'changes system settings'),
});
add(['nvram'], {
  operands: 'none',
  check: (_p, a) =>
    a.length > 0 && !a.some((x) => x.includes('=') || /^-[a-zA-Z]*[dcfr]/.test(x))
      ? undefined
      : 'changes firmware variables',
});
add(['mdutil'], {
  operands: 'names',
  check: (_p, a) =>
    a.includes('-s') && a.every((x) => ['-s', '-a', '-v'].includes(x) || !x.startsWith('-'))
      ? undefined
      : 'changes Spotlight indexing',
});
add(['xattr'], {
  spec: lenient('p:w:d:', [], {
    danger: { '-w': 'writes an attribute', '-d': 'deletes an attribute', '-c': 'deletes every attribute' },
  }),
  operands: 'names',
});
add(['systemextensionsctl'], { operands: 'none', check: sub(['list']) });
add(['socketfilterfw'], {
  operands: 'none',
  check: (_p, a) =>
    a.length > 0 && a.every((x) => /^--(get[a-z]*|listapps|help|version)$/i.test(x) || !x.startsWith('-'))
      ? undefined
      : 'changes the firewall',
});
// `ssh-keygen -l -f KEY` prints a fingerprint (never the key); every other form makes or changes keys.
add(['ssh-keygen'], {
  operands: 'names',
  check: (_p, a) =>
    a.some((x) => /^-[a-zA-Z]*l/.test(x)) &&
    a.every((x, i) => /^-[lvfE]+$/.test(x) || /^-[lvE]*[fE]$/.test(a[i - 1] ?? '') || /^-[lvE]*f.+/.test(x))
      ? undefined
      : 'creates or changes keys',
});

// ---- version control: read-only forms -------------------------------------------------------------

const GIT_READ = new Set([
  'status',
  'log',
  'show',
  'diff',
  'blame',
  'annotate',
  'shortlog',
  'describe',
  'rev-parse',
  'rev-list',
  'cat-file',
  'ls-files',
  'ls-tree',
  'name-rev',
  'count-objects',
  'verify-commit',
  'verify-tag',
  'show-ref',
  'for-each-ref',
  'merge-base',
  'check-ignore',
  'check-attr',
  'grep',
  'whatchanged',
  'cherry',
  'range-diff',
  'help',
  'version',
  'var',
  'show-branch',
  'diff-tree',
  'diff-files',
  'diff-index',
  'check-ref-format',
  'get-tar-commit-id',
]);
const GIT_BRANCH_LIST = new Set([
  '-a',
  '--all',
  '-r',
  '--remotes',
  '-v',
  '-vv',
  '--verbose',
  '--list',
  '-l',
  '--show-current',
  '--merged',
  '--no-merged',
  '--contains',
  '--no-contains',
  '--points-at',
  '-i',
  '--ignore-case',
  '--no-color',
  '--color',
  '--column',
  '--no-column',
  '--omit-empty',
]);
const GIT_TAG_LIST = new Set([
  '-l',
  '--list',
  '-n',
  '--contains',
  '--no-contains',
  '--merged',
  '--no-merged',
  '--points-at',
  '-i',
  '--ignore-case',
  '--column',
  '--no-column',
]);

/** Options of git's read-only sub-commands that write files or run programs (long ones also abbreviated). */
const GIT_DANGER_LONG: Record<string, string> = {
  output: 'writes its output to a file',
  'ext-diff': 'runs the external diff program',
  'open-files-in-pager': 'runs a pager of the caller\u2019s choosing',
  'upload-pack': RUNS,
  exec: RUNS,
  web: 'opens a browser',
  edit: 'opens an editor',
  filters: 'runs the repository\u2019s filter programs',
  textconv: 'runs the repository\u2019s text-conversion programs',
};

function listingOnly(args: string[], allowed: Set<string>, listFlags: string[]): boolean {
  const listing = args.some((a) => listFlags.includes(a));
  return args.every((a) => {
    if (a.startsWith('--sort=') || a.startsWith('--format=') || a.startsWith('--color=') || /^-n[0-9]*$/.test(a))
      return true;
    if (a.startsWith('-')) return allowed.has(a.split('=')[0]!);
    // Without --list a name means "create".
    return listing;
  });
}

interface GitReading {
  why?: string;
  /** `-C` folders in order (each relative to the one before). */
  dirs: string[];
  gitDir?: string;
  sub?: string;
}

/** Reads git's global options and decides the sub-command from its arguments. */
export function gitReading(args: string[]): GitReading {
  let i = 0;
  const dirs: string[] = [];
  let gitDir: string | undefined;
  while (i < args.length) {
    const a = args[i]!;
    if (a === '-C') {
      dirs.push(args[i + 1] ?? '');
      i += 2;
    } else if (a === '--git-dir' || a === '--work-tree' || a === '--namespace') {
      if (a === '--git-dir') gitDir = args[i + 1];
      i += 2;
    } else if (a.startsWith('--git-dir=')) {
      gitDir = a.slice(10);
      i++;
    } else if (
      [
        '--no-pager',
        '-P',
        '--no-optional-locks',
        '--literal-pathspecs',
        '--glob-pathspecs',
        '--noglob-pathspecs',
        '--icase-pathspecs',
        '--no-replace-objects',
        '--bare',
        '-p',
        '--paginate',
        '--no-advice',
        '--no-lazy-fetch',
      ].includes(a) ||
      a.startsWith('--work-tree=') ||
      a.startsWith('--namespace=')
    ) {
      i++;
    } else if (a === '-c' || a.startsWith('--config-env') || a.startsWith('--exec-path=')) {
      return { why: `\`${a}\` sets configuration that can make git run programs`, dirs };
    } else if (a.startsWith('-')) {
      if (['--version', '--help', '--exec-path', '--html-path', '--man-path', '--info-path'].includes(a))
        return { dirs, sub: a };
      return { why: `\`${a}\` is not a git option this list knows`, dirs };
    } else break;
  }
  const [subcommand, ...rest] = args.slice(i);
  const out = (why?: string): GitReading => ({
    ...(why ? { why } : {}),
    dirs,
    ...(gitDir !== undefined ? { gitDir } : {}),
    ...(subcommand ? { sub: subcommand } : {}),
  });
  if (subcommand === undefined) return out('has no sub-command');
  for (const a of rest) {
    if (a === '--') break;
    if (a.startsWith('--') && a.length > 3) {
      const name = a.slice(2).split('=')[0]!;
      const hit = Object.keys(GIT_DANGER_LONG).find((d) => d === name || (name.length >= 2 && d.startsWith(name)));
      // `--output-indicator-new` and friends are display options.
      if (
        hit &&
        !/^output-indicator-/.test(name) &&
        !(hit === 'exec' && subcommand !== 'archive' && subcommand !== 'ls-remote')
      ) {
        if (
          !(hit === 'textconv' && subcommand !== 'cat-file' && subcommand !== 'blame') &&
          !(hit === 'edit' && !['config', 'branch', 'notes'].includes(subcommand))
        ) {
          return out(`\`${a}\` ${GIT_DANGER_LONG[hit]}`);
        }
      }
    }
    if (subcommand === 'grep' && /^-[a-zA-Z]*O/.test(a))
      return out(`\`${a}\` runs a pager of the caller\u2019s choosing`);
    if (subcommand === 'help' && /^-[a-zA-Z]*w/.test(a)) return out(`\`${a}\` opens a browser`);
    if (subcommand === 'config' && /^-[a-zA-Z]*e/.test(a)) return out(`\`${a}\` opens an editor`);
  }
  if (GIT_READ.has(subcommand)) return out();
  switch (subcommand) {
    case 'branch':
      return out(
        listingOnly(rest, GIT_BRANCH_LIST, ['--list', '-l'])
          ? undefined
          : '`git branch` with these arguments creates, renames or deletes a branch',
      );
    case 'tag':
      return out(
        listingOnly(rest, GIT_TAG_LIST, ['--list', '-l'])
          ? undefined
          : '`git tag` with these arguments creates or deletes a tag',
      );
    case 'remote':
      if (rest.length === 0 || rest.every((a) => a === '-v' || a === '--verbose') || rest[0] === 'get-url')
        return out();
      // `git remote show NAME` asks the remote unless -n.
      if (rest[0] === 'show' && rest.includes('-n')) return out();
      return out(
        rest[0] === 'show'
          ? '`git remote show` contacts the remote'
          : '`git remote` with these arguments changes the remotes',
      );
    case 'stash':
      return out(rest[0] === 'list' || rest[0] === 'show' ? undefined : '`git stash` changes the working tree');
    case 'config': {
      const reads = rest.some((a) =>
        [
          '--get',
          '--get-all',
          '--get-regexp',
          '--list',
          '-l',
          '--get-urlmatch',
          '--show-origin',
          '--show-scope',
          'get',
          'list',
        ].includes(a),
      );
      const writes = rest.some((a) =>
        [
          '--add',
          '--unset',
          '--unset-all',
          '--replace-all',
          '--rename-section',
          '--remove-section',
          'set',
          'unset',
          'rename-section',
          'remove-section',
          'edit',
        ].includes(a),
      );
      return out(reads && !writes ? undefined : '`git config` with these arguments changes settings');
    }
    case 'reflog':
      return out(
        rest.length === 0 || rest[0] === 'show' || rest[0] === 'list' || rest[0]!.startsWith('-')
          ? undefined
          : '`git reflog` with these arguments changes the reflog',
      );
    case 'worktree':
      return out(rest[0] === 'list' ? undefined : '`git worktree` with these arguments changes worktrees');
    case 'notes':
      return out(
        rest.length === 0 || rest[0] === 'list' || rest[0] === 'show'
          ? undefined
          : '`git notes` with these arguments changes notes',
      );
    case 'ls-remote':
    case 'fetch':
    case 'pull':
    case 'clone':
    case 'push':
    case 'archive':
      return out(`\`git ${subcommand}\` contacts a remote repository`);
    default:
      return out(`\`git ${subcommand}\` is not one of git's read-only sub-commands`);
  }
}

/** Kept for callers that only need yes/no. */
export function gitIsReadOnly(args: string[]): boolean {
  return gitReading(args).why === undefined;
}

add(['git'], { operands: 'none', strict: true });
add(['gh'], {
  operands: 'none',
  check: (p, args) => {
    const base = sub2(
      [
        'pr list',
        'pr view',
        'pr status',
        'pr diff',
        'pr checks',
        'issue list',
        'issue view',
        'issue status',
        'repo view',
        'release list',
        'release view',
        'run list',
        'run view',
        'auth status',
        'workflow list',
        'workflow view',
        'label list',
        'search repos',
        'search issues',
        'search prs',
        'cache list',
      ],
      ['status', '--version', 'version'],
    )(p, args);
    if (base) return base;
    const web = args.find((a) => a === '-w' || a === '--web' || /^--we/.test(a));
    return web ? `\`${web}\` opens a browser` : undefined;
  },
  secret: (_p, args) =>
    args.some((a) => a === '--show-token' || a === '-t' || /^--show-t/.test(a))
      ? '`gh auth status --show-token` prints the GitHub token'
      : undefined,
});

// ---- toolchain versions and package queries -----------------------------------------------------------

const versionOnly = (_p: ParsedArgs, a: string[]) =>
  a.length === 1 && ['--version', '-v', '-V', 'version', '--help', '-h', '-version'].includes(a[0]!)
    ? undefined
    : 'only its version query is read-only';
add(
  [
    'node',
    'python',
    'python3',
    'ruby',
    'perl',
    'rustc',
    'swift',
    'java',
    'javac',
    'cmake',
    'clang',
    'gcc',
    'g++',
    'make',
    'deno',
    'bun',
    'php',
    'lua',
    'tsc',
    'docker-compose',
    'terraform',
    'tofu',
    'xcodebuild',
    'xcrun',
    'pod',
    'sqlite3',
    'cargo',
    'pnpm',
    'yarn',
  ],
  {
    operands: 'none',
    check: versionOnly,
  },
);
add(['go'], {
  operands: 'none',
  check: sub(['version', 'env', 'list', 'doc', 'help'], (rest) =>
    rest.some((a) => a === '-w' || a === '-u') ? '`go env -w/-u` changes settings' : undefined,
  ),
});
add(['rustup'], { operands: 'none', check: sub(['show', 'which', '--version']) });
/** `--registry` and friends point a query at a server of the caller's choosing. */
const chosenServer = (names: RegExp) => (rest: string[]) => {
  const hit = rest.find((a) => names.test(a));
  return hit ? `\`${hit}\` sends the query to a server of the caller\u2019s choosing` : undefined;
};
add(['npm'], {
  operands: 'none',
  check: (p, args) => {
    const verb = args.find((a) => !a.startsWith('-'));
    if (verb === 'version' && args.filter((a) => !a.startsWith('-')).length > 1)
      return '`npm version X` bumps the version and commits';
    return (
      sub(
        [
          'list',
          'ls',
          'outdated',
          'view',
          'info',
          'show',
          'search',
          'explain',
          'why',
          'help',
          'root',
          'prefix',
          'version',
          '--version',
          '-v',
          'ping',
          'whoami',
        ],
        chosenServer(/^--(reg|registry|viewer|json-output-file)/),
      )(p, args) ?? chosenServer(/^--(reg|registry|viewer)/)(args)
    );
  },
});
add(['pip', 'pip3'], {
  operands: 'none',
  check: sub(
    ['list', 'show', 'freeze', 'check', '--version', '-V'],
    chosenServer(/^(-i|--index-url|--extra-index-url|-f|--find-links|--index)(=|$)/),
  ),
});
add(['brew'], {
  operands: 'none',
  check: sub(
    [
      'list',
      'ls',
      'info',
      'search',
      'outdated',
      'deps',
      'uses',
      'leaves',
      'config',
      'doctor',
      'desc',
      '--version',
      '--prefix',
      '--cellar',
      '--repository',
      'shellenv',
    ],
    (rest) =>
      rest.some((a) => a === '--github' || /^--git/.test(a)) ? '`brew info --github` opens a browser' : undefined,
  ),
});
add(['gem'], { operands: 'none', check: sub(['list', 'search', 'info', 'contents', 'environment', '--version']) });
add(['docker', 'podman'], {
  operands: 'none',
  check: (p, args) => {
    const server = args.find((a) => /^(-H|--host|--context|-c|--config|--tls.*)(=|$)/.test(a));
    if (server) return `\`${server}\` points docker at a server or configuration of the caller\u2019s choosing`;
    return sub2(
      [
        'image ls',
        'image inspect',
        'image history',
        'network ls',
        'network inspect',
        'volume ls',
        'volume inspect',
        'container ls',
        'container inspect',
        'container logs',
        'compose ps',
        'compose logs',
        'compose ls',
        'context ls',
        'system df',
      ],
      ['ps', 'images', 'inspect', 'logs', 'top', 'version', 'info', 'history', 'port', 'diff'],
    )(p, args);
  },
});
add(['kubectl'], {
  operands: 'none',
  check: (p, args) => {
    const server = args.find((a) =>
      /^(-s|--server|--kubeconfig|--token|--as|--as-group|--certificate-authority|--client-key|--client-certificate|--insecure-skip-tls-verify)(=|$)/.test(
        a,
      ),
    );
    if (server) return `\`${server}\` points kubectl at a cluster or credentials of the caller\u2019s choosing`;
    return sub2(
      ['config view', 'config current-context', 'config get-contexts', 'config get-clusters', 'auth can-i'],
      ['get', 'describe', 'logs', 'top', 'version', 'api-resources', 'api-versions', 'explain', 'cluster-info'],
    )(p, args);
  },
  secret: (p, args) => {
    if (p.operands[0] === 'config' && args.some((a) => a === '--raw' || a === '--flatten'))
      return '`kubectl config view --raw` prints cluster credentials';
    if (
      p.operands.slice(1).some((o) => /^(secrets?|secret\/.*|secrets\/.*)$/i.test(o) || /(^|,)secrets?(,|$)/i.test(o))
    )
      return 'reads Kubernetes secrets';
    return undefined;
  },
});
add(['aws'], {
  operands: 'none',
  check: (p, args) => {
    const endpoint = args.find((a) => /^--endpoint-url(=|$)/.test(a));
    if (endpoint) return `\`${endpoint}\` sends the request to a server of the caller\u2019s choosing`;
    return sub2(
      ['sts get-caller-identity', 's3 ls', 'configure list', 'configure get', 'configure list-profiles'],
      ['--version'],
    )(p, args);
  },
  secret: (p) =>
    p.operands[0] === 'configure' &&
    p.operands[1] === 'get' &&
    p.operands.slice(2).some((k) => /secret|token|key|password|session/i.test(k))
      ? 'prints an AWS secret'
      : undefined,
});
add(['gcloud'], {
  operands: 'none',
  check: sub2(['config list', 'auth list', 'projects list'], ['version', 'info', '--version']),
});
// Linters that read files and report, and load no code from the project.
add(['shellcheck', 'hadolint', 'yamllint', 'actionlint', 'pyflakes', 'pycodestyle'], {
  operands: 'content',
  strict: false,
});
add(['ruff'], {
  operands: 'content',
  check: (p, a) =>
    p.operands[0] === 'check' && !a.some((x) => /^--(fix|unsafe-fixes|watch|add-noqa)/.test(x))
      ? undefined
      : '`ruff` other than `ruff check` without --fix changes files',
});

/** The built-in read-only list knows this program at all (used to explain decisions). */
export const isKnownReadOnlyProgram = (name: string): boolean => Object.hasOwn(TABLE, name);

/** How the list reads this program's options (secretSearch.ts finds a search's pattern with it). */
export const optionSpecOf = (name: string): OptionSpec | undefined =>
  Object.hasOwn(TABLE, name) ? TABLE[name]!.spec : undefined;

/**
 * The verdict for one command: read-only or not (with a reason), what it reads, and whether it shows
 * secrets. Wrappers and assignments are judged elsewhere.
 */
const verdicts = new WeakMap<SimpleCommand, ReadOnlyVerdict>();

export function readOnlyVerdict(cmd: SimpleCommand): ReadOnlyVerdict {
  let v = verdicts.get(cmd);
  if (!v) {
    v = computeVerdict(cmd);
    verdicts.set(cmd, v);
  }
  return v;
}

function computeVerdict(cmd: SimpleCommand): ReadOnlyVerdict {
  const none: ReadOnlyVerdict = { readOnly: false, known: false, reads: [], lists: [], walks: [], writes: [] };
  if (cmd.nameDynamic || cmd.name === '') return none;
  const entry = Object.hasOwn(TABLE, cmd.name) ? TABLE[cmd.name] : undefined;
  if (!entry) return none;
  const args = cmd.args.map((a) => a.value);
  const p = parseOptions(args, entry.spec);
  const out: ReadOnlyVerdict = { readOnly: true, known: true, reads: [], lists: [], walks: [], writes: [] };
  const danger = entry.spec.danger ?? {};
  out.writes = p.options.filter((o) => danger[o.name] === WRITES && o.value !== undefined).map((o) => o.value!);
  if (['uniq', 'guniq', 'xxd'].includes(cmd.name) && p.operands.length > 1) out.writes.push(p.operands[1]!);
  args.forEach((a, i) => {
    if (
      /^-(fprint|fprint0|fprintf|fls)$/.test(a) &&
      args[i + 1] !== undefined &&
      (cmd.name === 'find' || cmd.name === 'gfind')
    )
      out.writes.push(args[i + 1]!);
  });
  const refuse = (why: string): ReadOnlyVerdict => ({ ...out, readOnly: false, why });

  // Files named as option values are read too (`grep -f F`, `jq --rawfile n F`, `sort --files0-from=F`).
  const valueFiles = p.options
    .filter(
      (o) =>
        /^(-f|--file|--files0-from|--from-file|--rawfile|--slurpfile|--exclude-from|-X|--random-source|--reference)$/.test(
          o.name,
        ) && o.value !== undefined,
    )
    .map((o) => o.value!);
  // Every word that is not an option may be a file: option values are not always where the table says.
  let files = args.filter((a) => !(a.startsWith('-') && a.length > 1) && !a.startsWith('+'));
  const patternGiven = p.options.some((o) => ['-e', '-f', '--regexp', '--file', '--expression'].includes(o.name));
  const drop = (v: string | undefined) => {
    const k = v === undefined ? -1 : files.indexOf(v);
    if (k !== -1) files = [...files.slice(0, k), ...files.slice(k + 1)];
  };
  if (entry.operands === 'after-first' && !patternGiven)
    drop(isAwkName(cmd.name) ? args[awkProgram(args).index ?? -1] : p.operands[0]);
  if (cmd.name === 'jq' || cmd.name === 'gojq' || cmd.name === 'jaq') {
    // After --args / --jsonargs the operands are values, not files; `--arg NAME VALUE` takes two words.
    const k = args.findIndex((a) => a === '--args' || a === '--jsonargs');
    const values = new Set(k === -1 ? [] : args.slice(k + 1));
    args.forEach((a, i) => {
      if (a === '--arg' || a === '--argjson' || a === '--slurpfile' || a === '--rawfile') {
        values.add(args[i + 1] ?? '');
        if (a === '--arg' || a === '--argjson') values.add(args[i + 2] ?? '');
      }
    });
    files = files.filter((f) => !values.has(f));
  }
  if (entry.operands === 'none') files = [];
  if (entry.operands === 'names') out.lists = files;
  else out.reads = [...files, ...valueFiles];
  if (entry.walks)
    out.walks = entry.walks(p, p.operands.slice(entry.operands === 'after-first' && !patternGiven ? 1 : 0));

  const secret = entry.secret?.(p, args, cmd);
  if (secret) out.secret = secret;

  if (entry.strict && args.some(hasUnknown))
    return refuse(
      'some arguments are only known when it runs, and one could be an option that writes or runs something',
    );
  if (p.danger.length > 0) {
    const d = p.danger[0]!;
    return refuse(`\`${d.written}\` ${d.option === d.written.split('=')[0] ? '' : `(read as ${d.option}) `}${d.what}`);
  }
  if (p.invalid.length > 0) return refuse(`${p.invalid[0]}, so what \`${cmd.name}\` would do is not clear`);
  if (!entry.spec.lenient && p.unknown.length > 0)
    return refuse(`\`${p.unknown[0]}\` is not a \`${cmd.name}\` option the read-only list knows`);
  if (cmd.name === 'git') {
    const g = gitReading(args);
    out.git = { dirs: g.dirs, ...(g.gitDir !== undefined ? { gitDir: g.gitDir } : {}) };
    if (g.why) return refuse(g.why);
    if (g.sub === 'diff' && args.includes('--no-index')) out.reads = args.filter((a) => !a.startsWith('-')).slice(1);
    return out;
  }
  const why = entry.check?.(p, args, cmd);
  return why ? refuse(why) : out;
}

/** True when the command only looks (given its arguments); wrappers and assignments are judged elsewhere. */
export function isReadOnlyCommand(cmd: SimpleCommand): boolean {
  return readOnlyVerdict(cmd).readOnly;
}
