/**
 * Long command output is mostly noise in the middle: the start shows what ran, the end shows how it ended.
 * Keep both and say how much was dropped.
 */

export const truncationMarker = (dropped: number): string => `\n... (${dropped} chars truncated) ...\n`;

/** Keeps the first and last `limit / 2` characters of `text` when it is longer than `limit`. */
export function truncateMiddle(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const half = Math.floor(limit / 2);
  return text.slice(0, half) + truncationMarker(text.length - 2 * half) + text.slice(text.length - half);
}

/** Collects a stream of text in bounded memory: the head is kept as it arrives, the tail is a rolling window. */
export class HeadTailBuffer {
  readonly #half: number;
  #head = '';
  #tail = '';
  #total = 0;

  constructor(readonly limit: number) {
    this.#half = Math.floor(limit / 2);
  }

  push(chunk: string): void {
    if (chunk.length === 0) return;
    this.#total += chunk.length;
    let rest = chunk;
    if (this.#head.length < this.#half) {
      const room = this.#half - this.#head.length;
      this.#head += rest.slice(0, room);
      rest = rest.slice(room);
    }
    if (rest.length === 0) return;
    this.#tail += rest;
    // Trim lazily so a flood of small chunks does not re-slice on every push.
    if (this.#tail.length > 2 * this.#half + 4096)
      this.#tail = this.#tail.slice(-Math.max(this.#half, this.limit - this.#half));
  }

  get totalChars(): number {
    return this.#total;
  }

  get truncated(): boolean {
    return this.#total > this.limit;
  }

  toString(): string {
    if (!this.truncated) return this.#head + this.#tail;
    const tail = this.#tail.slice(-this.#half);
    return this.#head + truncationMarker(this.#total - this.#head.length - tail.length) + tail;
  }
}
