/**
 * Turns one tree-sitter word node into its normalised value: quotes removed (`'rm'`, `r''m`, `"rm"`),
 * escapes decoded (`\rm`, `$'\x72m'`), known variables substituted (`$HOME`), brace expansion applied
 * (`/{usr,bin}`), and everything only known at run time replaced by a placeholder.
 */
import type { Node } from 'web-tree-sitter';
import { UNKNOWN, UNKNOWN_NONEMPTY, type ShellWord } from './types.js';

export interface WordEnv {
  /** Possible values of a variable set earlier in the line (or known ones like HOME); undefined when unknown. */
  lookup(name: string): string[] | undefined;
  /** Told the name of every variable the word expands (secret-looking names make a line ask). */
  expanded?(name: string): void;
  /** Analyses the commands inside `$( )`, backticks or `<( )`; returns their output when it is static text. */
  substitution(node: Node): string | undefined;
  /** Analyses any substitutions nested inside a node whose value is not otherwise interpreted. */
  nested(node: Node): void;
}

/** Alternatives beyond this are dropped: rules check a sample, the analysis stays fast. */
const MAX_ALTERNATIVES = 16;

// Unquoted brace characters, kept apart from quoted ones until brace expansion has run.
const BRACE_OPEN = '\uE000';
const BRACE_COMMA = '\uE001';
const BRACE_CLOSE = '\uE002';
/** Where an unquoted expansion's value is split into fields (its IFS characters). */
const FIELD_SEP = '\uE003';

/** Bash's default IFS. */
const DEFAULT_IFS = ' \t\n';

interface Piece {
  values: string[];
  display: string;
  dynamic: boolean;
}

const literal = (text: string, display = text): Piece => ({ values: [text], display, dynamic: false });
const unknown = (display: string, nonEmpty = false): Piece => ({
  values: [nonEmpty ? UNKNOWN_NONEMPTY : UNKNOWN],
  display,
  dynamic: true,
});

/** Backslash removal in an unquoted word: `\x` is x, backslash-newline vanishes. */
export function unescapeUnquoted(text: string): string {
  if (!text.includes('\\')) return text;
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\' && i + 1 < text.length) {
      const next = text[i + 1]!;
      i++;
      if (next !== '\n') out += next;
    } else out += c;
  }
  return out;
}

/** Inside double quotes a backslash only escapes $ ` " \ and newline. */
function unescapeDoubleQuoted(text: string): string {
  if (!text.includes('\\')) return text;
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    const next = text[i + 1];
    if (c === '\\' && next !== undefined && '$`"\\\n'.includes(next)) {
      i++;
      if (next !== '\n') out += next;
    } else out += c;
  }
  return out;
}

/** Decodes the escapes of `$'…'` (also used for `printf` formats and `echo -e`). */
export function decodeCEscapes(body: string): string {
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== '\\' || i + 1 >= body.length) {
      out += c;
      continue;
    }
    const n = body[++i]!;
    const simple: Record<string, string> = {
      n: '\n',
      t: '\t',
      r: '\r',
      a: '\x07',
      b: '\b',
      e: '\x1b',
      E: '\x1b',
      f: '\f',
      v: '\v',
      '\\': '\\',
      "'": "'",
      '"': '"',
      '?': '?',
    };
    if (n in simple) {
      out += simple[n];
    } else if (n === 'x') {
      const m = /^[0-9a-fA-F]{1,2}/.exec(body.slice(i + 1));
      if (m) {
        out += String.fromCharCode(parseInt(m[0], 16));
        i += m[0].length;
      } else out += '\\x';
    } else if (n === 'u' || n === 'U') {
      const m = new RegExp(`^[0-9a-fA-F]{1,${n === 'u' ? 4 : 8}}`).exec(body.slice(i + 1));
      if (m) {
        const cp = parseInt(m[0], 16);
        out += cp <= 0x10ffff ? String.fromCodePoint(cp) : '';
        i += m[0].length;
      } else out += `\\${n}`;
    } else if (/[0-7]/.test(n)) {
      const m = /^[0-7]{1,3}/.exec(body.slice(i));
      const digits = m ? m[0] : n;
      out += String.fromCharCode(parseInt(digits, 8) & 0xff);
      i += digits.length - 1;
    } else if (n === 'c' && i + 1 < body.length) {
      out += String.fromCharCode(body.charCodeAt(++i) & 0x1f);
    } else {
      out += `\\${n}`;
    }
  }
  return out;
}

function markBraces(text: string): string {
  return text.replaceAll('{', BRACE_OPEN).replaceAll(',', BRACE_COMMA).replaceAll('}', BRACE_CLOSE);
}

