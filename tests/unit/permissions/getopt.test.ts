// The option reader the rules use (shell/getopt.ts): programs read `-o~/.zshrc`, `-uo out`, `--outp=x` and
// `--output x` as the same option, so the rules must too.
import { describe, expect, it } from 'vitest';
import { parseOptions, type OptionSpec } from '../../../src-main/core/permissions/shell/getopt.js';

const SORT: OptionSpec = {
  short: 'bfno:rt:uk:',
  long: ['output=', 'reverse', 'key=', 'check=?', 'compress-program=', 'field-separator='],
  danger: { '-o': 'writes', '--output': 'writes', '--compress-program': 'runs' },
};

describe('parseOptions', () => {
  it.each([
    [['-o~/.zshrc', 'f'], '~/.zshrc'],
    [['-o', 'out', 'f'], 'out'],
    [['-uo', 'out', 'f'], 'out'],
    [['-uoout', 'f'], 'out'],
    [['--output=out', 'f'], 'out'],
    [['--output', 'out', 'f'], 'out'],
    [['--outp=out', 'f'], 'out'],
    [['--ou', 'out', 'f'], 'out'],
    [['f', '-o', 'out'], 'out'],
  ])('reads %j as the output option', (args, value) => {
    const p = parseOptions(args, SORT);
    expect(p.options.find((o) => o.name === '-o' || o.name === '--output')?.value).toBe(value);
    expect(p.danger.length).toBe(1);
    expect(p.operands).toEqual(['f']);
  });

  it('stops at -- and keeps what follows as operands', () => {
    expect(parseOptions(['-r', '--', '-o', 'x'], SORT)).toMatchObject({ operands: ['-o', 'x'], danger: [] });
  });

  it('counts a prefix of a dangerous option as that option even when it is ambiguous', () => {
    const spec: OptionSpec = { long: ['pre=', 'pretty', 'pre-glob='], danger: { '--pre': 'runs' }, lenient: true };
    expect(parseOptions(['--pr=x'], spec).danger.map((d) => d.option)).toEqual(['--pre']);
    expect(parseOptions(['--pretty'], spec).danger).toEqual([]);
    expect(parseOptions(['--pre-glob=*.gz'], spec).danger).toEqual([]);
  });

  it('reports ambiguous abbreviations, missing values and unknown options', () => {
    const p = parseOptions(['--re', '-k'], { long: ['reverse', 'recursive'], short: 'k:' });
    expect(p.invalid.join(' ')).toMatch(/ambiguous/);
    expect(p.invalid.join(' ')).toMatch(/-k needs a value/);
    expect(parseOptions(['-Z', '--zzz'], SORT).unknown).toEqual(['-Z', '--zzz']);
  });

  it('finds a dangerous letter anywhere in a cluster of letters it does not know', () => {
    expect(parseOptions(['-HIxrm'], { short: 'HI', danger: { '-x': 'runs' }, lenient: true }).danger[0]).toMatchObject({
      option: '-x',
      written: '-HIxrm',
    });
  });

  it('reads optional values only when glued, and numeric options when asked', () => {
    expect(parseOptions(['-i.bak', 'f'], { short: 'i::' }).options[0]).toMatchObject({ name: '-i', value: '.bak' });
    expect(parseOptions(['-i', 'f'], { short: 'i::' }).operands).toEqual(['f']);
    expect(parseOptions(['-20', 'f'], { numeric: true }).operands).toEqual(['f']);
    expect(parseOptions(['--check', 'f'], SORT).operands).toEqual(['f']);
  });

  it('stops at the first operand when the program does', () => {
    expect(parseOptions(['prog', '-o', 'x'], { short: 'o:', stopAtOperand: true }).operands).toEqual([
      'prog',
      '-o',
      'x',
    ]);
  });
});
