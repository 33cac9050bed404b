/**
 * One folder of session files (`<dir>/<id>.json`, 2-space JSON, mode 0600, folder 0700). Files are
 * written atomically, validated on load and on save, and never modified by a failed load. Large tool
 * results of a session may be spilled into its side folder `<dir>/<id>/`.
 */
import { mkdir, open, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { ReinError, errorMessage, isReinError } from '../errors.js';
import { atomicWriteFile } from '../util/atomicWrite.js';
import { describeWriteError } from '../util/diskErrors.js';
import { describeIssues } from '../util/zodIssues.js';
import { isSessionId, newSessionId } from './id.js';
import { DEFAULT_SESSION_TITLE } from './title.js';
import {
  SessionFile,
  emptyUsage,
  type DamagedSessionSummary,
  type ListedSession,
  type SessionSummary,
} from './types.js';
import { checkSessionForSave, markValidated } from './validatedHistory.js';
import { envelopeText, type SavedForm, type SessionCache } from './sessionCache.js';
import { readSessionFile, sessionJsonPieces } from './sessionJson.js';
import { deadWritersTemps, settleLeftover, type LeftoverNote, type LeftoverTemp } from './leftovers.js';
import { lockSessionFile, sessionLockFile, type SessionLockOptions } from './sessionLock.js';
import { readLockOwner, type HeldLock } from '../util/ownedLock.js';

export interface SessionProblem {
  /** The file that was skipped. */
  file: string;
  error: ReinError;
}

export interface SessionStoreOptions {
  /**
   * Told about each file `list()` (and so `latest()`) had to skip because it could not be read or is
   * not a valid session. Without it such files are skipped silently; `load()` always throws instead.
   */
  onProblem?: (problem: SessionProblem) => void;
  /** Clock for created_at/updated_at stamps (tests pass a fixed one). */
  now?: () => Date;
  /**
   * Sessions this process saved, so loading them again skips the read, and continues the very object a
   * finished run released when nothing changed it since its save (long-lived processes).
   */
  cache?: SessionCache;
  /**
   * Told about each temp file of an interrupted save that was settled — recovered as the session or
   * kept in leftovers/ (sessions/leftovers.ts). Default: a `rein: …` line on stderr.
   */
  onLeftover?: (note: LeftoverNote) => void;
}

const CreateInit = z.object({
  agent: z.string().min(1),
  cwd: z.string(),
  source: z.string().min(1),
  channel: z.string().optional(),
  title: z.string().optional(),
});
export type CreateSessionInit = z.infer<typeof CreateInit>;

const DIR_MODE = 0o700;
/** Session folders this process has looked through for interrupted saves (SessionStore.lock). */
const scannedDirs = new Set<string>();
const FILE_MODE = 0o600;
/** Files read at once by list(): enough for speed, few enough never to run out of descriptors. */
const LIST_CONCURRENCY = 16;

/** Session locks this process is releasing now, by lock path (the next lock() of the session waits for it). */
const releasing = new Map<string, Promise<unknown>>();

/** `lock`, whose release is noted in `releasing` until it is done. */
function ownRelease(lockFile: string, lock: HeldLock): HeldLock {
  return {
    lock: lock.lock,
    owner: lock.owner,
    release: () => {
      const done = lock.release();
      const settled = done.catch(() => undefined);
      releasing.set(lockFile, settled);
      void settled.then(() => {
        if (releasing.get(lockFile) === settled) releasing.delete(lockFile);
      });
      return done;
    },
  };
}

export class SessionStore {
  readonly dir: string;
  readonly #onProblem: ((p: SessionProblem) => void) | undefined;
  readonly #now: () => Date;
  readonly #cache: SessionCache | undefined;
  readonly #onLeftover: (note: LeftoverNote) => void;
  /** Sessions this store has written: their names are already durable in the folder. */
  readonly #written = new Set<string>();

  constructor(dir: string, opts: SessionStoreOptions = {}) {
    this.dir = dir;
    this.#cache = opts.cache;
    this.#onProblem = opts.onProblem;
    this.#onLeftover = opts.onLeftover ?? ((note) => console.warn(`rein: ${note.message}`));
    this.#now = opts.now ?? (() => new Date());
  }

  /** A new, empty session in memory; nothing is written until `save`. */
  create(init: CreateSessionInit): SessionFile {
    const parsed = CreateInit.safeParse(init);
    if (!parsed.success) {
      const p = describeIssues(parsed.error.issues, init)[0]!;
      throw new ReinError('invalid_input', `new session: ${p.field}: ${p.message}`, { field: p.field });
    }
    const now = this.#now();
    const stamp = now.toISOString();
    const { agent, cwd, source, channel, title } = parsed.data;
    return {
      version: 1,
      id: newSessionId(now),
      agent,
      title: title ?? DEFAULT_SESSION_TITLE,
      cwd,
      source,
      ...(channel !== undefined ? { channel } : {}),
      created_at: stamp,
      updated_at: stamp,
      messages: [],
      message_meta: [],
      usage: emptyUsage(),
    };
  }

  /**
   * The session's writer lock (sessionLock.ts), held by a run from before it loads (or first saves) the
   * session until its last save: another process's writer waits for it or is refused (`session_busy`).
   * Once it is held, an interrupted save a killed writer left of this session is settled, so the load
   * that follows reads the latest complete version. The folder is read for them (one readdir) unless the
   * session is new, or the lock was free and this process has read the folder before: every writer holds
   * the lock while it saves, so a writer killed mid-save leaves its lock, which the next one finds.
   */
  async lock(id: string, opts: SessionLockOptions & { newSession?: boolean } = {}): Promise<HeldLock> {
    const file = this.#fileOf(id);
    // A new session's folder may not exist yet; the lock lives beside the file.
    await mkdir(this.dir, { recursive: true, mode: DIR_MODE });
    // Held (or left behind by a writer that was killed) when this process came for it: another process
    // wrote or is writing the session, so what this one remembers of it may be out of date (the file's
    // stamp says so too; this does not depend on the file system's timestamps).
    const lockFile = sessionLockFile(this.dir, id);
    // This process's own release of the lock may still be under way (a run's lock goes when its events
    // are over, without waiting): seen half-removed, it would look like another writer's.
    await releasing.get(lockFile);
    const found = await stat(lockFile).then(
      () => true,
      () => false,
    );
    const before = found ? await readLockOwner(lockFile) : undefined;
    const lock = ownRelease(lockFile, await lockSessionFile(this.dir, id, opts));
    if (found && before?.pid !== process.pid) this.#cache?.forget(file);
    if (opts.newSession || (!found && scannedDirs.has(this.dir))) return lock;
    try {
      const names = await readdir(this.dir);
      scannedDirs.add(this.dir);
      for (const t of deadWritersTemps(names, id)) await this.#settle(t);
    } catch (e) {
      this.#onLeftover({
        id,
        kind: 'unsettled',
        file,
        message: `could not look for interrupted saves of session ${id}: ${errorMessage(e)}`,
      });
    }
    return lock;
  }

  /**
   * Settles the interrupted saves of dead writers in this folder (or of one session): each is
   * recovered or kept in leftovers/ and told to `onLeftover`. A session another process is writing is
   * skipped (its writer settles them when it takes the lock). Returns the notes.
   */
  async settleLeftovers(names?: readonly string[]): Promise<LeftoverNote[]> {
    let all: readonly string[];
    try {
      all = names ?? (await readdir(this.dir));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw e;
    }
    const temps = deadWritersTemps(all);
    const notes: LeftoverNote[] = [];
    for (const t of temps) {
      let lock: HeldLock;
      try {
        lock = await lockSessionFile(this.dir, t.id, { waitMs: 0 });
      } catch (e) {
        if (isReinError(e, 'session_busy')) continue;
        // A full or read-only disk: the listing goes on, the temp file stays, and this is said.
        const note = this.#unsettled(t, e);
        this.#onLeftover(note);
        notes.push(note);
        continue;
      }
      try {
        const note = await this.#settle(t);
        if (note) notes.push(note);
      } finally {
        await lock.release();
      }
    }
    return notes;
  }

  /** Settles one temp file; the caller holds the session's lock (so no other settle or save of it runs). */
  async #settle(t: LeftoverTemp): Promise<LeftoverNote | undefined> {
    let note: LeftoverNote;
    try {
      note = await settleLeftover(this.dir, t);
    } catch (e) {
      // Settled meanwhile by another process (which held the lock before this one): nothing left to tell.
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      note = this.#unsettled(t, e);
    }
    if (note.kind === 'recovered') this.#cache?.forget(this.#fileOf(t.id));
    this.#onLeftover(note);
    return note;
  }

  #unsettled(t: LeftoverTemp, e: unknown): LeftoverNote {
    const file = join(this.dir, t.name);
    return {
      id: t.id,
      kind: 'unsettled',
      file,
      message: `could not settle ${file}, left by an interrupted save of session ${t.id}: ${errorMessage(e)}`,
    };
  }

  /** The session, the caller's until it calls `release` (with a cache; without one, simply the caller's). */
  async load(id: string): Promise<SessionFile> {
    // Taken before any await, so two loads at once never both get it: the second parses its own copy.
    const handed = this.#cache?.take(this.#fileOf(id));
    // Every item is, at its index, one the last save checked and wrote as it is, unchanged since
    // (SessionCache checked that): all markValidated would record is recorded already.
    if (handed) return handed;
    const s = await this.#read(id);
    // Just validated as a whole: the next save checks only what changes from here.
    markValidated(s);
    return s;
  }

  /**
   * The run that loaded or saved `s` is done with it and will not read or change it again: the next
   * `load` of its id may continue this very object instead of parsing the file (see SessionCache).
   * Without a cache, nothing happens.
   */
  release(s: SessionFile): void {
    if (!this.#cache || !isSessionId(s.id)) return;
    this.#cache.release(this.#fileOf(s.id), s);
  }

  async #read(id: string): Promise<SessionFile> {
    const file = this.#fileOf(id);
    const known = this.#cache?.recall(file);
    // Written by this process from a validated object and unchanged since: only the parse is needed.
    if (known !== undefined) return JSON.parse(known) as SessionFile;
    // A large file is read and parsed a message at a time (sessionJson.ts); anything that reader does not
    // take — a small file, or one that is not what it looks for — comes as its bytes, and their
    // whole-text reading's value or error is the one that counts.
    let read: { value: unknown } | { bytes: Buffer };
    try {
      read = await readSessionFile(file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
        throw new ReinError('session_not_found', `no session ${id} in ${this.dir}`, { id, file });
      }
      throw new ReinError('session_corrupt', `${file}: cannot read: ${errorMessage(e)}`, { id, file }, { cause: e });
    }
    if ('value' in read) return sessionFromJson(file, id, read.value);
    return parseSessionText(file, id, decodeSessionBytes(file, id, read.bytes));
  }

  /**
   * Validates and writes the whole session, stamping `updated_at` (on `s` too, once written). Either
   * the new file is complete on disk or the previous one is untouched. Messages already checked by an
   * earlier save or load are not checked again unless they changed (validatedHistory.ts).
   */
  async save(s: SessionFile): Promise<void> {
    const file = this.#fileOf(s.id);
    try {
      await this.#save(s, file);
    } catch (e) {
      // Whatever was remembered of the file may no longer be what it holds, or what `s` holds.
      this.#cache?.forget(file);
      throw e;
    }
  }

  async #save(s: SessionFile, file: string): Promise<void> {
    const updatedAt = this.#now().toISOString();
    const parsed = checkSessionForSave(s, updatedAt);
    if (!parsed.ok) {
      const problems = describeIssues(parsed.issues, s);
      throw new ReinError(
        'invalid_input',
        problems.map((p) => `session ${s.id}: ${p.field}: ${p.message}`).join('\n'),
        { id: s.id, field: problems[0]?.field, problems },
      );
    }
    // The file's text in pieces (sessionJson.ts): the envelope serialised now, before anything touches
    // the disk (a value JSON cannot hold fails here, not mid-write) and before any await (the checked
    // data shares objects with `s`, which the caller may edit next), the history a message at a time as
    // the file is written. A long session's history is never one string, nor one buffer, on top of the
    // session itself; the loop awaits the save before it changes a message again.
    let text: Iterable<Buffer>;
    try {
      text = sessionJsonPieces(parsed.data);
    } catch (e) {
      throw notSerialisable(s.id, e);
    }
    // A copy of the bytes written, for the cache (which keeps them outside the JS heap), while there are
    // few enough for it to keep (each piece is only good until the next is made).
    const limit = this.#cache?.wantsBytes(file) ? this.#cache.entryLimit : undefined;
    const written: { chunks: Buffer[] | undefined; bytes: number } = { chunks: undefined, bytes: 0 };
    const pieces = function* (): Generator<Buffer> {
      written.chunks = limit === undefined ? undefined : [];
      written.bytes = 0;
      try {
        for (const bytes of text) {
          written.bytes += bytes.byteLength;
          if (limit !== undefined && written.bytes <= limit) written.chunks?.push(Buffer.from(bytes));
          else written.chunks = undefined;
          yield bytes;
        }
      } catch (e) {
        throw notSerialisable(s.id, e);
      }
    };
    // What was written, to hand `s` itself to the next load once released: only when the history went
    // out as it is (no item replaced by its parsed copy), and taken now, before `s` can change.
    const saved: SavedForm | undefined =
      this.#cache && parsed.data.messages === s.messages && parsed.data.message_meta === s.message_meta
        ? {
            messages: s.messages,
            messageCount: s.messages.length,
            meta: s.message_meta,
            metaCount: s.message_meta.length,
            envelope: envelopeText(parsed.data),
            check: parsed.check,
          }
        : undefined;
    // A new pass over the pieces for each attempt: one that failed midway leaves nothing behind.
    const write = () =>
      atomicWriteFile(file, pieces(), { mode: FILE_MODE, followSymlinks: false, syncDir: !this.#written.has(s.id) });
    try {
      try {
        await write();
      } catch (e) {
        // The folder is made on the first save (or again, if it was removed meanwhile).
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
        await mkdir(this.dir, { recursive: true, mode: DIR_MODE });
        await write();
      }
    } catch (e) {
      // A message JSON cannot hold is the session's fault, not the disk's (the old file is untouched).
      if (isReinError(e, 'invalid_input')) throw e;
      // A full disk or a failing one: said with the session and the file (the old file is untouched).
      throw describeWriteError(e, file, `save session ${s.id} to ${file}`);
    }
    this.#written.add(s.id);
    s.updated_at = updatedAt;
    // Too many bytes to keep: only the object may be handed over, while it lives (sessionCache.ts).
    const { chunks } = written;
    this.#cache?.remember(
      file,
      chunks && (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, written.bytes)),
      saved,
    );
  }

  /** Every readable session, most recently updated first. Unreadable files go to `onProblem`. */
  async list(): Promise<SessionSummary[]> {
    return (await this.#listEach((id) => this.#summaryOrProblem(id))) as SessionSummary[];
  }

  /**
   * Every session file, most recently updated first: the readable ones summarised, the others as
   * damaged entries saying what is wrong (and also told to `onProblem`). A listing never fails
   * because of one file.
   */
  async listWithDamaged(): Promise<ListedSession[]> {
    return this.#listEach((id) => this.inspect(id));
  }

  /** One file's summary, or what is wrong with it; undefined when there is no such file. */
  async inspect(id: string): Promise<ListedSession | undefined> {
    try {
      return await this.#summaryOrThrow(id);
    } catch (e) {
      if (isReinError(e, 'session_not_found')) return undefined;
      const file = this.#fileOf(id);
      const error = this.#asProblem(id, e);
      this.#onProblem?.({ file, error });
      return damagedSummary(file, id, error);
    }
  }

  async #listEach(summary: (id: string) => Promise<ListedSession | undefined>): Promise<ListedSession[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw e;
    }
    // Interrupted saves of killed writers first: one may be the newest version of a session, or its only file.
    const recovered = (await this.settleLeftovers(names))
      .filter((n) => n.kind === 'recovered')
      .map((n) => `${n.id}.json`);
    // Only `<id>.json`: the folder also holds side folders, the search index and write temp files.
    const ids = [...new Set([...names, ...recovered])]
      .filter((n) => n.endsWith('.json'))
      .map((n) => n.slice(0, -5))
      .filter(isSessionId);
    const summaries: ListedSession[] = [];
    for (let i = 0; i < ids.length; i += LIST_CONCURRENCY) {
      const batch = await Promise.all(ids.slice(i, i + LIST_CONCURRENCY).map(summary));
      for (const s of batch) if (s) summaries.push(s);
    }
    return summaries.sort(newestFirst);
  }

  /** The most recently updated session (of the sources `keep` accepts, when given). */
  async latest(keep?: (s: SessionSummary) => boolean): Promise<SessionSummary | undefined> {
    const all = await this.list();
    return keep ? all.find(keep) : all[0];
  }

  /** Removes the session file and its side folder. */
  async delete(id: string): Promise<void> {
    const file = this.#fileOf(id);
    this.#cache?.forget(file);
    try {
      await rm(file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
        throw new ReinError('session_not_found', `no session ${id} in ${this.dir}`, { id, file });
      }
      throw e;
    }
    await rm(this.sideDir(id), { recursive: true, force: true });
  }

  /** Folder for a session's spilled tool results. Not created here: the first writer creates it. */
  sideDir(id: string): string {
    assertSessionId(id);
    return join(this.dir, id);
  }

  #fileOf(id: string): string {
    assertSessionId(id);
    return join(this.dir, `${id}.json`);
  }

  async #summaryOrThrow(id: string): Promise<SessionSummary> {
    // Not marked as validated: the summary is all that is kept.
    return summarize(await this.#read(id));
  }

  #asProblem(id: string, e: unknown): ReinError {
    return isReinError(e)
      ? e
      : new ReinError('session_corrupt', `${join(this.dir, `${id}.json`)}: ${errorMessage(e)}`, { id }, { cause: e });
  }

  async #summaryOrProblem(id: string): Promise<SessionSummary | undefined> {
    try {
      return await this.#summaryOrThrow(id);
    } catch (e) {
      // Deleted between readdir and read: not a problem, just gone.
      if (isReinError(e, 'session_not_found')) return undefined;
      this.#onProblem?.({ file: join(this.dir, `${id}.json`), error: this.#asProblem(id, e) });
      return undefined;
    }
  }
}

