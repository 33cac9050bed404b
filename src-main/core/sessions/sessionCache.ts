/**
 * The sessions this process wrote last, with the stamp of the file it wrote. A route's next message
 * continues the session its last run saved; with this the load is a `stat` instead of a read queued
 * behind other runs' fsyncs. Any other writer (a CLI run, a restored backup) changes the stamp, and the
 * load reads the file as usual. Bounded by total bytes, oldest out.
 *
 * Two forms per file:
 *  - the bytes of the last save, kept as a Buffer: its contents live outside the JavaScript heap, so the
 *    young-generation collector (which copies every surviving string) does not move them again and
 *    again under load. A load parses them.
 *  - the session object that save wrote, once the run that used it has ended and released it. The next
 *    load takes it (nothing is parsed, and no fresh copy of the history has to survive collections);
 *    a second load meanwhile finds none and parses the bytes. Ownership is handed over, never shared:
 *    the cache holds the object only between a release and a load, and only while it is, field for
 *    field, what that save wrote (`SavedForm`), checked when released and again when taken.
 * A held object counts toward the size bound as many bytes again as its save wrote.
 *
 * A session too large for the bound (a long one: tens of megabytes) keeps neither: its entry holds only
 * the stamp and, once released, a weak reference to the object. The process holds no copy of it between
 * runs, yet while the collector has not taken the object back the next load takes it as above — the
 * same checks — instead of reading a second copy into a heap that still holds the first. Once
 * collected, the next load reads the file.
 */
import { stampOf } from '../util/stampCache.js';
import { SESSION_FILE_KEYS, type SessionFile } from './types.js';
import { unchangedSinceCheck } from './validatedHistory.js';

/** What a save wrote, in a form cheap to compare with the object it was written from. */
export interface SavedForm {
  /** The very history arrays written (the save wrote them as they are, no item copied) and their lengths. */
  messages: readonly unknown[];
  messageCount: number;
  meta: readonly unknown[];
  metaCount: number;
  /** `envelopeText` of what was written. */
  envelope: string;
  /** The save check (validatedHistory.ts) that found every item valid, at its index. */
  check: number;
}

/**
 * Every field but the history, as JSON, top-level fields in the schema's order (where a load's parse
 * puts them) so that key order alone never tells two equal envelopes apart. Small: ids, times, usage,
 * context state, the compaction checkpoint.
 */
export function envelopeText(s: SessionFile): string {
  const src = s as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of SESSION_FILE_KEYS) if (Object.hasOwn(src, k)) out[k] = src[k];
  for (const k of Object.keys(src)) if (!Object.hasOwn(out, k)) out[k] = src[k];
  delete out.messages;
  delete out.message_meta;
  return JSON.stringify(out);
}

/** Whether `s` is exactly what the save described by `saved` wrote. */
export function isAsSaved(s: SessionFile, saved: SavedForm): boolean {
  return (
    s.messages === saved.messages &&
    s.messages.length === saved.messageCount &&
    s.message_meta === saved.meta &&
    s.message_meta.length === saved.metaCount &&
    unchangedSinceCheck(s, saved.check) &&
    sameEnvelope(s, saved.envelope)
  );
}

function sameEnvelope(s: SessionFile, envelope: string): boolean {
  try {
    return envelopeText(s) === envelope;
  } catch {
    // A value JSON cannot hold (a BigInt, a cycle) was put in since the save: not what it wrote.
    return false;
  }
}

interface Entry {
  stamp: string;
  /** Absent for a file too large to keep. */
  bytes: Buffer | undefined;
  /** The object of the last save, if it may be handed over. */
  saved: SavedForm | undefined;
  /** That object, released by its run and not yet taken. */
  held: SessionFile | undefined;
  /** A file too large to keep: that object, released, for as long as the collector leaves it. */
  weak: WeakRef<SessionFile> | undefined;
}

/**
 * The save of a weakly held object, held as long as the object is (an entry holding it would keep its
 * whole history alive through `SavedForm.messages`).
 */
const weakSaves = new WeakMap<SessionFile, SavedForm>();

/** Entries of files too large to keep, most recent first: a few stamps, never their contents. */
const MAX_WEAK_ENTRIES = 8;

export class SessionCache {
  readonly #entries = new Map<string, Entry>();
  readonly #maxBytes: number;
  #bytes = 0;

  constructor(maxBytes = 32 * 1024 * 1024) {
    this.#maxBytes = maxBytes;
  }

