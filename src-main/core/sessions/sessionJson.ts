/**
 * A session file's text, read and written a message at a time. The file stays one plain JSON document
 * (docs/sessions.md: other programs read it with any JSON parser), but a long session's file is tens of
 * megabytes, and the whole-text way — the file as one buffer and one string, `JSON.parse` of it,
 * `JSON.stringify` of the whole session for every save, that string encoded again — holds two or three
 * extra copies of the history at once (and a string with a single character outside Latin-1 takes two
 * bytes a character).
 *
 *  - `readSessionFile(file)` gives what `JSON.parse` of a large file's text gives, reading the file a
 *    megabyte at a time and parsing its `messages` array one element at a time: nothing of the whole
 *    file is ever held. A file it cannot read so (small, not shaped like a session, not UTF-8, not
 *    JSON) it gives as its bytes, for the caller's whole-text parse, whose result or error then stands.
 *  - `sessionJsonPieces(data)` gives the exact text `JSON.stringify(data, null, 2) + '\n'` makes, as
 *    UTF-8 in pieces of a few hundred kilobytes; the messages in them are serialised when the writer
 *    asks for a piece, into one buffer used again for each (a piece is good until the next is asked for).
 */
import { isUtf8 } from 'node:buffer';
import { open, type FileHandle } from 'node:fs/promises';

/** Files smaller than this are left to the whole-text parse: it is cheaper, and their copies are small. */
export const PAGED_PARSE_FROM_BYTES = 1024 * 1024;
/** Bytes read at a time (more when one message is larger). */
export const READ_CHUNK_BYTES = 1024 * 1024;
/** About how many characters a written piece holds (one long message makes a piece larger). */
export const CHUNK_CHARS = 256 * 1024;

/**
 * The text of `JSON.stringify(data, null, 2) + '\n'`, as UTF-8 in pieces. Every top-level field but
 * `messages` is serialised now, in the call (so a value JSON cannot hold there throws here, before
 * anything is written), and the list of messages is taken as it is now; the messages themselves are
 * serialised a few at a time as the pieces are asked for (one that JSON cannot hold throws from the
 * piece that holds it).
 */
export function sessionJsonPieces(data: object, chunkChars = CHUNK_CHARS): Iterable<Buffer> {
  const messages = (data as { messages?: unknown }).messages;
  const history = Array.isArray(messages) && messages.length > 0;
  let head = `${JSON.stringify(history ? { ...data, messages: [] } : data, null, 2)}\n`;
  let items: readonly unknown[] = [];
  let tail = '';
  // `"messages": []` stands where the history goes. A line that starts with exactly two spaces and a
  // quote is a top-level field (nested ones are indented further, and no string holds a raw line
  // break), so the one such line for `messages` is where the text is cut.
  const at = history ? head.indexOf(MESSAGES_FIELD) : -1;
  if (at !== -1) {
    tail = `\n  ]${head.slice(at + MESSAGES_FIELD.length)}`;
    head = `${head.slice(0, at)}\n  "messages": [\n    `;
    items = (messages as unknown[]).slice();
  }
  // Each pass over it starts again from the first piece (a write that is tried again writes it all).
  return { [Symbol.iterator]: () => pieces(head, items, tail, chunkChars) };
}

const MESSAGES_FIELD = '\n  "messages": []';

function* pieces(head: string, items: readonly unknown[], tail: string, chunkChars: number): Generator<Buffer> {
  // Strings are gathered and encoded straight into one buffer, used again for every piece: no joined
  // copy of them, no string still referenced while a piece is written (one alive then would outlive
  // the young generation's collections and stay in the heap as garbage until a full collection), and
  // no buffer per piece left for the collector.
  let texts: string[] = [head];
  let chars = head.length;
  let out = Buffer.allocUnsafe(0);
  const encode = (): Buffer => {
    let size = 0;
    for (const t of texts) size += Buffer.byteLength(t, 'utf8');
    if (size > out.byteLength) out = Buffer.allocUnsafe(Math.max(size, Math.min(3 * chunkChars, 2 * out.byteLength)));
    let at = 0;
    for (const t of texts) at += out.write(t, at, 'utf8');
    texts = [];
    chars = 0;
    return out.subarray(0, size);
  };
  // Messages go a group at a time, as many as make about a quarter of a piece: a short history in one
  // call, a long one's large messages one by one.
  const aim = Math.max(1, chunkChars / 4);
  let group = 8;
  for (let i = 0; i < items.length;) {
    const n = Math.min(group, items.length - i);
    // The group at the depth the file has its elements (an array in the top-level object): the
    // wrapper's own lines, `[\n  [\n    ` and `\n  ]\n]`, are cut off. What JSON leaves out is `null`, as
    // in any array.
    const text = JSON.stringify([items.slice(i, i + n)], null, 2).slice(10, -6);
    texts.push(i === 0 ? text : `,\n    ${text}`);
    chars += text.length;
    i += n;
    group = text.length > aim ? Math.max(1, group >> 1) : text.length < aim / 2 ? Math.min(256, group * 2) : group;
    if (chars < chunkChars) continue;
    yield encode();
  }
  texts.push(tail);
  yield encode();
}

