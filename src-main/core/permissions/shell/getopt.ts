/**
 * Reads a command's arguments the way the program's own option parser does (GNU getopt_long, which BSD
 * tools mostly agree with): short options clustered (`-xvf`) and glued to their value (`-o~/.zshrc`,
 * `-e'1e CMD'`), long options as `--name=value` or `--name value`, and long options abbreviated to any
 * unique prefix (`--outp` is `--output`, `--in-pl` is `--in-place`). `--` ends the options; options may
 * follow operands (GNU permutation) unless the spec says the program stops at its first operand.
 *
 * Rules never decide from the raw words: they ask this parser which options a command really has, so a
 * spelling the rules did not foresee still lands on the option the program will act on.
 */

/** How one program takes its options. */
export interface OptionSpec {
  /** Short options, getopt style: `o:` takes a value (glued or the next word), `o::` an optional glued one. */
  short?: string;
  /** Long options: `name` (a flag), `name=` (a value: `--name=V` or `--name V`), `name=?` (optional, only `--name=V`). */
  long?: readonly string[];
  /**
   * Options that make the command do more than look — write a file, run a program, change a setting — as
   * they are canonically written (`-o`, `--output`), with what they do. Abbreviations count: a long option
   * written as a prefix of a dangerous one is treated as that one, even when the prefix is ambiguous.
   */
  danger?: Readonly<Record<string, string>>;
  /** The program has no dangerous option besides `danger`, so options this spec does not list are harmless. */
  lenient?: boolean;
  /** `-20` is an option (`head -20`). */
  numeric?: boolean;
  /** Options end at the first operand (POSIX utilities, `awk`); default: GNU permutation. */
  stopAtOperand?: boolean;
}

export interface ParsedOption {
  /** Canonical name: `-o` or `--output` (a long option's full name even when abbreviated). */
  name: string;
  value?: string;
  /** Index of the word the option was found in. */
  index: number;
}

export interface DangerHit {
  /** The option as the program reads it (`--output`). */
  option: string;
  /** What the user wrote (`--outp=x`, `-ox`). */
  written: string;
  what: string;
}

export interface ParsedArgs {
  options: ParsedOption[];
  operands: string[];
  /** Words the spec does not know as options (harmless only when the spec is lenient). */
  unknown: string[];
  danger: DangerHit[];
  /** What the program's parser itself would refuse (ambiguous abbreviation, missing value). */
  invalid: string[];
}

type ArgKind = 'none' | 'required' | 'optional';

interface CompiledSpec {
  short: Map<string, ArgKind>;
  long: Map<string, ArgKind>;
  longNames: string[];
  dangerLong: string[];
  spec: OptionSpec;
}

const compiled = new WeakMap<OptionSpec, CompiledSpec>();

function compile(spec: OptionSpec): CompiledSpec {
  let c = compiled.get(spec);
  if (c) return c;
  const short = new Map<string, ArgKind>();
  const s = spec.short ?? '';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (ch === ':') continue;
    if (s[i + 1] === ':' && s[i + 2] === ':') short.set(ch, 'optional');
    else if (s[i + 1] === ':') short.set(ch, 'required');
    else short.set(ch, 'none');
  }
  const long = new Map<string, ArgKind>();
  for (const l of spec.long ?? []) {
    if (l.endsWith('=?')) long.set(l.slice(0, -2), 'optional');
    else if (l.endsWith('=')) long.set(l.slice(0, -1), 'required');
    else long.set(l, 'none');
  }
  // Dangerous long options are known options even when the list above forgot them.
  for (const d of Object.keys(spec.danger ?? {})) {
    if (d.startsWith('--') && !long.has(d.slice(2))) long.set(d.slice(2), 'required');
    if (/^-[^-]$/.test(d) && !short.has(d[1]!)) short.set(d[1]!, 'required');
  }
  c = {
    short,
    long,
    longNames: [...long.keys()],
    dangerLong: Object.keys(spec.danger ?? {})
      .filter((d) => d.startsWith('--'))
      .map((d) => d.slice(2)),
    spec,
  };
  compiled.set(spec, c);
  return c;
}