const newestFirst = (a: ListedSession, b: ListedSession): number =>
  Date.parse(b.updated_at) - Date.parse(a.updated_at) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/** Bytes of a damaged file read to recover its envelope (which a session file writes first). */
const SALVAGE_BYTES = 64 * 1024;
const ENVELOPE_FIELDS = ['agent', 'title', 'cwd', 'source', 'channel', 'created_at', 'updated_at'] as const;

/**
 * What a listing shows for a file that is not a readable session: the problem, and the envelope fields
 * that can still be read. A file cut short keeps its first lines, where the envelope is (2-space JSON,
 * top-level keys indented by exactly two spaces, messages last); a file that parses but fails
 * validation gives its fields directly.
 */
export async function damagedSummary(file: string, id: string, error: ReinError): Promise<DamagedSessionSummary> {
  const problem = error.message
    .split('\n')
    .map((line) => (line.startsWith(`${file}: `) ? line.slice(file.length + 2) : line))
    .join('; ');
  let mtime: string | undefined;
  let head = '';
  try {
    mtime = (await stat(file)).mtime.toISOString();
    const fh = await open(file, 'r');
    try {
      const buf = Buffer.alloc(SALVAGE_BYTES);
      const { bytesRead } = await fh.read(buf, 0, SALVAGE_BYTES, 0);
      head = buf.subarray(0, bytesRead).toString('utf8');
    } finally {
      await fh.close();
    }
  } catch {
    // Unreadable: the problem says so; nothing to salvage.
  }
  const found = salvageEnvelope(head);
  const updated_at = found.updated_at ?? mtime ?? new Date(0).toISOString();
  return { id, file, damaged: true, problem, ...found, updated_at };
}