/**
 * The file's value, read a piece at a time with its `messages` parsed element by element; or, when the
 * file is smaller than `pagedFrom` or cannot be read so, its bytes: the caller parses their whole text,
 * and that parse's value or error (with its position) is the one that counts. Every byte read so goes
 * through a UTF-8 check and `JSON.parse` — the field names, the other fields (together, as one small
 * object), each element — and the scan checks the punctuation between them, so the two parses agree.
 * One open file throughout (a writer replacing the file meanwhile changes nothing of what is read);
 * errors opening or reading it are thrown as they are.
 */
export async function readSessionFile(
  file: string,
  opts: { pagedFrom?: number; chunkBytes?: number } = {},
): Promise<{ value: unknown } | { bytes: Buffer }> {
  const fh = await open(file, 'r');
  try {
    const { size } = await fh.stat();
    if (size >= (opts.pagedFrom ?? PAGED_PARSE_FROM_BYTES)) {
      const paged = await pagedParse(new Source(fh, opts.chunkBytes ?? READ_CHUNK_BYTES));
      if (paged) return paged;
    }
    return { bytes: await readWhole(fh, size) };
  } finally {
    await fh.close();
  }
}

/** The whole file from its start (whatever was read before), to its end. */
async function readWhole(fh: FileHandle, size: number): Promise<Buffer> {
  let buf = Buffer.allocUnsafe(Math.max(size, 1));
  let at = 0;
  for (;;) {
    if (at === buf.byteLength) {
      const grown = Buffer.allocUnsafe(buf.byteLength * 2);
      buf.copy(grown);
      buf = grown;
    }
    const { bytesRead } = await fh.read(buf, at, buf.byteLength - at, at);
    if (bytesRead === 0) return buf.subarray(0, at);
    at += bytesRead;
  }
}

/** Thrown by a scan that ran past the bytes read so far: read more and scan the same unit again. */
const NEED_MORE = Symbol('need more');
/** Thrown by a scan that found what is not a session file as this reader takes it. */
const NOT_PAGED = Symbol('not paged');
/** What the scan of an empty `messages` array finds. */
const NO_ELEMENT = Symbol('no element');

interface Bytes {
  b: Buffer;
  /** Nothing follows `b` in the file. */
  eof: boolean;
}

/**
 * The file as a window that moves forward one unit (a top-level field, a message) at a time; a unit
 * that does not fit yet is scanned again once more bytes are in (with at least as many read again as
 * the window holds, so a long message costs a few scans, not one per megabyte).
 */
class Source {
  readonly #fh: FileHandle;
  readonly #chunk: number;
  #bytes: Bytes = { b: Buffer.alloc(0), eof: false };
  #pos = 0;

  constructor(fh: FileHandle, chunk: number) {
    this.#fh = fh;
    this.#chunk = chunk;
  }

