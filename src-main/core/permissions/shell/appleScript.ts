/**
 * AppleScript read for what it would run in a shell, without running it. One reader serves the
 * applescript tool (permissions/guiRules.ts) and `osascript -e CODE` in bash lines (analyze.ts).
 *
 * Shell code in AppleScript: `do shell script EXPR` (`«event sysoexec»`; `with administrator privileges`
 * reads as `sudo sh -c …`), Terminal's `do script EXPR` (`«event coredosc»`), iTerm's `write text EXPR` and
 * `command EXPR`, and `run script EXPR` (read again as AppleScript). Text typed into whatever app has the
 * focus: System Events' `keystroke EXPR` (in script order, `key code 36`/`76` as Return) and text put on
 * the clipboard. Apps addressed: `application "X"`, `app "X"`, `application id "X"`, `process "X"`.
 *
 * EXPR is read statically: string literals (with the escapes \" \\ \n \t \r), `&`, parentheses, `quoted form
 * of`, `POSIX path of`, `as text`, the constants space/tab/return/linefeed/quote, lists, and variables set
 * from such expressions (`set x to …`, `copy … to x`, `property x : …`, `repeat with x in {…}`) anywhere in
 * the script: every value a variable is ever given counts, since the reading does not follow control flow.
 * A part only known when the script runs stands in the line as `"$APPLESCRIPT_VALUE"` and marks the site
 * partial; a site with nothing known (`do shell script someVar` of a handler's parameter) is `unknown`.
 */

export interface ShellSite {
  /** How the script runs it: "do shell script", "do script", "write text", "command", "keystroke", "the clipboard". */
  via: string;
  /** One command line it may run (a variable with several values gives one site per value). */
  line: string;
  /** Part of the line is only known when the script runs. */
  partial: boolean;
}

export interface AppleScriptReading {
  /** Shell command lines the script runs. */
  shell: ShellSite[];
  /** Text typed into the app with the keyboard focus (keystrokes joined in order) or put on the clipboard. */
  typed: ShellSite[];
  /** Shell code or typing whose text the reading cannot know (one line each, for a reason). */
  unknown: string[];
  /** Apps the script addresses by name or bundle id, as written. */
  apps: string[];
  /** System Events processes it addresses (`tell process "X"`), as written. */
  processes: string[];
  /** An app is addressed by a name only known when the script runs (`application someVar`). */
  dynamicApps: boolean;
  /** String literals with a letter and a space (commands often hide there; hard blocks scan them). */
  literals: string[];
}

/** Where a value only known at run time sits in a command line read from AppleScript. */
export const APPLESCRIPT_VALUE = '"$APPLESCRIPT_VALUE"';

const MAX_TOKENS = 50_000;
const MAX_VALUES = 16;
const MAX_SITES = 64;
const MAX_DEPTH = 3;

type Tok =
  | { t: 'str'; v: string }
  | { t: 'word'; v: string }
  | { t: 'sym'; v: string }
  | { t: 'raw'; v: string }
  | { t: 'nl'; v: '' };

