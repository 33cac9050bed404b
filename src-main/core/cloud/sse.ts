/**
 * An incremental parser for `text/event-stream` (the WHATWG server-sent events format), for the
 * gateway's task streams. Bytes go in as they arrive, in chunks cut anywhere (inside a line, inside a
 * UTF-8 sequence, between the CR and LF of a line end); whole events come out.
 *
 * - Lines end with CRLF, LF or CR. A UTF-8 BOM at the very start is skipped.
 * - `event`, `data`, `id` and `retry` are the fields; a line starting with `:` is a comment (keep-alive);
 *   a line without `:` is a field with an empty value; one space after the colon is dropped.
 * - Several `data` lines join with `\n`. A blank line dispatches the event; an event without data is not
 *   dispatched (its `id` still counts as the last event id, as the standard says).
 * - `id` containing NUL is ignored; `retry` is taken only when it is all digits.
 * - A line longer than `maxLineBytes` (4 MiB, as the reference client) is an error: the stream is not
 *   what it claims to be, and buffering it would take the memory.
 */

export interface SseEvent {
  /** `message` when the event named none. */
  event: string;
  data: string;
  /** The last event id seen on the stream so far (this event's own, or an earlier one). */
  id: string | undefined;
  /** The reconnection time the server asked for, when this event carried one. */
  retry?: number;
}

export const SSE_MAX_LINE_BYTES = 4 * 1024 * 1024;

export class SseLineTooLongError extends Error {
  constructor(limit: number) {
    super(`an event-stream line is longer than ${limit} bytes`);
    this.name = 'SseLineTooLongError';
  }
}

export class SseParser {
  readonly #decoder = new TextDecoder('utf-8');
  readonly #maxLine: number;
  #buffer = '';
  #started = false;
  /** The previous chunk ended with CR: an LF at the start of the next one belongs to it. */
  #pendingCr = false;
  #event = '';
  #data: string[] = [];
  #hasData = false;
  #retry: number | undefined;
  /** The stream's last event id (persists across events, as EventSource's does). */
  lastEventId: string | undefined;
  /** The last `retry` the server sent, in milliseconds. */
  retry: number | undefined;

  constructor(opts: { maxLineBytes?: number; lastEventId?: string } = {}) {
    this.#maxLine = opts.maxLineBytes ?? SSE_MAX_LINE_BYTES;
    this.lastEventId = opts.lastEventId;
  }

  /** Feeds bytes (or text) and returns the events they completed. */
  push(chunk: Uint8Array | string): SseEvent[] {
    let text = typeof chunk === 'string' ? chunk : this.#decoder.decode(chunk, { stream: true });
    if (!this.#started && text.length > 0) {
      this.#started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (this.#pendingCr && text.startsWith('\n')) text = text.slice(1);
    this.#pendingCr = false;
    this.#buffer += text;
    const out: SseEvent[] = [];
    let start = 0;
    for (;;) {
      const cr = this.#buffer.indexOf('\r', start);
      const lf = this.#buffer.indexOf('\n', start);
      const end = cr === -1 ? lf : lf === -1 ? cr : Math.min(cr, lf);
      if (end === -1) break;
      const line = this.#buffer.slice(start, end);
      if (this.#buffer[end] === '\r') {
        if (end + 1 === this.#buffer.length) {
          this.#pendingCr = true;
          start = end + 1;
        } else start = this.#buffer[end + 1] === '\n' ? end + 2 : end + 1;
      } else start = end + 1;
      const ev = this.#line(line);
      if (ev) out.push(ev);
    }
    this.#buffer = this.#buffer.slice(start);
    // Characters, not bytes: a cheap bound that is at least as strict for anything but pure ASCII.
    if (this.#buffer.length > this.#maxLine) throw new SseLineTooLongError(this.#maxLine);
    return out;
  }

  /** The stream ended: a last event without its blank line is dropped, as the standard says. */
  end(): void {
    this.#buffer = '';
    this.#resetEvent();
  }

  #line(line: string): SseEvent | undefined {
    if (line.length > this.#maxLine) throw new SseLineTooLongError(this.#maxLine);
    if (line === '') return this.#dispatch();
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'event':
        this.#event = value;
        break;
      case 'data':
        this.#data.push(value);
        this.#hasData = true;
        break;
      case 'id':
        if (!value.includes('\u0000')) this.lastEventId = value;
        break;
      case 'retry':
        if (/^[0-9]+$/.test(value)) {
          this.#retry = Number(value);
          this.retry = this.#retry;
        }
        break;
      default:
        break;
    }
    return undefined;
  }

  #dispatch(): SseEvent | undefined {
    if (!this.#hasData) {
      this.#resetEvent();
      return undefined;
    }
    const ev: SseEvent = {
      event: this.#event || 'message',
      data: this.#data.join('\n'),
      id: this.lastEventId,
      ...(this.#retry !== undefined ? { retry: this.#retry } : {}),
    };
    this.#resetEvent();
    return ev;
  }

  #resetEvent(): void {
    this.#event = '';
    this.#data = [];
    this.#hasData = false;
    this.#retry = undefined;
  }
}