  /** Runs `scan` from where the last unit ended; it returns where its unit ends and what it found. */
  async unit<T>(scan: (s: Bytes, from: number) => [end: number, value: T]): Promise<T> {
    for (;;) {
      try {
        const [end, value] = scan(this.#bytes, this.#pos);
        this.#pos = end;
        return value;
      } catch (e) {
        if (e !== NEED_MORE) throw e;
        await this.#more();
      }
    }
  }

  async #more(): Promise<void> {
    const rest = this.#bytes.b.subarray(this.#pos);
    const want = Math.max(this.#chunk, rest.byteLength);
    const next = Buffer.allocUnsafe(rest.byteLength + want);
    rest.copy(next);
    const { bytesRead } = await this.#fh.read(next, rest.byteLength, want, null);
    this.#bytes = { b: next.subarray(0, rest.byteLength + bytesRead), eof: bytesRead === 0 };
    this.#pos = 0;
  }
}

type Step = 'field' | 'element' | 'first element' | 'end';

async function pagedParse(src: Source): Promise<{ value: unknown } | undefined> {
  const envelope: string[] = [];
  const messages: unknown[] = [];
  let sawMessages = false;
  try {
    let step: Step = await src.unit((s, p) => {
      const q = skipSpace(s, p);
      if (byteAt(s, q) !== 0x7b) throw NOT_PAGED; // {
      const r = skipSpace(s, q + 1);
      if (byteAt(s, r) === 0x7d) throw NOT_PAGED; // {}: no messages
      return [r, 'field'];
    });
    while (step !== 'end') {
      if (step === 'field') {
        // What a unit finds is kept only once the unit is whole: a scan run again must not add it twice.
        const [entry, next] = await src.unit((s, p): [number, [string, Step]] => {
          if (byteAt(s, p) !== QUOTE) throw NOT_PAGED;
          const keyEnd = skipString(s, p);
          const keyText = text(s, p, keyEnd);
          const q = skipSpace(s, keyEnd);
          if (byteAt(s, q) !== 0x3a) throw NOT_PAGED; // :
          const start = skipSpace(s, q + 1);
          if (JSON.parse(keyText) === 'messages' && byteAt(s, start) === 0x5b)
            return [start + 1, [`${keyText}:[]`, 'first element']];
          const end = skipValue(s, start);
          const [after, then] = afterMember(s, skipSpace(s, end));
          return [after, [`${keyText}:${text(s, start, end)}`, then]];
        });
        if (next === 'first element') {
          // Twice: the whole-text parse's last-one-wins decides.
          if (sawMessages) return undefined;
          sawMessages = true;
        }
        envelope.push(entry);
        step = next;
        continue;
      }
      const first = step === 'first element';
      const [element, next] = await src.unit((s, p): [number, [unknown, Step]] => {
        const q = skipSpace(s, p);
        if (first && byteAt(s, q) === 0x5d) {
          const [after, then] = afterMember(s, skipSpace(s, q + 1)); // []
          return [after, [NO_ELEMENT, then]];
        }
        const end = skipValue(s, q);
        if (end === q) throw NOT_PAGED;
        const r = skipSpace(s, end);
        const c = byteAt(s, r);
        let after: [number, Step];
        if (c === 0x2c) after = [skipSpace(s, r + 1), 'element'];
        else if (c === 0x5d)
          after = afterMember(s, skipSpace(s, r + 1)); // ]
        else throw NOT_PAGED;
        // Parsed once the punctuation after it is in: a long message is never parsed twice.
        return [after[0], [JSON.parse(text(s, q, end)) as unknown, after[1]]];
      });
      if (element !== NO_ELEMENT) messages.push(element);
      step = next;
    }
    // Only space after the closing brace, to the end of the file.
    await src.unit((s, p) => {
      if (peek(s, skipSpace(s, p)) !== -1) throw NOT_PAGED;
      return [p, undefined];
    });
    if (!sawMessages) return undefined;
    const value = JSON.parse(`{${envelope.join(',')}}`) as Record<string, unknown>;
    if (!Array.isArray(value.messages)) return undefined;
    value.messages = messages;
    return { value };
  } catch (e) {
    if (e === NOT_PAGED || e instanceof SyntaxError) return undefined;
    throw e;
  }
}

/** After a top-level member: `,` and the next field, or `}` and the end. */
function afterMember(s: Bytes, q: number): [number, Step] {
  const c = byteAt(s, q);
  if (c === 0x2c) return [skipSpace(s, q + 1), 'field'];
  if (c === 0x7d) return [q + 1, 'end'];
  throw NOT_PAGED;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** The byte at `i`; past the bytes read, more are needed (or, at the end of the file, it is cut short). */
function byteAt(s: Bytes, i: number): number {
  if (i < s.b.byteLength) return s.b[i]!;
  throw s.eof ? NOT_PAGED : NEED_MORE;
}

/** The byte at `i`, or -1 at the end of the file. */
function peek(s: Bytes, i: number): number {
  if (i < s.b.byteLength) return s.b[i]!;
  if (s.eof) return -1;
  throw NEED_MORE;
}

/** The text of bytes [start, end), which must be UTF-8 (else the whole-text reading says where not). */
function text(s: Bytes, start: number, end: number): string {
  const part = s.b.subarray(start, end);
  if (!isUtf8(part)) throw NOT_PAGED;
  return part.toString('utf8');
}

function skipSpace(s: Bytes, p: number): number {
  let q = p;
  for (let c = peek(s, q); c !== -1 && isSpace(c); c = peek(s, q)) q++;
  return q;
}

/** The index just past the string that opens at `p` (its closing quote is the first one not escaped). */
function skipString(s: Bytes, p: number): number {
  let q = p + 1;
  for (;;) {
    const close = s.b.indexOf(QUOTE, q);
    if (close === -1) throw s.eof ? NOT_PAGED : NEED_MORE;
    let slashes = 0;
    while (s.b[close - 1 - slashes] === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return close + 1;
    q = close + 1;
  }
}

/**
 * The index just past the value that starts at `p`: objects and arrays by their brackets (strings
 * skipped), anything else up to the next punctuation or space. Not a validation: the parse of the
 * slice is.
 */
function skipValue(s: Bytes, p: number): number {
  const c = byteAt(s, p);
  if (c === QUOTE) return skipString(s, p);
  if (c === 0x7b || c === 0x5b) {
    let depth = 0;
    let q = p;
    for (;;) {
      const b = byteAt(s, q);
      if (b === QUOTE) {
        q = skipString(s, q);
        continue;
      }
      if (b === 0x7b || b === 0x5b) depth++;
      else if (b === 0x7d || b === 0x5d) {
        depth--;
        if (depth === 0) return q + 1;
      }
      q++;
    }
  }
  let q = p;
  for (let b = peek(s, q); b !== -1 && b !== 0x2c && b !== 0x7d && b !== 0x5d && !isSpace(b); b = peek(s, q)) q++;
  return q;
}