const restoreBraces = (s: string): string =>
  s.replaceAll(BRACE_OPEN, '{').replaceAll(BRACE_COMMA, ',').replaceAll(BRACE_CLOSE, '}');

/** Bash brace expansion over the unquoted brace markers, capped. */
function expandBraces(s: string, out: string[]): void {
  if (out.length >= MAX_ALTERNATIVES) return;
  for (let open = s.indexOf(BRACE_OPEN); open !== -1; open = s.indexOf(BRACE_OPEN, open + 1)) {
    let depth = 0;
    const commas: number[] = [];
    let close = -1;
    for (let i = open + 1; i < s.length; i++) {
      const c = s[i];
      if (c === BRACE_OPEN) depth++;
      else if (c === BRACE_CLOSE) {
        if (depth === 0) {
          close = i;
          break;
        }
        depth--;
      } else if (c === BRACE_COMMA && depth === 0) commas.push(i);
    }
    if (close === -1 || commas.length === 0) continue;
    const prefix = s.slice(0, open);
    const suffix = s.slice(close + 1);
    const bounds = [open, ...commas, close];
    for (let k = 0; k + 1 < bounds.length; k++) {
      expandBraces(prefix + s.slice(bounds[k]! + 1, bounds[k + 1]) + suffix, out);
    }
    return;
  }
  out.push(restoreBraces(s));
}

