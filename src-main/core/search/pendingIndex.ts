/**
 * Sessions are not indexed by the processes that save them (`rein run`, a launchd schedule run, the
 * daemon and the app until something searched): as a run saves its session it appends one line naming
 * it to `<home>/rein.db.pending` (noteSavedSession, at the session's first save and again after the notes
 * were taken), and the next process that opens the index (a search, `rein sessions …`, the daemon or the
 * app before a search) indexes them first, reading each session's file as it is then. A run never loads
 * SQLite, and a search finds every run — finished, failed or killed at any moment after its first save.
 *
 * Taking the notes is crash-safe: the file is renamed (atomic) to a name of the taker's own before it is
 * read, and deleted only once its sessions are in the index; a taken file left by a taker that died is
 * taken again by the next one. Indexing a session twice changes nothing, so two takers at once are
 * harmless. The JSON files stay the truth: a lost note only delays a session until the index is next
 * opened, which checks the session folders for what the notes missed (SessionIndex.checkDisk).
 */
import { readFile, readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

import { PENDING_FILE_NAME, pendingFile, PendingNote } from '../sessions/indexNotes.js';

// The writing half lives beside the session store (sessions/indexNotes.ts): re-exported for the taker's callers.
export {
  notePendingIndex,
  noteSavedSession,
  PENDING_FILE_NAME,
  pendingFile,
  PendingNote,
} from '../sessions/indexNotes.js';

const TAKEN_MARK = '.taken-';

export interface TakenNotes {
  /** Each session once, in the order first noted. */
  notes: PendingNote[];
  /** Lines that were not a note (named by file and line), skipped. */
  skipped: string[];
  /** Deletes the taken files: call once the notes are indexed. */
  done(): Promise<void>;
}

/** Takes every pending note (and those a taker that died left behind). */
export async function takePendingNotes(home: string): Promise<TakenNotes> {
  const main = pendingFile(home);
  const mine = `${main}${TAKEN_MARK}${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  try {
    await rename(main, mine);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const prefix = `${PENDING_FILE_NAME}${TAKEN_MARK}`;
  let names: string[];
  try {
    names = (await readdir(dirname(main))).filter((n) => n.startsWith(prefix));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') names = [];
    else throw e;
  }
  const files = names.map((n) => join(dirname(main), n));
  const seen = new Set<string>();
  const notes: PendingNote[] = [];
  const skipped: string[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue; // another taker finished it
      throw e;
    }
    text.split('\n').forEach((line, i) => {
      if (line.trim() === '') return;
      let json: unknown;
      try {
        json = JSON.parse(line);
      } catch {
        json = undefined; // not JSON: not a note either
      }
      const parsed = PendingNote.safeParse(json);
      if (!parsed.success) {
        skipped.push(`${basename(file)}:${i + 1}`);
        return;
      }
      const key = `${parsed.data.agent}\0${parsed.data.id}`;
      if (seen.has(key)) return;
      seen.add(key);
      notes.push(parsed.data);
    });
  }
  return {
    notes,
    skipped,
    done: async () => {
      await Promise.all(files.map((f) => rm(f, { force: true })));
    },
  };
}