  /**
   * The most bytes one file may have to be kept. Of a larger session neither its bytes nor its object
   * are kept: only a weak reference to the object, once released (see above).
   */
  get entryLimit(): number {
    return Math.floor(this.#maxBytes / 4);
  }

  /**
   * Called right after the file was written with `data` (UTF-8 bytes, or the text they encode; undefined
   * when they were more than `entryLimit`). With `saved`, the object written may be handed over once
   * released. Drops whatever an earlier save left.
   */
  remember(file: string, data: Uint8Array | string | undefined, saved?: SavedForm): void {
    this.forget(file);
    const bytes =
      data === undefined
        ? undefined
        : typeof data === 'string'
          ? Buffer.from(data, 'utf8')
          : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    if (bytes === undefined || bytes.byteLength > this.entryLimit) {
      this.#entries.set(file, { stamp: stampOf([file]), bytes: undefined, saved, held: undefined, weak: undefined });
      this.#evict();
      return;
    }
    this.#entries.set(file, { stamp: stampOf([file]), bytes, saved, held: undefined, weak: undefined });
    this.#bytes += bytes.byteLength;
    this.#evict();
  }

  /**
   * Whether the next save of `file` should gather its bytes for `remember`: not when its last save here
   * wrote more than `entryLimit` (sessions rarely shrink), so a long session's saves copy nothing.
   */
  wantsBytes(file: string): boolean {
    const hit = this.#entries.get(file);
    return hit === undefined || hit.bytes !== undefined;
  }

  /** The text last written to `file`, if the file on disk is still that write. */
  recall(file: string): string | undefined {
    const hit = this.#current(file);
    if (!hit?.bytes) return undefined;
    this.#touch(file, hit);
    return hit.bytes.toString('utf8');
  }

  /**
   * The run that used `s` (loaded from or saved to `file`) has ended and will not touch it again. Kept
   * for the next load if it is exactly what the last save of `file` wrote and the file is still that
   * write; otherwise only the bytes stay.
   */
  release(file: string, s: SessionFile): void {
    const hit = this.#current(file);
    if (!hit?.saved || hit.held !== undefined) return;
    if (!isAsSaved(s, hit.saved)) {
      // Changed since: no later release of it can be what the save wrote either.
      hit.saved = undefined;
      return;
    }
    if (!hit.bytes) {
      weakSaves.set(s, hit.saved);
      hit.weak = new WeakRef(s);
      hit.saved = undefined;
      this.#touch(file, hit);
      return;
    }
    hit.held = s;
    this.#bytes += hit.bytes.byteLength;
    this.#touch(file, hit);
    this.#evict();
  }

  /** The released object of `file`'s last save, now the caller's; undefined when there is none. */
  take(file: string): SessionFile | undefined {
    const hit = this.#current(file);
    if (hit?.weak) return this.#takeWeak(file, hit, hit.weak);
    const s = hit?.held;
    if (!hit?.bytes || !s) return undefined;
    hit.held = undefined;
    this.#bytes -= hit.bytes.byteLength;
    // Checked again: whoever released it might have held on to it after all.
    if (!hit.saved || !isAsSaved(s, hit.saved)) {
      hit.saved = undefined;
      return undefined;
    }
    this.#touch(file, hit);
    return s;
  }

  #takeWeak(file: string, hit: Entry, weak: WeakRef<SessionFile>): SessionFile | undefined {
    hit.weak = undefined;
    const s = weak.deref();
    const saved = s && weakSaves.get(s);
    if (!s || !saved) return undefined;
    weakSaves.delete(s);
    if (!isAsSaved(s, saved)) return undefined;
    // The caller's now, and again what the last save wrote: a release without a save holds it again.
    hit.saved = saved;
    this.#touch(file, hit);
    return s;
  }

  /** Drops the bytes and any object of `file`. */
  forget(file: string): void {
    const old = this.#entries.get(file);
    if (!old) return;
    this.#entries.delete(file);
    this.#bytes -= this.#size(old);
  }

  /** The entry of `file` if the file on disk is still its write; a stale entry is dropped. */
  #current(file: string): Entry | undefined {
    const hit = this.#entries.get(file);
    if (!hit) return undefined;
    if (stampOf([file]) !== hit.stamp) {
      this.forget(file);
      return undefined;
    }
    return hit;
  }

  /** Most recently used last: eviction goes from the front. */
  #touch(file: string, hit: Entry): void {
    this.#entries.delete(file);
    this.#entries.set(file, hit);
  }

  #size(e: Entry): number {
    if (!e.bytes) return 0;
    return e.held === undefined ? e.bytes.byteLength : 2 * e.bytes.byteLength;
  }

  #evict(): void {
    let weak = 0;
    for (const v of this.#entries.values()) if (!v.bytes) weak++;
    for (const [k, v] of this.#entries) {
      if (this.#bytes <= this.#maxBytes && weak <= MAX_WEAK_ENTRIES) break;
      if (v.bytes ? this.#bytes <= this.#maxBytes : weak <= MAX_WEAK_ENTRIES) continue;
      this.#entries.delete(k);
      this.#bytes -= this.#size(v);
      if (!v.bytes) weak--;
    }
  }
}
