/**
 * One folder of session files (`<dir>/<id>.json`, 2-space JSON, mode 0600, folder 0700). Files are
 * written atomically, validated on load and on save, and never modified by a failed load. Large tool
 * results of a session may be spilled into its side folder `<dir>/<id>/`.
 */
import { mkdir, open, readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { ReinError, errorMessage, isReinError } from '../errors.js';
import { atomicWriteFile } from '../util/atomicWrite.js';
import { describeIssues } from '../util/zodIssues.js';
import { isSessionId, newSessionId } from './id.js';
import { DEFAULT_SESSION_TITLE } from './title.js';
import { SessionFile, emptyUsage, type DamagedSessionSummary, type ListedSession, type SessionSummary } from './types.js';
import { checkSessionForSave, markValidated } from './validatedHistory.js';
import { envelopeText, type SavedForm, type SessionCache } from './sessionCache.js';

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
const FILE_MODE = 0o600;
/** Files read at once by list(): enough for speed, few enough never to run out of descriptors. */
const LIST_CONCURRENCY = 16;

export class SessionStore {
  readonly dir: string;
  readonly #onProblem: ((p: SessionProblem) => void) | undefined;
  readonly #now: () => Date;
  readonly #cache: SessionCache | undefined;
  /** Sessions this store has written: their names are already durable in the folder. */
  readonly #written = new Set<string>();

  constructor(dir: string, opts: SessionStoreOptions = {}) {
    this.dir = dir;
    this.#cache = opts.cache;
    this.#onProblem = opts.onProblem;
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
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
        throw new ReinError('session_not_found', `no session ${id} in ${this.dir}`, { id, file });
      }
      throw new ReinError('session_corrupt', `${file}: cannot read: ${errorMessage(e)}`, { id, file }, { cause: e });
    }
    return parseSessionText(file, id, text);
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
    // Serialise before touching the disk, so a value JSON cannot hold fails here and not mid-write,
    // and before any await: the checked data shares objects with `s`, which the caller may edit next.
    let text: string;
    try {
      text = `${JSON.stringify(parsed.data, null, 2)}\n`;
    } catch (e) {
      throw new ReinError('invalid_input', `session ${s.id}: cannot serialise: ${errorMessage(e)}`, { id: s.id }, {
        cause: e,
      });
    }
    // Encoded once, for the file and for the cache (which keeps bytes outside the JS heap).
    const bytes = Buffer.from(text, 'utf8');
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
    const write = () => atomicWriteFile(file, bytes, { mode: FILE_MODE, followSymlinks: false, syncDir: !this.#written.has(s.id) });
    try {
      await write();
    } catch (e) {
      // The folder is made on the first save (or again, if it was removed meanwhile).
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      await mkdir(this.dir, { recursive: true, mode: DIR_MODE });
      await write();
    }
    this.#written.add(s.id);
    s.updated_at = updatedAt;
    this.#cache?.remember(file, bytes, saved);
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
    // Only `<id>.json`: the folder also holds side folders, the search index and write temp files.
    const ids = names.filter((n) => n.endsWith('.json')).map((n) => n.slice(0, -5)).filter(isSessionId);
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
    return isReinError(e) ? e : new ReinError('session_corrupt', `${join(this.dir, `${id}.json`)}: ${errorMessage(e)}`, { id }, { cause: e });
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

function parseSessionText(file: string, id: string, text: string): SessionFile {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new ReinError('session_corrupt', `${file}: not valid JSON: ${errorMessage(e)}`, { id, file });
  }
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