function salvageEnvelope(head: string): Partial<Record<(typeof ENVELOPE_FIELDS)[number], string>> {
  const out: Partial<Record<(typeof ENVELOPE_FIELDS)[number], string>> = {};
  let whole: unknown;
  try {
    whole = JSON.parse(head);
  } catch {
    whole = undefined;
  }
  for (const field of ENVELOPE_FIELDS) {
    let value: unknown;
    if (whole !== null && typeof whole === 'object' && !Array.isArray(whole)) {
      value = Object.hasOwn(whole, field) ? (whole as Record<string, unknown>)[field] : undefined;
    } else {
      const m = new RegExp(`^  "${field}": ("(?:[^"\\\\\n]|\\\\.)*")`, 'm').exec(head);
      try {
        value = m ? JSON.parse(m[1]!) : undefined;
      } catch {
        value = undefined;
      }
    }
    if (typeof value !== 'string') continue;
    if ((field === 'created_at' || field === 'updated_at') && Number.isNaN(Date.parse(value))) continue;
    out[field] = value;
  }
  return out;
}

function assertSessionId(id: string): void {
  // The id becomes a path: anything but the exact id format (no `/`, no `..`) is refused.
  if (!isSessionId(id)) {
    throw new ReinError('invalid_input', `not a session id: ${JSON.stringify(id)}`, { field: 'id', id });
  }
}

