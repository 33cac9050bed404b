/**
 * What this session has seen of each file: the mtime and size at the last read (and which range), or the
 * state the session itself left after writing. file_write/file_edit compare against it to refuse edits from a
 * stale picture; file_read uses it to answer an identical re-read with a short stub.
 */
import { resolve } from 'node:path';
import type { ReadTracker } from './tool.js';

/**
 * Offset recorded for a state the session produced by writing. No read asks for a negative offset, so a
 * written file never matches file_read's "unchanged since" shortcut: the model has not seen it whole.
 */
export const WRITTEN_OFFSET = -1;

interface TrackedFile {
  mtimeMs: number;
  size: number;
  offset: number;
  limit: number | null;
  at: string;
}

export class SessionReadTracker implements ReadTracker {
  readonly #files = new Map<string, TrackedFile>();
  readonly #now: () => Date;

  constructor(now: () => Date = () => new Date()) {
    this.#now = now;
  }

  markRead(absPath: string, info: { mtimeMs: number; size: number; offset: number; limit: number | null }): void {
    this.#files.set(resolve(absPath), { ...info, at: this.#now().toISOString() });
  }

  lastRead(absPath: string): TrackedFile | undefined {
    const entry = this.#files.get(resolve(absPath));
    return entry ? { ...entry } : undefined;
  }

  invalidate(absPath: string): void {
    this.#files.delete(resolve(absPath));
  }

  markWritten(absPath: string, info: { mtimeMs: number; size: number }): void {
    this.#files.set(resolve(absPath), { ...info, offset: WRITTEN_OFFSET, limit: null, at: this.#now().toISOString() });
  }

  /**
   * After compaction the file contents read earlier are no longer in the context. Keep what the session knows
   * about each file's state (so edits need no re-read) but make the next read show the content again.
   */
  forgetShownContent(): void {
    for (const entry of this.#files.values()) {
      entry.offset = WRITTEN_OFFSET;
      entry.limit = null;
    }
  }

  /** Paths known to this session, for diagnostics and session summaries. */
  paths(): string[] {
    return [...this.#files.keys()].sort();
  }
}