function tokenize(src: string): Tok[] {
  const out: Tok[] = [];
  const n = src.length;
  let i = 0;
  const toLineEnd = () => {
    while (i < n && src[i] !== '\n' && src[i] !== '\r') i++;
  };
  while (i < n && out.length < MAX_TOKENS) {
    const c = src[i]!;
    if (c === '\n' || c === '\r' || c === '\u2028' || c === '\u2029') {
      if (out.at(-1)?.t !== 'nl') out.push({ t: 'nl', v: '' });
      i++;
    } else if (c === ' ' || c === '\t' || c === '\f' || c === '\v' || c === '\u00a0') {
      i++;
    } else if (c === '¬') {
      // A continuation: the statement goes on on the next line.
      i++;
      while (i < n && (src[i] === ' ' || src[i] === '\t')) i++;
      if (src[i] === '\r' && src[i + 1] === '\n') i += 2;
      else if (src[i] === '\n' || src[i] === '\r') i++;
    } else if ((c === '-' && src[i + 1] === '-') || c === '#') {
      toLineEnd();
    } else if (c === '(' && src[i + 1] === '*') {
      let depth = 0;
      while (i < n) {
        if (src[i] === '(' && src[i + 1] === '*') {
          depth++;
          i += 2;
        } else if (src[i] === '*' && src[i + 1] === ')') {
          depth--;
          i += 2;
          if (depth === 0) break;
        } else i++;
      }
    } else if (c === '"' || c === '“') {
      const close = c === '"' ? '"' : '”';
      let v = '';
      i++;
      while (i < n && src[i] !== close) {
        if (src[i] === '\\' && i + 1 < n) {
          const e = src[i + 1]!;
          v += e === 'n' ? '\n' : e === 't' ? '\t' : e === 'r' ? '\r' : e === '"' || e === '\\' ? e : `\\${e}`;
          i += 2;
        } else v += src[i++];
      }
      i++;
      out.push({ t: 'str', v });
    } else if (c === '«') {
      const end = src.indexOf('»', i + 1);
      const stop = end === -1 ? n : end;
      out.push({
        t: 'raw',
        v: src
          .slice(i + 1, stop)
          .trim()
          .replace(/\s+/g, ' ')
          .toLowerCase(),
      });
      i = stop + 1;
    } else if (c === '|') {
      const end = src.indexOf('|', i + 1);
      const stop = end === -1 ? n : end;
      out.push({ t: 'word', v: src.slice(i + 1, stop).toLowerCase() });
      i = stop + 1;
    } else if (/[\p{L}_]/u.test(c)) {
      let j = i + 1;
      while (j < n && /[\p{L}\p{N}_]/u.test(src[j]!)) j++;
      out.push({ t: 'word', v: src.slice(i, j).toLowerCase() });
      i = j;
    } else if (/[0-9]/.test(c)) {
      let j = i + 1;
      while (j < n && /[0-9.]/.test(src[j]!)) j++;
      out.push({ t: 'word', v: src.slice(i, j) });
      i = j;
    } else {
      out.push({ t: 'sym', v: c });
      i++;
    }
  }
  return out;
}

interface Val {
  values: string[];
  /** Some part is only known at run time. */
  partial: boolean;
  /** Some literal text took part (a value that is only placeholders says nothing). */
  known: boolean;
}

const UNKNOWN: Val = { values: [APPLESCRIPT_VALUE], partial: true, known: false };
const lit = (v: string): Val => ({ values: [v], partial: false, known: true });

const CONSTANTS: Readonly<Record<string, string>> = { space: ' ', tab: '\t', return: '\r', linefeed: '\n', quote: '"' };

/** Words that end an operand of do shell script & co. (its parameters, a tell's `to`, a block's `then`). */
const STOP_WORDS = new Set([
  'with',
  'without',
  'given',
  'in',
  'using',
  'user',
  'password',
  'altering',
  'administrator',
  'to',
  'then',
  'of',
  'into',
  'from',
  'and',
  'or',
]);

function concat(a: Val, b: Val): Val {
  const values: string[] = [];
  let partial = a.partial || b.partial;
  for (const x of a.values) {
    for (const y of b.values) {
      if (values.length >= MAX_VALUES) {
        partial = true;
        break;
      }
      values.push(x + y);
    }
  }
  return { values, partial, known: a.known || b.known };
}

function union(vals: Val[]): Val {
  if (vals.length === 0) return UNKNOWN;
  const values = [...new Set(vals.flatMap((v) => v.values))];
  return {
    values: values.slice(0, MAX_VALUES),
    partial: vals.some((v) => v.partial) || values.length > MAX_VALUES,
    known: vals.some((v) => v.known),
  };
}

/** A value as AppleScript's `quoted form of` gives it to a shell. */
const quotedForm = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

class Reader {
  readonly toks: Tok[];
  /** Variable → token indexes of the expressions assigned to it. */
  readonly assigned = new Map<string, number[]>();
  readonly result: AppleScriptReading;
  /** Operands left to read: variables set from each other could otherwise take exponential time. */
  #budget = 20_000;