/** Decodes without replacement characters: a byte that is not UTF-8 would be lost by the next save. */
// ignoreBOM: a byte-order mark stays in the text (and fails the JSON parse, as before), never silently dropped.
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The file's text, or `session_corrupt` naming the file and the byte offset of the first sequence that
 * is not UTF-8. Decoding with U+FFFD instead would let the next turn rewrite the file without the
 * original bytes; refused here, the file is listed as damaged and never written.
 */
function decodeSessionBytes(file: string, id: string, bytes: Uint8Array): string {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    const offset = firstInvalidUtf8(bytes);
    throw new ReinError('session_corrupt', `${file}: not valid UTF-8 at byte ${offset}`, { id, file, offset });
  }
}

/** Offset of the first byte that does not start (or continue) a well-formed UTF-8 sequence. */
export function firstInvalidUtf8(b: Uint8Array): number {
  let i = 0;
  while (i < b.length) {
    const c = b[i]!;
    if (c < 0x80) {
      i++;
      continue;
    }
    // Lead byte: length and the allowed range of the second byte (no overlongs, no surrogates, ≤ U+10FFFF).
    let n: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) n = 1;
    else if (c >= 0xe0 && c <= 0xef) {
      n = 2;
      if (c === 0xe0) lo = 0xa0;
      if (c === 0xed) hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      n = 3;
      if (c === 0xf0) lo = 0x90;
      if (c === 0xf4) hi = 0x8f;
    } else return i;
    for (let k = 1; k <= n; k++) {
      const x = b[i + k];
      if (x === undefined || x < (k === 1 ? lo : 0x80) || x > (k === 1 ? hi : 0xbf)) return i;
    }
    i += n + 1;
  }
  return b.length;
}