const EXPANSION = /^\$\{([#!]?)([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-])([\s\S]*)\}$/;

/** A shell glob (`*`, `?`, `[…]`) as a regular expression body; undefined when it holds expansions or escapes. */
export function globToRegex(glob: string): string | undefined {
  if (/[$`\\]/.test(glob)) return undefined;
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*') out += '[\\s\\S]*';
    else if (c === '?') out += '[\\s\\S]';
    else if (c === '[') {
      const close = glob.indexOf(']', i + 2);
      if (close === -1) return undefined;
      let body = glob.slice(i + 1, close);
      if (body.startsWith('!')) body = `^${body.slice(1)}`;
      out += `[${body.replace(/\\/g, '\\\\')}]`;
      i = close;
    } else out += c.replace(/[.+^${}()|[\]\\/-]/g, '\\$&');
  }
  return out;
}

const stripQuotes = (w: string): string | undefined => {
  if (/^'[^']*'$/.test(w) || /^"[^"$`\\]*"$/.test(w)) return w.slice(1, -1);
  if (/['"$`\\]/.test(w)) return undefined;
  return w;
};

/** `${X%pat}` and friends with glob patterns, as bash applies them. */
function trimValue(v: string, op: string, re: RegExp): string {
  const n = v.length;
  switch (op) {
    case '#':
      for (let i = 0; i <= n; i++) if (re.test(v.slice(0, i))) return v.slice(i);
      return v;
    case '##':
      for (let i = n; i >= 0; i--) if (re.test(v.slice(0, i))) return v.slice(i);
      return v;
    case '%':
      for (let i = n; i >= 0; i--) if (re.test(v.slice(i))) return v.slice(0, i);
      return v;
    default:
      for (let i = 0; i <= n; i++) if (re.test(v.slice(i))) return v.slice(0, i);
      return v;
  }
}

/** Operations on a known value: slices, case changes, pattern trims and replacements. */
function operate(values: string[], rest: string): string[] | undefined {
  const trim = /^(##?|%%?)([\s\S]*)$/.exec(rest);
  if (trim) {
    const pattern = stripQuotes(trim[2]!);
    const body = pattern === undefined ? undefined : globToRegex(pattern);
    if (body === undefined) return undefined;
    const re = new RegExp(`^${body}$`);
    return values.map((v) => trimValue(v, trim[1]!, re));
  }
  const slice = /^:\s*(-?[0-9]+)\s*(?::\s*(-?[0-9]+)\s*)?$/.exec(rest);
  if (slice) {
    const off = Number(slice[1]);
    return values.map((v) => {
      const start = off < 0 ? Math.max(0, v.length + off) : Math.min(off, v.length);
      if (slice[2] === undefined) return v.slice(start);
      const len = Number(slice[2]);
      return len < 0 ? v.slice(start, Math.max(start, v.length + len)) : v.slice(start, start + len);
    });
  }
  const kase = /^(\^\^?|,,?)$/.exec(rest);
  if (kase) {
    const up = kase[1]!.startsWith('^');
    const all = kase[1]!.length === 2;
    return values.map((v) => {
      const f = (s: string) => (up ? s.toUpperCase() : s.toLowerCase());
      return all ? f(v) : f(v.slice(0, 1)) + v.slice(1);
    });
  }
  const repl = /^\/([/#%]?)((?:\\.|[^/])*)(?:\/([\s\S]*))?$/.exec(rest);
  if (repl) {
    const pattern = stripQuotes(repl[2]!);
    const replacement = stripQuotes(repl[3] ?? '');
    const body = pattern === undefined ? undefined : globToRegex(pattern);
    if (body === undefined || replacement === undefined || body === '') return undefined;
    const mode = repl[1];
    return values.map((v) => {
      if (mode === '#') return v.replace(new RegExp(`^${body}`), replacement);
      if (mode === '%') return v.replace(new RegExp(`${body}$`), replacement);
      return v.replace(new RegExp(body, mode === '/' ? 'g' : ''), replacement);
    });
  }
  return undefined;
}

function expansionPiece(node: Node, env: WordEnv): Piece {
  const text = node.text;
  env.nested(node);
  const m = EXPANSION.exec(text);
  if (!m) return unknown(text);
  const [, prefix, name, rest] = m as unknown as [string, string, string, string];
  env.expanded?.(name);
  if (prefix === '!') {
    // `${!X}`: the variable X names. `${!X*}` lists names (no values).
    if (rest === '*' || rest === '@') return unknown(text, true);
    const target = env.lookup(name);
    if (target?.length === 1 && /^[A-Za-z_][A-Za-z0-9_]*$/.test(target[0]!)) {
      env.expanded?.(target[0]!);
      const v = env.lookup(target[0]!);
      if (v && rest === '') return { values: v, display: text, dynamic: false };
    }
    return unknown(text);
  }
  if (prefix) return unknown(text, prefix === '#');
  const known = env.lookup(name);
  if (rest === '') return known ? { values: known, display: text, dynamic: false } : unknown(text);
  const op = /^(:?[-=?+])([\s\S]*)$/.exec(rest);
  if (!op || /^:(\s*[0-9]|\s+-[0-9])/.test(rest)) {
    if (!known) return unknown(text);
    const done = operate(known, rest);
    return done
      ? { values: done, display: text, dynamic: false }
      : { values: [...known, UNKNOWN], display: text, dynamic: true };
  }
  const [, operator, word] = op as unknown as [string, string, string];
  const fallback =
    word.includes('$') || word.includes('`') ? UNKNOWN : unescapeUnquoted(word.replace(/^["']|["']$/g, ''));
  switch (operator.replace(':', '')) {
    case '-':
    case '=':
      return { values: known ?? [UNKNOWN, fallback], display: text, dynamic: !known };
    case '?':
      // `${X:?}` stops the script when X is empty: never empty, still unknown.
      return known ? { values: known, display: text, dynamic: false } : unknown(text, true);
    case '+':
      return { values: [fallback, ''], display: text, dynamic: true };
    default:
      return unknown(text);
  }
}

function stringPieces(node: Node, env: WordEnv, pieces: Piece[]): void {
  const text = node.text;
  const base = node.startIndex;
  const open = text.startsWith('$"') ? 2 : 1;
  let cursor = base + open;
  const end = node.endIndex - (text.endsWith('"') && text.length > open ? 1 : 0);
  const gap = (until: number) => {
    if (until > cursor) {
      const raw = text.slice(cursor - base, until - base);
      pieces.push(literal(unescapeDoubleQuoted(raw), raw));
    }
  };
  for (const child of node.namedChildren) {
    if (!child) continue;
    gap(child.startIndex);
    if (child.type === 'string_content') {
      pieces.push(literal(unescapeDoubleQuoted(child.text), child.text));
    } else {
      piecesOf(child, env, pieces, true);
    }
    cursor = Math.max(cursor, child.endIndex);
  }
  gap(end);
}

/** An unquoted expansion's value is split into fields at IFS characters (marked with FIELD_SEP). */
function splitPiece(p: Piece, env: WordEnv): Piece {
  const ifs = env.lookup('IFS')?.[0] ?? DEFAULT_IFS;
  if (ifs === '') return p;
  const chars = [...ifs];
  return { ...p, values: p.values.map((v) => [...v].map((c) => (chars.includes(c) ? FIELD_SEP : c)).join('')) };
}

function piecesOf(node: Node, env: WordEnv, pieces: Piece[], quoted: boolean): void {
  switch (node.type) {
    case 'word': {
      const value = unescapeUnquoted(node.text);
      pieces.push(quoted ? literal(value) : literal(markBraces(value), value));
      return;
    }
    case 'number':
    case 'file_descriptor':
    case 'variable_name':
    case 'heredoc_start':
      pieces.push(literal(node.text));
      return;
    case 'raw_string':
      pieces.push(literal(node.text.slice(1, -1)));
      return;
    case 'ansi_c_string':
      pieces.push(literal(decodeCEscapes(node.text.slice(2, -1)), node.text));
      return;
    case 'string':
    case 'translated_string':
      stringPieces(node, env, pieces);
      return;
    case 'concatenation':
      for (const c of node.children) if (c) piecesOf(c, env, pieces, quoted);
      return;
    case 'simple_expansion': {
      const name = node.text.slice(1);
      env.expanded?.(name);
      const known = env.lookup(name);
      const p: Piece = known ? { values: known, display: node.text, dynamic: false } : unknown(node.text);
      pieces.push(quoted || !known ? p : splitPiece(p, env));
      return;
    }
    case 'expansion': {
      const p = expansionPiece(node, env);
      pieces.push(quoted || p.dynamic ? p : splitPiece(p, env));
      return;
    }
    case 'command_substitution': {
      const out = env.substitution(node);
      const p: Piece = out !== undefined ? { values: [out], display: node.text, dynamic: false } : unknown(node.text);
      pieces.push(quoted || out === undefined ? p : splitPiece(p, env));
      return;
    }
    case 'process_substitution':
      env.substitution(node);
      pieces.push(unknown(node.text, true));
      return;
    case 'arithmetic_expansion':
    case 'brace_expression':
      env.nested(node);
      pieces.push(unknown(node.text, true));
      return;
    default:
      if (!node.isNamed) {
        // Anonymous tokens inside a concatenation (`$`, `=`, …) stand for themselves.
        pieces.push(literal(quoted ? node.text : markBraces(node.text), node.text));
        return;
      }
      env.nested(node);
      pieces.push(unknown(node.text));
  }
}

function combine(pieces: Piece[]): { values: string[]; display: string; dynamic: boolean } {
  let values = [''];
  let display = '';
  let dynamic = false;
  for (const p of pieces) {
    display += p.display;
    dynamic ||= p.dynamic;
    const next: string[] = [];
    outer: for (const v of values) {
      for (const pv of p.values) {
        next.push(v + pv);
        if (next.length >= MAX_ALTERNATIVES) break outer;
      }
    }
    values = next;
  }
  return { values, display, dynamic };
}

export interface EvalOptions {
  /** An assignment's value: no brace expansion, no field splitting. */
  assignment?: boolean;
}

/**
 * The normalised word. When bash would make several words of it — brace expansion (`{rm,-rf,/}`) or an
 * unquoted expansion split at IFS (`$CMD` holding `rm -rf /`) — `fields` holds them, in order.
 */
export function evalWord(node: Node, env: WordEnv, opts: EvalOptions = {}): ShellWord {
  const pieces: Piece[] = [];
  piecesOf(node, env, pieces, false);
  const { values, display, dynamic } = combine(pieces);
  const shown = restoreBraces(display).replaceAll(FIELD_SEP, ' ');
  if (opts.assignment) {
    const unique = [...new Set(values.map((v) => restoreBraces(v).replaceAll(FIELD_SEP, ' ')))];
    return { value: unique[0] ?? '', alternatives: unique.slice(1, MAX_ALTERNATIVES), display: shown, dynamic };
  }
  // Each reading of the word (variable alternatives) becomes a list of fields.
  const readings: string[][] = [];
  for (const v of values.slice(0, MAX_ALTERNATIVES)) {
    const braced: string[] = [];
    if (v.includes(BRACE_OPEN)) expandBraces(v, braced);
    else braced.push(v);
    const fields: string[] = [];
    for (const b of braced) {
      const r = restoreBraces(b);
      if (!r.includes(FIELD_SEP)) fields.push(r);
      else fields.push(...r.split(FIELD_SEP).filter((f) => f !== ''));
    }
    readings.push(fields);
  }
  const first = readings[0] ?? [''];
  if (readings.every((r) => r.length === 1) || first.length === 0) {
    const unique = [...new Set(readings.map((r) => r[0] ?? ''))];
    return { value: unique[0] ?? '', alternatives: unique.slice(1), display: shown, dynamic };
  }
  const fields = first.map((f, i): ShellWord => {
    const alts = [
      ...new Set(
        readings
          .slice(1)
          .map((r) => r[i])
          .filter((x): x is string => x !== undefined && x !== f),
      ),
    ];
    return { value: f, alternatives: alts.slice(0, MAX_ALTERNATIVES), display: f, dynamic };
  });
  return { value: fields.map((f) => f.value).join(' '), alternatives: [], display: shown, dynamic, fields };
}

/** A word made from plain text (wrapper strings re-split, fallback tokens). */
export const plainWord = (text: string): ShellWord => ({
  value: text,
  alternatives: [],
  display: text,
  dynamic: false,
});

export const allValues = (w: ShellWord): string[] => [w.value, ...w.alternatives];