  constructor(
    src: string,
    readonly depth: number,
    into?: AppleScriptReading,
  ) {
    this.toks = tokenize(src);
    this.result = into ?? {
      shell: [],
      typed: [],
      unknown: [],
      apps: [],
      processes: [],
      dynamicApps: false,
      literals: [],
    };
  }

  word(i: number, ...words: string[]): boolean {
    return words.every((w, k) => {
      const t = this.toks[i + k];
      return t?.t === 'word' && t.v === w;
    });
  }

  sym(i: number, s: string): boolean {
    const t = this.toks[i];
    return t?.t === 'sym' && t.v === s;
  }

  /** First pass: what each variable is set to. */
  collectAssignments(): void {
    const add = (name: string, at: number) => {
      const list = this.assigned.get(name) ?? [];
      if (list.length < 16) list.push(at);
      this.assigned.set(name, list);
    };
    for (let i = 0; i < this.toks.length; i++) {
      const t = this.toks[i]!;
      if (t.t !== 'word') continue;
      if (t.v === 'set') {
        let j = i + 1;
        if (this.word(j, 'the') || this.word(j, 'my')) j++;
        const name = this.toks[j];
        if (name?.t === 'word' && name.v !== 'clipboard' && this.word(j + 1, 'to')) add(name.v, j + 2);
      } else if ((t.v === 'property' || t.v === 'prop') && this.toks[i + 1]?.t === 'word' && this.sym(i + 2, ':')) {
        add((this.toks[i + 1] as { v: string }).v, i + 3);
      } else if (t.v === 'copy') {
        const end = this.expr(i + 1, new Set(), false).end;
        const name = this.toks[end + 1];
        if (this.word(end, 'to') && name?.t === 'word') add(name.v, i + 1);
      } else if (this.word(i, 'repeat', 'with') && this.toks[i + 2]?.t === 'word' && this.word(i + 3, 'in')) {
        add((this.toks[i + 2] as { v: string }).v, i + 4);
      }
    }
  }

  /** An expression: operands joined by `&`. */
  expr(i: number, seen: Set<string>, evaluate = true): { val: Val; end: number } {
    let { val, end } = this.term(i, seen, evaluate);
    while (this.sym(end, '&')) {
      const next = this.term(end + 1, seen, evaluate);
      val = concat(val, next.val);
      end = next.end;
    }
    return { val, end };
  }