function parseSessionText(file: string, id: string, text: string): SessionFile {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new ReinError('session_corrupt', `${file}: not valid JSON: ${errorMessage(e)}`, { id, file });
  }
  return sessionFromJson(file, id, json);
}

/** The session a file's parsed JSON holds, or `session_corrupt` naming the file and each field that is wrong. */
function sessionFromJson(file: string, id: string, json: unknown): SessionFile {
  const parsed = SessionFile.safeParse(json);
  if (!parsed.success) {
    const problems = describeIssues(parsed.error.issues, json);
    throw new ReinError('session_corrupt', problems.map((p) => `${file}: ${p.field}: ${p.message}`).join('\n'), {
      id,
      file,
      field: problems[0]?.field,
      problems,
    });
  }
  if (parsed.data.id !== id) {
    throw new ReinError('session_corrupt', `${file}: id: says ${parsed.data.id} but the file is named ${id}`, {
      id,
      file,
      field: 'id',
    });
  }
  return parsed.data;
}

function summarize(s: SessionFile): SessionSummary {
  return {
    id: s.id,
    agent: s.agent,
    title: s.title,
    cwd: s.cwd,
    source: s.source,
    ...(s.channel !== undefined ? { channel: s.channel } : {}),
    created_at: s.created_at,
    updated_at: s.updated_at,
    messageCount: s.messages.length,
  };
}

function notSerialisable(id: string, e: unknown): ReinError {
  return isReinError(e, 'invalid_input')
    ? e
    : new ReinError('invalid_input', `session ${id}: cannot serialise: ${errorMessage(e)}`, { id }, { cause: e });
}