/** Parses `args` (the words after the program name) by `spec`. */
export function parseOptions(args: readonly string[], spec: OptionSpec): ParsedArgs {
  const c = compile(spec);
  const danger = spec.danger ?? {};
  const out: ParsedArgs = { options: [], operands: [], unknown: [], danger: [], invalid: [] };
  let ended = false;
  const hit = (option: string, written: string) => {
    const what = danger[option];
    if (what !== undefined && !out.danger.some((d) => d.option === option && d.written === written))
      out.danger.push({ option, written, what });
  };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (ended) {
      out.operands.push(a);
      continue;
    }
    if (a === '--') {
      ended = true;
      continue;
    }
    if (a.startsWith('--') && a.length > 2) {
      const eq = a.indexOf('=');
      const written = eq === -1 ? a.slice(2) : a.slice(2, eq);
      let value = eq === -1 ? undefined : a.slice(eq + 1);
      let name: string | undefined;
      if (c.long.has(written)) name = written;
      else {
        // A prefix of a dangerous option counts as that option, however many others it also abbreviates.
        const risky = c.dangerLong.find((d) => d.startsWith(written));
        if (risky) hit(`--${risky}`, a);
        const candidates = c.longNames.filter((l) => l.startsWith(written));
        if (candidates.length === 1) name = candidates[0];
        else if (candidates.length > 1) {
          out.invalid.push(
            `${a} is an ambiguous abbreviation (${candidates
              .slice(0, 3)
              .map((x) => `--${x}`)
              .join(', ')}…)`,
          );
          continue;
        }
      }
      if (name === undefined) {
        out.unknown.push(a);
        continue;
      }
      const kind = c.long.get(name)!;
      if (kind === 'required' && value === undefined) {
        if (i + 1 < args.length) value = args[++i];
        else out.invalid.push(`--${name} needs a value`);
      } else if (kind === 'none' && value !== undefined) {
        out.invalid.push(`--${name} takes no value`);
      }
      out.options.push({ name: `--${name}`, ...(value !== undefined ? { value } : {}), index: i });
      hit(`--${name}`, a);
      continue;
    }
    if (a.startsWith('-') && a.length > 1) {
      if (spec.numeric && /^-[0-9]+[a-zA-Z]?$/.test(a)) {
        out.options.push({ name: '-#', value: a.slice(1), index: i });
        continue;
      }
      for (let k = 1; k < a.length; k++) {
        const ch = a[k]!;
        const kind = c.short.get(ch);
        hit(`-${ch}`, a);
        if (kind === undefined) {
          // Unknown letters may themselves take a value; later letters are still checked for danger.
          out.unknown.push(`-${ch}`);
          continue;
        }
        if (kind === 'none') {
          out.options.push({ name: `-${ch}`, index: i });
          continue;
        }
        const glued = a.slice(k + 1);
        if (kind === 'optional') {
          out.options.push({ name: `-${ch}`, ...(glued ? { value: glued } : {}), index: i });
        } else if (glued) {
          out.options.push({ name: `-${ch}`, value: glued, index: i });
        } else if (i + 1 < args.length) {
          out.options.push({ name: `-${ch}`, value: args[++i]!, index: i });
        } else {
          out.invalid.push(`-${ch} needs a value`);
        }
        break;
      }
      continue;
    }
    out.operands.push(a);
    if (spec.stopAtOperand) ended = true;
  }
  return out;
}

/** The options called `name` (canonical spelling), in order. */
export const optionsNamed = (p: ParsedArgs, ...names: string[]): ParsedOption[] =>
  p.options.filter((o) => names.includes(o.name));

export const hasOption = (p: ParsedArgs, ...names: string[]): boolean => p.options.some((o) => names.includes(o.name));

/**
 * For rules about one option (`rm --recursive`): true when the words hold it in any spelling the program
 * accepts — clustered, glued, or a long option abbreviated to a unique prefix (`--rec`).
 */
export function mentionsOption(args: readonly string[], spec: OptionSpec, short: string, long?: string): boolean {
  const p = parseOptions(args, spec);
  return (
    p.options.some((o) => o.name === `-${short}` || (long !== undefined && o.name === `--${long}`)) ||
    (long !== undefined &&
      p.unknown.some((u) => u.startsWith('--') && u.length > 3 && `--${long}`.startsWith(u.split('=')[0]!)))
  );
}