  term(i: number, seen: Set<string>, evaluate: boolean): { val: Val; end: number } {
    while (this.word(i, 'the') || this.word(i, 'my')) i++;
    const t = this.toks[i];
    if (!t || t.t === 'nl') return { val: UNKNOWN, end: i };
    if (--this.#budget < 0) evaluate = false;
    let out: { val: Val; end: number };
    if (t.t === 'str') out = { val: lit(t.v), end: i + 1 };
    else if (this.sym(i, '(')) {
      const inner = this.expr(i + 1, seen, evaluate);
      out = { val: inner.val, end: this.sym(inner.end, ')') ? inner.end + 1 : inner.end };
    } else if (this.sym(i, '{')) {
      const items: Val[] = [];
      let j = i + 1;
      while (j < this.toks.length && !this.sym(j, '}') && this.toks[j]?.t !== 'nl') {
        const item = this.expr(j, seen, evaluate);
        items.push(item.val);
        j = item.end;
        if (this.sym(j, ',')) j++;
        else if (!this.sym(j, '}')) break;
      }
      out = { val: union(items), end: this.sym(j, '}') ? j + 1 : j };
    } else if (this.word(i, 'quoted', 'form', 'of')) {
      const inner = this.term(i + 3, seen, evaluate);
      out = {
        val: inner.val.partial ? UNKNOWN : { ...inner.val, values: inner.val.values.map(quotedForm) },
        end: inner.end,
      };
    } else if (this.word(i, 'posix', 'path', 'of')) {
      out = this.term(i + 3, seen, evaluate);
    } else if (this.word(i, 'posix', 'file')) {
      out = this.term(i + 2, seen, evaluate);
    } else if (this.word(i, 'item') && this.toks[i + 1]?.t === 'word' && this.word(i + 2, 'of')) {
      out = this.term(i + 3, seen, evaluate);
    } else if (t.t === 'word' && Object.hasOwn(CONSTANTS, t.v)) {
      out = { val: lit(CONSTANTS[t.v]!), end: i + 1 };
    } else if (t.t === 'word' && this.assigned.has(t.v) && !STOP_WORDS.has(t.v)) {
      if (!evaluate || seen.has(t.v)) out = { val: UNKNOWN, end: i + 1 };
      else {
        const inner = new Set(seen).add(t.v);
        out = { val: union(this.assigned.get(t.v)!.map((at) => this.expr(at, inner).val)), end: i + 1 };
      }
    } else {
      // Something only known when the script runs (a handler's result, `text returned of …`): skip the
      // rest of this operand — up to `&`, the end of the line, a closing bracket or a parameter word.
      let j = i;
      let depth = 0;
      while (j < this.toks.length) {
        const u = this.toks[j]!;
        if (u.t === 'nl') break;
        if (u.t === 'sym' && (u.v === '(' || u.v === '{')) depth++;
        else if (u.t === 'sym' && (u.v === ')' || u.v === '}')) {
          if (depth === 0) break;
          depth--;
        } else if (depth === 0 && u.t === 'sym' && (u.v === '&' || u.v === ',')) break;
        else if (depth === 0 && j > i && u.t === 'word' && STOP_WORDS.has(u.v) && u.v !== 'of') break;
        j++;
      }
      out = { val: UNKNOWN, end: Math.max(j, i + 1) };
    }
    // `… as text`, `… as Unicode text`, `… as «class utf8»`.
    if (this.word(out.end, 'as')) {
      out = { ...out, end: out.end + 2 };
      if (this.word(out.end, 'text')) out.end++;
    }
    return out;
  }

  /** Adds the sites of one expression's values. */
  site(list: ShellSite[], via: string, at: number, wrap: (line: string) => string = (l) => l): Val {
    const { val } = this.expr(at, new Set());
    if (!val.known) {
      this.note(`\`${via}\` of text only known when the script runs`);
      return val;
    }
    for (const v of val.values)
      if (list.length < MAX_SITES && v.trim()) list.push({ via, line: wrap(v), partial: val.partial });
    return val;
  }

  note(what: string): void {
    if (this.result.unknown.length < 16 && !this.result.unknown.includes(what)) this.result.unknown.push(what);
  }

  /** Words up to the end of the statement (its parameters). */
  restOfLine(from: number): string[] {
    const words: string[] = [];
    for (let j = from; j < this.toks.length && this.toks[j]!.t !== 'nl'; j++) {
      const t = this.toks[j]!;
      if (t.t === 'word') words.push(t.v);
    }
    return words;
  }

  read(): AppleScriptReading {
    this.collectAssignments();
    const r = this.result;
    let typing = '';
    let typingPartial = false;
    for (let i = 0; i < this.toks.length; i++) {
      const t = this.toks[i]!;
      if (t.t === 'str') {
        if (/\p{L}/u.test(t.v) && /\s/.test(t.v) && r.literals.length < 64) r.literals.push(t.v);
        continue;
      }
      if (t.t === 'raw') {
        if (t.v === 'event sysoexec') this.shellScript(i + 1);
        else if (t.v === 'event coredosc') this.site(r.shell, 'do script', i + 1);
        else if (t.v.startsWith('event ')) this.note(`the raw Apple event «${t.v}»`);
        continue;
      }
      if (t.t !== 'word') continue;
      if (this.word(i, 'do', 'shell', 'script')) {
        this.shellScript(i + 3);
        i += 2;
      } else if (this.word(i, 'do', 'script')) {
        this.site(r.shell, 'do script', i + 2);
        i++;
      } else if (this.word(i, 'write', 'text')) {
        this.site(r.shell, 'write text', i + 2);
        i++;
      } else if (t.v === 'command' && (this.toks[i + 1]?.t === 'str' || this.sym(i + 1, '('))) {
        this.site(r.shell, 'command', i + 1);
      } else if (t.v === 'keystroke') {
        const { val, end } = this.expr(i + 1, new Set());
        // `keystroke "v" using command down` is a shortcut (a paste), not text; clipboard text is judged itself.
        if (this.restOfLine(end).includes('using')) continue;
        if (!val.known) {
          this.note('`keystroke` of text only known when the script runs');
          typingPartial = true;
          typing += APPLESCRIPT_VALUE;
        } else {
          typing += val.values[0] ?? '';
          typingPartial ||= val.partial || val.values.length > 1;
          for (const v of val.values.slice(1))
            if (r.typed.length < MAX_SITES) r.typed.push({ via: 'keystroke', line: v, partial: val.partial });
        }
      } else if (this.word(i, 'key', 'code')) {
        const code = this.toks[i + 2];
        if (code?.t === 'word' && (code.v === '36' || code.v === '76') && !this.restOfLine(i + 3).includes('using'))
          typing += '\n';
      } else if (t.v === 'set' && (this.word(i + 1, 'the', 'clipboard', 'to') || this.word(i + 1, 'clipboard', 'to'))) {
        this.site(r.typed, 'the clipboard', this.word(i + 1, 'the') ? i + 4 : i + 3);
      } else if (this.word(i, 'run', 'script')) {
        const { val, end } = this.expr(i + 2, new Set());
        const otherLanguage = this.word(end, 'in');
        if (!val.known || val.partial) this.note('`run script` of code only known when the script runs');
        else if (otherLanguage) {
          this.note('`run script` of code in another language');
          for (const v of val.values) if (r.literals.length < 64) r.literals.push(v);
        } else if (this.depth < MAX_DEPTH) for (const v of val.values) new Reader(v, this.depth + 1, r).read();
        else this.note('`run script` nested too deeply to read');
      } else if (this.word(i, 'load', 'script')) {
        this.note('`load script` runs a compiled script Rein cannot read');
      } else if (t.v === 'application' || t.v === 'app') {
        const next = this.toks[i + 1];
        if (next?.t === 'str') r.apps.push(next.v);
        else if (this.word(i + 1, 'id') && this.toks[i + 2]?.t === 'str')
          r.apps.push((this.toks[i + 2] as { v: string }).v);
        else if (this.word(i + 1, 'process') && this.toks[i + 2]?.t === 'str')
          r.processes.push((this.toks[i + 2] as { v: string }).v);
        else if (this.sym(i + 1, '(') || (next?.t === 'word' && this.assigned.has(next.v))) {
          const { val } = this.expr(i + 1, new Set());
          if (val.partial || !val.known) r.dynamicApps = true;
          for (const v of val.values) if (v !== APPLESCRIPT_VALUE) r.apps.push(v);
        }
      } else if (t.v === 'process' && this.toks[i + 1]?.t === 'str') {
        r.processes.push((this.toks[i + 1] as { v: string }).v);
      }
    }
    if (typing.trim())
      r.typed.unshift({ via: 'keystroke', line: typing.replace(/\r\n?/g, '\n'), partial: typingPartial });
    return r;
  }

  shellScript(at: number): void {
    // `with administrator privileges` runs the command as root, as `sudo` would.
    const { end } = this.expr(at, new Set());
    const rest = this.restOfLine(end).join(' ');
    const admin = /\bwith administrator privileges\b|\badministrator privileges true\b/.test(rest);
    this.site(this.result.shell, 'do shell script', at, admin ? (l) => `sudo sh -c ${quotedForm(l)}` : undefined);
  }
}

/** What an AppleScript would run in a shell, type, and address (see the top of this file). */
export function readAppleScript(script: string): AppleScriptReading {
  return new Reader(script, 0).read();
}

/** The command lines an AppleScript runs or types, for the hard-block scan of `osascript -e CODE`. */
export function appleScriptCommands(script: string): string[] {
  if (!/do\s+(shell\s+)?script|write\s+text|command|keystroke|clipboard|run\s+script|«/i.test(script)) return [];
  const r = readAppleScript(script);
  return [...r.shell, ...r.typed].map((s) => s.line).slice(0, 24);
}
