/**
 * The writing half of the search index's pending notes (search/pendingIndex.ts takes them): a run that
 * saves a session appends one line naming it to `<home>/rein.db.pending`, so whatever opens the index next
 * indexes it. Here, beside the session store, because every process that saves sessions writes notes —
 * the runtime, the heartbeat alerts, the CLI — and none of them may load the search area (SQLite).
 */
import { appendFile, open, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { AGENT_NAME_PATTERN } from '../api/patterns.js';
import { describeWriteError } from '../util/diskErrors.js';
import { isSessionId } from './id.js';

/** Beside the index (`rein.db`, search/sessionIndex.ts), which this module must not import: it loads SQLite. */
export const PENDING_FILE_NAME = 'rein.db.pending';

export const pendingFile = (home: string): string => join(home, PENDING_FILE_NAME);

export const PendingNote = z.strictObject({
  agent: z.string().regex(AGENT_NAME_PATTERN),
  id: z.string().refine(isSessionId, 'not a session id'),
});
export type PendingNote = z.infer<typeof PendingNote>;

/** Notes that `agent`'s session `id` is to be indexed: one append, no database. */
export async function notePendingIndex(home: string, note: PendingNote): Promise<void> {
  const line = JSON.stringify(PendingNote.parse(note));
  // One write of a short line with O_APPEND: lines of processes appending at once never interleave.
  const file = pendingFile(home);
  try {
    await appendFile(file, `${line}\n`, { mode: 0o600 });
  } catch (e) {
    throw describeWriteError(e, file);
  }
}

/**
 * The pending file this process last appended to (device, inode and birth time: a new file may get the
 * inode number of the one a taker just deleted) with its size then, and the sessions it noted there, per
 * home. A taker renames the file away, so another identity, no file or a smaller one means the notes were
 * taken: the next save of each session notes it again.
 */
const notedHere = new Map<string, { file: string; size: bigint; keys: Set<string> }>();

const identity = (s: { dev: bigint; ino: bigint; birthtimeNs: bigint }) => `${s.dev}:${s.ino}:${s.birthtimeNs}`;

/**
 * Notes a session its run has just saved: an append the first time this process saves it and again
 * after the notes were taken (else one stat). Saves in between need none: whoever takes the note reads
 * the session's file as it is then. Call it after each save, not before: a taker that renamed the notes
 * before this stat reads the session's file after the save.
 */
export async function noteSavedSession(home: string, note: PendingNote): Promise<void> {
  const file = pendingFile(home);
  const key = `${note.agent}\0${note.id}`;
  const known = notedHere.get(home);
  if (known?.keys.has(key)) {
    const still = await stat(file, { bigint: true }).then(
      (s) => identity(s) === known.file && s.size >= known.size,
      () => false,
    );
    if (still) return;
  }
  const line = `${JSON.stringify(PendingNote.parse(note))}\n`;
  // One write of a short line with O_APPEND: lines of processes appending at once never interleave.
  const fh = await open(file, 'a', 0o600).catch((e: unknown) => {
    throw describeWriteError(e, file);
  });
  try {
    // A full disk says which file (util/diskErrors.ts).
    await fh.write(line).catch((e: unknown) => {
      throw describeWriteError(e, file);
    });
    const s = await fh.stat({ bigint: true });
    const current = notedHere.get(home);
    if (current?.file === identity(s)) {
      current.keys.add(key);
      current.size = s.size;
    } else notedHere.set(home, { file: identity(s), size: s.size, keys: new Set([key]) });
  } finally {
    await fh.close();
  }
}
