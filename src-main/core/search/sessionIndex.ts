/**
 * The search index over every agent's sessions: one SQLite file, `<REIN_HOME>/rein.db`. It is a cache
 * of the session JSON files and nothing more: deleting it loses nothing, a damaged or outdated file is
 * rebuilt from the JSON, and every search is scoped to one agent so agents never see each other's
 * sessions. How a query is matched is described in query.ts; what is indexed in extract.ts.
 */
import { existsSync, statSync, type BigIntStats } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import type { Disposable } from '../base/lifecycle.js';
import { paths } from '../config/paths.js';
import { ReinError, errorMessage, isReinError } from '../errors.js';
import { SessionStore, type SessionProblem } from '../sessions/store.js';
import { SessionFile, type SessionSummary } from '../sessions/types.js';
import { describeIssues } from '../util/zodIssues.js';
import { describeWriteError, isStorageFailure, writeErrorReason } from '../util/diskErrors.js';
import { fileIdentity, isCorruptionError, moveAside, openDatabase, openInMemory, openReadOnly } from './database.js';
import { extractRows, type IndexRow, type IndexedRole } from './extract.js';
import { planQuery, type QueryPlan } from './query.js';
import {
  FTS_TABLES,
  META_INDEXED_AT,
  ROW_BITS,
  ROWS_PER_SESSION,
  type FtsTable,
  type SchemaOutcome,
} from './schema.js';
import { ELLIPSIS, MATCH_CLOSE, MATCH_OPEN, compactSnippet, snippetAround } from './snippet.js';
import { listAgentSessionFiles } from './sessionFiles.js';
import { takePendingNotes } from './pendingIndex.js';

export const INDEX_FILE_NAME = 'rein.db';
export const DEFAULT_SEARCH_LIMIT = 20;
export const MAX_SEARCH_LIMIT = 1_000;
export const DEFAULT_LIST_LIMIT = 50;

/** Which stage found a hit (see query.ts): whole words, a substring, or a short-query LIKE scan. */
export type MatchKind = 'words' | 'substring' | 'short';

export interface SearchOptions {
  /** Required: a search only ever sees one agent's sessions. */
  agent: string;
  /** Only sessions that started from this source (`cli`, `schedule`, `heartbeat`, `slack`, …). */
  source?: string;
  /** Sessions to return, best first (default 20, at most 1,000). */
  limit?: number;
  /** Treat the last term as a word prefix in the words stage (search-as-you-type). */
  prefix?: boolean;
}

/** One session that matched, represented by its best-matching message. */
export interface SearchHit {
  sessionId: string;
  agent: string;
  source: string;
  channel?: string;
  title: string;
  /** The matching text with `>>>`/`<<<` around matches and `…` where it was cut; one line. */
  snippet: string;
  role: IndexedRole;
  /** Index of the matching message in the session's `messages`. */
  msgIndex: number;
  createdAt: string;
  updatedAt: string;
  /** Higher is better (negated bm25); 0 for `short`, which orders by recency instead. */
  score: number;
  match: MatchKind;
}

export interface ListOptions {
  agent?: string;
  source?: string;
  limit?: number;
}

export interface ReindexReport {
  /** Sessions indexed from their JSON files. */
  sessions: number;
  /** Index entries dropped because their JSON file no longer exists. */
  removed: number;
  /** JSON files that could not be read or are not valid sessions; they were skipped. */
  problems: SessionProblem[];
  /** Agents whose folders were read (`default` first). */
  agents: string[];
}

/** What the check of the session folders against the index found (SessionIndex.checkDisk). */
export interface DiskCheckReport {
  /** Session files looked at. */
  files: number;
  /** Of them, read and indexed because the index did not have them as they are on disk. */
  indexed: number;
  /** Index entries dropped because their file is gone. */
  removed: number;
  problems: SessionProblem[];
}

export interface OpenReport {
  schema: SchemaOutcome;
  /** Where a damaged database was moved before a new one was built. */
  movedAside?: string;
  /** Present when opening had to (re)build the index from the JSON files. */
  reindexed?: ReindexReport;
  /** Present when opening checked the session folders against the index (the usual case). */
  checked?: DiskCheckReport;
  /**
   * The index file could not be updated (a full, failing or read-only disk): what happened, naming the
   * file, in words a person reads once. Searches still work — on the file as it was (`readOnly`), or on
   * an index built in memory from the session files (`inMemory`) — and nothing is written.
   */
  notUpdated?: string;
  /** Opened read-only: sessions noted since the last update are not in it. */
  readOnly?: boolean;
  /** Built in memory from the session files for this process only; the file was left as it is. */
  inMemory?: boolean;
}

export interface SessionIndexOpenOptions {
  /**
   * `auto` (default): when the index has never been completely built (new, replaced or damaged file),
   * build it from the JSON files before returning. `never`: return at once (the caller reindexes).
   */
  rebuild?: 'auto' | 'never';
}

interface Candidate {
  rowid: number;
  sessionKey: number;
  rank: number;
}

interface SessionRow {
  key: number;
  id: string;
  agent: string;
  source: string;
  channel: string | null;
  title: string;
  cwd: string;
  created_at: string;
  updated_at: string;
  msg_count: number;
}

/**
 * JSON files read at once while reindexing; each batch is written in one transaction, short enough
 * that other processes saving sessions meanwhile wait well under the busy timeout.
 */
const REINDEX_BATCH = 32;
/**
 * Session files stat'ed in one go when checking the folders against the index: synchronously (three
 * times faster than through libuv's thread pool, which costs more than the stat itself), with a turn of
 * the event loop between batches so a daemon opening its index stays responsive.
 */
const STAT_BATCH = 256;
/** Pages of FTS segment merging per transaction after a reindex. */
const MERGE_STEP_PAGES = 2_000;
/** Matching messages ranked per search stage (see #ranked), and at least this many per wanted hit. */
const RANK_WINDOW = 300;
const RANK_WINDOW_PER_HIT = 10;
const MAX_RANK_WINDOW = 20_000;
/** Tokens of context in FTS snippets; a trigram token is about one character, a word token one word. */
const WORD_SNIPPET_TOKENS = 16;
const SUBSTRING_SNIPPET_TOKENS = 48;

export const indexFile = (home: string): string => join(home, INDEX_FILE_NAME);

export class SessionIndex implements Disposable {
  readonly home: string;
  readonly file: string;
  readonly opened: OpenReport;
  #db: Database.Database;
  #statements = new Map<string, Database.Statement>();
  /** Which file the connection has open (fileIdentity), so a repair never moves another process's new index. */
  #identity: string | undefined;

  private constructor(home: string, file: string, db: Database.Database, opened: OpenReport) {
    this.home = home;
    this.file = file;
    this.#db = db;
    this.opened = opened;
    this.#identity = opened.inMemory ? undefined : fileIdentity(file);
  }

  /**
   * Opens (creating, replacing or recovering as needed) the index of the sessions under `home`. A
   * damaged file (SQLITE_CORRUPT, SQLITE_NOTADB, found at open or by the first reads) is moved aside
   * and rebuilt. On a disk that cannot take a write the index is opened for reading instead (see
   * OpenReport.notUpdated): a search or a listing never fails because nothing could be written.
   */
  static async open(home: string, opts: SessionIndexOpenOptions = {}): Promise<SessionIndex> {
    const file = indexFile(home);
    let index: SessionIndex;
    try {
      const { db, schema, movedAside } = openDatabase(file);
      index = new SessionIndex(home, file, db, { schema, ...(movedAside ? { movedAside } : {}) });
    } catch (e) {
      if (!isStorageFailure(e)) throw e;
      return SessionIndex.#forReading(home, file, e);
    }
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          if ((opts.rebuild ?? 'auto') === 'auto' && !index.isComplete())
            index.opened.reindexed = await index.reindex();
          // Sessions that `rein run` and schedule runs noted instead of indexing (pendingIndex.ts).
          // With the safety net (checkDisk) unless the files were all just read.
          const caught = await index.catchUp({
            checkDisk: (opts.rebuild ?? 'auto') === 'auto' && !index.opened.reindexed,
          });
          if (caught.notUpdated) index.opened.notUpdated = caught.notUpdated;
          break;
        } catch (e) {
          // Damage the first reads or writes found (a page deep in the file): moved aside, built again.
          if (attempt > 0 || !isIndexCorrupt(e)) throw e;
          index.#replaceDamaged();
        }
      }
    } catch (e) {
      index.dispose();
      if (!isStorageFailure(e)) throw e;
      return SessionIndex.#forReading(home, file, e);
    }
    return index;
  }

  /**
   * The index when its file cannot be written: the file itself, read-only, when it is complete and of
   * this version; otherwise one built in memory from the session files. Either way nothing is written,
   * and `opened.notUpdated` says so once.
   */
  static async #forReading(home: string, file: string, cause: unknown): Promise<SessionIndex> {
    const reason = writeErrorReason(cause, file);
    const db = openReadOnly(file);
    if (db) {
      return new SessionIndex(home, file, db, {
        schema: 'current',
        readOnly: true,
        notUpdated: `the search index ${file} could not be updated (${reason}); it was read as it was, without the sessions saved since`,
      });
    }
    const index = new SessionIndex(home, file, openInMemory(), {
      schema: 'created',
      inMemory: true,
      notUpdated: `the search index ${file} could not be written (${reason}); it was built in memory from the session files for now`,
    });
    index.opened.reindexed = await index.reindex();
    return index;
  }

  /**
   * Runs a read of the index (a search, a listing); when it finds the file damaged, moves the file
   * aside, rebuilds the index from the session files and runs it once more. The index is only a copy
   * of the files: damage never costs more than the rebuild.
   */
  async withRepair<T>(read: () => T): Promise<T> {
    try {
      return read();
    } catch (e) {
      if (!isIndexCorrupt(e)) throw e;
      this.#replaceDamaged();
      this.opened.reindexed = await this.reindex();
      return read();
    }
  }

  /**
   * Indexes the sessions noted as pending by processes that saved them without opening the index, then
   * drops the notes. A noted session whose file is gone is taken out of the index; one that cannot be
   * read is left for `rein sessions reindex` (its problem is returned). Returns how many were indexed.
   */
  async catchUp(
    opts: { checkDisk?: boolean } = {},
  ): Promise<{ indexed: number; problems: SessionProblem[]; notUpdated?: string; disk?: DiskCheckReport }> {
    // Nothing can be written to a read-only or in-memory index: the notes wait for one that can.
    if (this.opened.readOnly || this.opened.inMemory) return { indexed: 0, problems: [] };
    try {
      const caught = await this.#catchUp();
      if (!opts.checkDisk) return caught;
      const disk = await this.checkDisk();
      this.opened.checked = disk;
      return { indexed: caught.indexed + disk.indexed, problems: [...caught.problems, ...disk.problems], disk };
    } catch (e) {
      if (!isStorageFailure(e)) throw e;
      // A full disk: the notes stay (a taken file is taken again by the next one), searches go on with
      // what the index has.
      return {
        indexed: 0,
        problems: [],
        notUpdated: `the search index ${this.file} could not be updated (${writeErrorReason(e, this.file)}); sessions saved since are not in the results yet`,
      };
    }
  }

  async #catchUp(): Promise<{ indexed: number; problems: SessionProblem[] }> {
    const taken = await takePendingNotes(this.home);
    const problems: SessionProblem[] = [];
    let indexed = 0;
    for (const { agent, id } of taken.notes) {
      const dir = paths.sessionsDir(this.home, agent);
      const file = join(dir, `${id}.json`);
      let stamp: string | null;
      try {
        stamp = await fileStamp(file);
      } catch (e) {
        problems.push(toProblem(dir, id, e));
        continue;
      }
      if (stamp === null) {
        this.remove(id, agent);
        continue;
      }
      // Noted again by every save after a take: a file unchanged since it was indexed is not read again.
      if (this.#storedStamp(agent, id) === stamp) continue;
      let session: SessionFile;
      try {
        session = await new SessionStore(dir).load(id);
      } catch (e) {
        if (isReinError(e, 'session_not_found')) this.remove(id, agent);
        else problems.push(toProblem(dir, id, e));
        continue;
      }
      // The folder decides the agent, as in reindex().
      this.#guard(() => this.#db.transaction(() => this.#write(session, agent, stamp)).immediate());
      indexed++;
    }
    await taken.done();
    return { indexed, problems };
  }

  /**
   * The safety net behind the notes: compares every agent's session files with what the index holds, by
   * file stamp (a readdir per agent folder and a stat per file), indexes what is missing or changed and
   * drops what is gone. A session is then found even when no note was left for it: saved by an older
   * Rein, by a process killed before its first note, or with its note lost to a full disk. Run when the
   * index opens: about 7 ms for 1,000 unchanged sessions (`npm run bench -- index-check`).
   */
  async checkDisk(): Promise<DiskCheckReport> {
    const stored = new Map(
      this.#guard(
        () =>
          this.#stmt(`SELECT agent, id, file_stamp FROM sessions`).all() as Array<{
            agent: string;
            id: string;
            file_stamp: string | null;
          }>,
      ).map((r) => [sessionKeyOf(r.agent, r.id), r.file_stamp]),
    );
    const found = new Set<string>();
    const problems: SessionProblem[] = [];
    let files = 0;
    let indexed = 0;
    for (const { agent, dir, ids } of await listAgentSessionFiles(this.home)) {
      const changed: Array<{ id: string; stamp: string }> = [];
      const stamps = await stampsOf(dir, ids, (id, e) => problems.push(toProblem(dir, id, e)));
      ids.forEach((id, j) => {
        const stamp = stamps[j];
        const key = sessionKeyOf(agent, id);
        if (stamp === undefined) found.add(key); // there, but cannot be looked at: kept as it was
        if (typeof stamp !== 'string') return; // null: gone since the readdir
        found.add(key);
        files++;
        if (stored.get(key) !== stamp) changed.push({ id, stamp });
      });
      indexed += (await this.#indexFiles(agent, dir, changed, problems)).length;
    }
    const removed = this.#dropVanished(found);
    return { files, indexed, removed, problems };
  }

  /** The file stamp the index holds for a session: undefined when not indexed, null when indexed from memory. */
  #storedStamp(agent: string, id: string): string | null | undefined {
    const row = this.#guard(() =>
      this.#stmt(`SELECT file_stamp FROM sessions WHERE agent = ? AND id = ?`).get(agent, id),
    ) as { file_stamp: string | null } | undefined;
    return row?.file_stamp;
  }

  /**
   * Reads and indexes session files of one agent folder, REINDEX_BATCH at a time, each batch in one
   * transaction; `stamp` is each file's stamp taken before it was read (so a save in between only makes
   * the next check read it again). Problems are added to `problems`; returns the ids indexed.
   */
  async #indexFiles(
    agent: string,
    dir: string,
    files: ReadonlyArray<{ id: string; stamp: string | null }>,
    problems: SessionProblem[],
  ): Promise<string[]> {
    const store = new SessionStore(dir);
    const done: string[] = [];
    for (let i = 0; i < files.length; i += REINDEX_BATCH) {
      const loaded = await Promise.all(
        files.slice(i, i + REINDEX_BATCH).map(({ id, stamp }) =>
          store.load(id).then(
            (s): { s: SessionFile; stamp: string | null } | { problem: SessionProblem } | undefined => ({ s, stamp }),
            (e: unknown) => (isReinError(e, 'session_not_found') ? undefined : { problem: toProblem(dir, id, e) }),
          ),
        ),
      );
      const good: Array<{ s: SessionFile; stamp: string | null }> = [];
      for (const r of loaded) {
        if (r && 's' in r) good.push(r);
        else if (r) problems.push(r.problem);
      }
      this.#guard(() =>
        this.#db
          .transaction(() => {
            // The folder decides the agent: it is where the session store of that agent reads from.
            for (const g of good) this.#write(g.s, agent, g.stamp);
          })
          .immediate(),
      );
      for (const g of good) done.push(g.s.id);
    }
    return done;
  }

  /** Whether a full build from the JSON files has ever completed for this database file. */
  isComplete(): boolean {
    return this.#guard(() => this.#stmt(`SELECT 1 FROM meta WHERE key = ?`).get(META_INDEXED_AT) !== undefined);
  }

  /**
   * Indexes `session` under its agent, replacing what was indexed for it before, in one transaction.
   * Calling it again with the same session changes nothing. Messages are usually only appended, so
   * only rows after the first difference are rewritten.
   */
  upsert(session: SessionFile): void {
    const parsed = SessionFile.safeParse(session);
    if (!parsed.success) {
      const p = describeIssues(parsed.error.issues, session)[0];
      const id = (session as { id?: unknown } | null)?.id;
      throw new ReinError(
        'invalid_input',
        `session ${String(id)}: ${p?.field ?? '(top level)'}: ${p?.message ?? 'invalid'}`,
        {
          id,
          field: p?.field,
        },
      );
    }
    this.#guard(() => this.#db.transaction(() => this.#write(parsed.data, parsed.data.agent)).immediate());
  }

  /** Drops a session from the index (of one agent, or of every agent holding that id). Returns how many. */
  remove(id: string, agent?: string): number {
    return this.#guard(() =>
      this.#db
        .transaction(() => {
          const rows = (
            agent === undefined
              ? this.#stmt(`SELECT key FROM sessions WHERE id = ?`).all(id)
              : this.#stmt(`SELECT key FROM sessions WHERE id = ? AND agent = ?`).all(id, agent)
          ) as Array<{ key: number }>;
          for (const { key } of rows) this.#deleteKey(key);
          return rows.length;
        })
        .immediate(),
    );
  }

  /**
   * Sessions of `opts.agent` that match `query`, best first, one hit per session. The query is plain
   * text (see query.ts); an empty one finds nothing.
   */
  search(query: string, opts: SearchOptions): SearchHit[] {
    if (typeof opts?.agent !== 'string' || opts.agent === '') {
      throw new ReinError('invalid_input', 'search: agent: required (a search is always scoped to one agent)', {
        field: 'agent',
      });
    }
    const limit = clampLimit(opts.limit, DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT);
    const plan = planQuery(String(query ?? ''), { prefix: opts.prefix === true });
    if (!plan) return [];
    return this.#guard(() => {
      const hits: SearchHit[] = [];
      const seen = new Set<number>();
      const scope = { agent: opts.agent, ...(opts.source !== undefined ? { source: opts.source } : {}) };
      if (plan.words !== undefined) {
        // The conversation first: what was said is what a person remembers; tool output after.
        for (const table of ['conversation_words', 'tool_output_words'] as const) {
          if (hits.length >= limit) break;
          for (const c of this.#ranked(table, plan.words, [], scope, seen, limit - hits.length)) {
            hits.push(this.#hit(c, 'words', () => this.#ftsSnippet(table, plan.words!, c.rowid, WORD_SNIPPET_TOKENS)));
          }
        }
      }
      // Substrings and short scans serve queries whole words cannot (CJK, symbols), and whole-word
      // queries that found nothing. Running them after whole-word hits would add little but cost
      // most: a trigram search for several common words is many times slower than the word search.
      const fallback = plan.words === undefined || hits.length === 0;
      if (fallback && plan.substrings !== undefined) {
        for (const c of this.#ranked('substrings', plan.substrings, plan.likes, scope, seen, limit - hits.length)) {
          hits.push(
            this.#hit(c, 'substring', () =>
              this.#ftsSnippet('substrings', plan.substrings!, c.rowid, SUBSTRING_SNIPPET_TOKENS),
            ),
          );
        }
      }
      if (fallback && plan.substrings === undefined) {
        for (const c of this.#short(plan, scope, seen, limit - hits.length)) {
          hits.push(this.#hit(c, 'short', (content) => snippetAround(content, plan.terms)));
        }
      }
      return hits;
    });
  }

  /** Sessions, most recently updated first. */
  list(opts: ListOptions = {}): SessionSummary[] {
    const limit = clampLimit(opts.limit, DEFAULT_LIST_LIMIT, Number.MAX_SAFE_INTEGER);
    const where: string[] = [];
    const params: unknown[] = [];
    if (opts.agent !== undefined) {
      where.push('agent = ?');
      params.push(opts.agent);
    }
    if (opts.source !== undefined) {
      where.push('source = ?');
      params.push(opts.source);
    }
    const sql = `SELECT * FROM sessions ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY updated_at DESC, id DESC LIMIT ?`;
    return this.#guard(() => (this.#stmt(sql).all(...params, limit) as SessionRow[]).map(toSummary));
  }

  /** Numbers for reports and benchmarks. */
  counts(): { sessions: number; rows: number } {
    return this.#guard(() => ({
      sessions: (this.#stmt(`SELECT count(*) AS n FROM sessions`).get() as { n: number }).n,
      rows: (this.#stmt(`SELECT count(*) AS n FROM messages`).get() as { n: number }).n,
    }));
  }

  /**
   * Rebuilds the index from every agent's JSON files: each readable session is (re)indexed, entries
   * whose file is gone are dropped, unreadable files are skipped and reported. A database that fails
   * SQLite's quick check is first moved aside and replaced.
   */
  async reindex(): Promise<ReindexReport> {
    this.#replaceIfDamaged();
    try {
      return await this.#reindex();
    } catch (e) {
      // Damage that the quick check does not see (an FTS5 segment of garbage) shows when it is written.
      if (!isIndexCorrupt(e)) throw e;
      this.#replaceDamaged();
      return this.#reindex();
    }
  }

  async #reindex(): Promise<ReindexReport> {
    const problems: SessionProblem[] = [];
    const found = new Set<string>();
    let sessions = 0;
    const folders = await listAgentSessionFiles(this.home);
    for (const { agent, dir, ids } of folders) {
      // Each file's stamp first (see #indexFiles), so the next open's check knows what it read.
      const stamps = await stampsOf(dir, ids, () => undefined);
      const files = ids.map((id, j) => ({ id, stamp: stamps[j] ?? null }));
      for (const id of await this.#indexFiles(agent, dir, files, problems)) found.add(sessionKeyOf(agent, id));
      sessions = found.size;
    }
    const removed = this.#dropVanished(found);
    for (const table of FTS_TABLES) await this.#mergeSegments(table);
    this.#guard(() => {
      this.#stmt(
        `INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
      ).run(META_INDEXED_AT, new Date().toISOString());
      this.#db.pragma('wal_checkpoint(TRUNCATE)');
    });
    return { sessions, removed, problems, agents: folders.map((f) => f.agent) };
  }

  /**
   * Merges the FTS segments that many small transactions wrote, as FTS5's `optimize` would, but in
   * steps of their own transactions with a pause between them: another process saving a session
   * waits for one step, never for the whole merge.
   */
  async #mergeSegments(table: FtsTable): Promise<void> {
    const merge = this.#stmt(`INSERT INTO ${table} (${table}, rank) VALUES ('merge', ?)`);
    // FTS5 keeps its segment structure in the row with id 10 of its data table; once a merge step
    // leaves it unchanged there is nothing left to merge.
    const structure = this.#stmt(`SELECT block FROM ${table}_data WHERE id = 10`).pluck();
    // A negative page count starts an incremental optimize (segments of all levels merged into one);
    // positive counts continue it.
    for (let pages = -MERGE_STEP_PAGES; ; pages = MERGE_STEP_PAGES) {
      const before = structure.get() as Buffer | undefined;
      const after = this.#guard(() =>
        this.#db
          .transaction(() => {
            merge.run(pages);
            return structure.get() as Buffer | undefined;
          })
          .immediate(),
      );
      if (!before || !after || before.equals(after)) return;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  dispose(): void {
    this.#closeDatabase();
  }

  #closeDatabase(): void {
    if (this.#db.open) this.#db.close();
    this.#statements.clear();
  }

  // --- writing ---------------------------------------------------------------------------------

  #write(s: SessionFile, agent: string, stamp: string | null = null): void {
    const { key } = this.#stmt(
      `INSERT INTO sessions (id, agent, source, channel, title, cwd, created_at, updated_at, msg_count, file_stamp)
       VALUES (@id, @agent, @source, @channel, @title, @cwd, @created_at, @updated_at, @msg_count, @file_stamp)
       ON CONFLICT (agent, id) DO UPDATE SET
         source = excluded.source, channel = excluded.channel, title = excluded.title, cwd = excluded.cwd,
         created_at = excluded.created_at, updated_at = excluded.updated_at, msg_count = excluded.msg_count,
         file_stamp = excluded.file_stamp
       RETURNING key`,
    ).get({
      id: s.id,
      agent,
      source: s.source,
      channel: s.channel ?? null,
      title: s.title,
      cwd: s.cwd,
      created_at: utcIso(s.created_at),
      updated_at: utcIso(s.updated_at),
      msg_count: s.messages.length,
      file_stamp: stamp,
    }) as { key: number };

    // Rows past the id range of a session are not indexed; 16 million is far beyond any real session.
    const rows = extractRows(s).slice(0, ROWS_PER_SESSION);
    const base = key * ROWS_PER_SESSION;
    const old = this.#stmt(
      `SELECT id, msg_index, role, substrings, content FROM messages WHERE id >= ? AND id < ? ORDER BY id`,
    ).all(base, base + ROWS_PER_SESSION) as OldRow[];
    // Messages are mostly appended: rows up to the first difference stay, the rest is rewritten.
    let same = 0;
    while (same < old.length && same < rows.length && old[same]!.id === base + same && sameRow(old[same]!, rows[same]!))
      same++;
    if (same < old.length)
      this.#stmt(`DELETE FROM messages WHERE id >= ? AND id < ?`).run(base + same, base + ROWS_PER_SESSION);
    const insert = this.#stmt(`INSERT INTO messages (id, msg_index, role, substrings, content) VALUES (?, ?, ?, ?, ?)`);
    for (let i = same; i < rows.length; i++) {
      const r = rows[i]!;
      insert.run(base + i, r.msgIndex, r.role, r.substrings ? 1 : 0, r.content);
    }
  }

  #deleteKey(key: number): void {
    this.#stmt(`DELETE FROM messages WHERE id >= ? AND id < ?`).run(
      key * ROWS_PER_SESSION,
      (key + 1) * ROWS_PER_SESSION,
    );
    this.#stmt(`DELETE FROM sessions WHERE key = ?`).run(key);
  }

  /** Drops entries whose JSON file is gone, checking the disk again so a session saved meanwhile stays. */
  #dropVanished(found: ReadonlySet<string>): number {
    const all = this.#guard(
      () =>
        this.#stmt(`SELECT key, id, agent FROM sessions`).all() as Array<{ key: number; id: string; agent: string }>,
    );
    const gone = all.filter(
      (r) =>
        !found.has(sessionKeyOf(r.agent, r.id)) &&
        !existsSync(join(paths.sessionsDir(this.home, r.agent), `${r.id}.json`)),
    );
    if (gone.length === 0) return 0;
    this.#guard(() =>
      this.#db
        .transaction(() => {
          for (const r of gone) this.#deleteKey(r.key);
        })
        .immediate(),
    );
    return gone.length;
  }

  #replaceIfDamaged(): void {
    if (this.opened.inMemory) return;
    let healthy: boolean;
    try {
      healthy = this.#db.pragma('quick_check(1)', { simple: true }) === 'ok';
    } catch (e) {
      if (!isCorruptionError(e)) throw e;
      healthy = false;
    }
    if (!healthy) this.#replaceDamaged();
  }

  /**
   * The file is damaged: it moves aside as `rein.db.corrupt-<time>` (with its -wal and -shm, kept), and
   * a new, empty index takes its place, to be filled from the session files. When another process has
   * already done so, its new index is opened instead.
   */
  #replaceDamaged(): void {
    this.#closeDatabase();
    if (this.opened.inMemory) {
      this.#db = openInMemory();
      return;
    }
    const moved = moveAside(this.file, this.#identity);
    if (moved) this.opened.movedAside = moved;
    const reopened = openDatabase(this.file);
    if (reopened.movedAside) this.opened.movedAside = reopened.movedAside;
    this.#db = reopened.db;
    this.#identity = fileIdentity(this.file);
  }

  // --- searching -------------------------------------------------------------------------------

  /**
   * Best-ranked message of each not-yet-seen session matching an FTS expression, up to `need` sessions.
   *
   * bm25 costs a few microseconds per matching row, and a common word matches a large share of
   * half a million messages: ranking them all would take a second. So only the agent's most recent
   * matching messages (the highest ids, which FTS5 walks in order and stops early) are ranked. When
   * that window holds too few sessions (a word used all through a few long sessions) a four times
   * larger one is ranked, up to a bound. A query with fewer matches than the window is ranked
   * exactly; a very common one gets the best of its recent matches, which for finding a conversation
   * again is what one wants anyway.
   */
  #ranked(
    table: FtsTable,
    match: string,
    likes: readonly string[],
    scope: { agent: string; source?: string },
    seen: Set<number>,
    need: number,
  ): Candidate[] {
    if (need <= 0) return [];
    // CROSS JOIN pins the FTS table as the outer loop: the match set drives, in id order, and the
    // agent filter applies before the LIMIT, so bm25 runs only for rows that are returned. The session
    // comes from the row id (schema.ts), so the wide message rows are not read at all. (No rowid range
    // here: FTS5 then walks a term's whole match list, which for a common word costs more than bm25.)
    const sql = `SELECT ${table}.rowid AS rowid, s.key AS sessionKey, bm25(${table}) AS rank
      FROM ${table} CROSS JOIN sessions s ON s.key = (${table}.rowid >> ${ROW_BITS})
      WHERE ${table} MATCH ? AND s.agent = ?${scope.source !== undefined ? ' AND s.source = ?' : ''}${likeClauses(likes.length, `${table}.content`)}
      ORDER BY ${table}.rowid DESC LIMIT ?`;
    const stmt = this.#stmt(sql);
    const params = [match, scope.agent, ...(scope.source !== undefined ? [scope.source] : []), ...likes];
    let best = new Map<number, Candidate>();
    for (let window = Math.max(RANK_WINDOW, need * RANK_WINDOW_PER_HIT); ; window *= 4) {
      const rows = stmt.all(...params, window) as Candidate[];
      best = new Map();
      for (const row of rows) {
        if (seen.has(row.sessionKey)) continue;
        const prev = best.get(row.sessionKey);
        if (!prev || row.rank < prev.rank) best.set(row.sessionKey, row);
      }
      if (rows.length < window || best.size >= need || window >= MAX_RANK_WINDOW) break;
    }
    const out = [...best.values()].sort((a, b) => a.rank - b.rank || b.rowid - a.rowid).slice(0, need);
    for (const c of out) seen.add(c.sessionKey);
    return out;
  }

  /** Short queries: a LIKE scan of the agent's substring rows, most recently updated sessions first. */
  #short(plan: QueryPlan, scope: { agent: string; source?: string }, seen: Set<number>, need: number): Candidate[] {
    if (need <= 0) return [];
    const sql = `SELECT m.id AS rowid, s.key AS sessionKey, 0 AS rank
      FROM sessions s CROSS JOIN messages m INDEXED BY messages_with_substrings
        ON m.substrings = 1 AND m.id >= (s.key << ${ROW_BITS}) AND m.id < ((s.key + 1) << ${ROW_BITS})
      WHERE s.agent = ?${scope.source !== undefined ? ' AND s.source = ?' : ''}${likeClauses(plan.likes.length, 'm.content')}
      ORDER BY s.updated_at DESC`;
    const params = [scope.agent, ...(scope.source !== undefined ? [scope.source] : []), ...plan.likes];
    const out: Candidate[] = [];
    for (const row of this.#stmt(sql).iterate(...params) as IterableIterator<Candidate>) {
      if (seen.has(row.sessionKey)) continue;
      seen.add(row.sessionKey);
      out.push(row);
      if (out.length >= need) break; // leaving the loop closes the cursor: the scan stops here
    }
    return out;
  }

  #ftsSnippet(table: FtsTable, match: string, rowid: number, tokens: number): string {
    // CAST: better-sqlite3 binds JS numbers as REAL, and FTS5 then drops a `rowid = ?` constraint
    // altogether (every matching row comes back, so the snippet would be another session's text).
    const row = this.#stmt(
      `SELECT snippet(${table}, 0, ?, ?, ?, ?) AS s FROM ${table} WHERE ${table} MATCH ? AND rowid = CAST(? AS INTEGER)`,
    ).get(MATCH_OPEN, MATCH_CLOSE, ELLIPSIS, tokens, match, rowid) as { s: string } | undefined;
    return compactSnippet(row?.s ?? '');
  }

  #hit(c: Candidate, match: MatchKind, snippet: (content: string) => string): SearchHit {
    const row = this.#stmt(
      `SELECT m.role, m.msg_index, m.content, s.* FROM messages m JOIN sessions s ON s.key = (m.id >> ${ROW_BITS}) WHERE m.id = ?`,
    ).get(c.rowid) as SessionRow & { role: IndexedRole; msg_index: number; content: string };
    return {
      sessionId: row.id,
      agent: row.agent,
      source: row.source,
      ...(row.channel !== null ? { channel: row.channel } : {}),
      title: row.title,
      snippet: snippet(row.content),
      role: row.role,
      msgIndex: row.msg_index,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      score: c.rank === 0 ? 0 : -c.rank,
      match,
    };
  }

  // --- plumbing --------------------------------------------------------------------------------

  #stmt(sql: string): Database.Statement {
    let s = this.#statements.get(sql);
    if (!s) {
      s = this.#db.prepare(sql);
      this.#statements.set(sql, s);
    }
    return s;
  }

  /**
   * SQLite's corruption errors become one ReinError that says how to repair (`withRepair` does it);
   * a write the disk cannot take becomes `disk_full` / `io_error` naming the file.
   */
  #guard<T>(fn: () => T): T {
    try {
      return fn();
    } catch (e) {
      if (isStorageFailure(e)) throw describeWriteError(e, this.file, `update the search index ${this.file}`);
      if (isCorruptionError(e)) {
        throw new ReinError(
          'internal',
          `the session search index ${this.file} is damaged (${errorMessage(e)}); rebuild it with \`rein sessions reindex\``,
          { file: this.file, reason: 'index_corrupt' },
          { cause: e },
        );
      }
      throw e;
    }
  }
}

/** Whether an error from this module means the database file is damaged (reindexing repairs it). */
export function isIndexCorrupt(e: unknown): boolean {
  return isReinError(e, 'internal') && e.details?.reason === 'index_corrupt';
}

function likeClauses(n: number, column: string): string {
  return ` AND ${column} LIKE ? ESCAPE '\\'`.repeat(n);
}

interface OldRow {
  id: number;
  msg_index: number;
  role: string;
  substrings: number;
  content: string;
}

function sameRow(a: OldRow, b: IndexRow): boolean {
  return (
    a.msg_index === b.msgIndex &&
    a.role === b.role &&
    a.substrings === (b.substrings ? 1 : 0) &&
    a.content === b.content
  );
}

const sessionKeyOf = (agent: string, id: string) => `${agent}\u0000${id}`;

function clampLimit(limit: number | undefined, fallback: number, max: number): number {
  if (limit === undefined || !Number.isFinite(limit)) return fallback;
  return Math.min(max, Math.max(1, Math.floor(limit)));
}

/** Stored times are UTC `toISOString()` text, so ordering by the text orders by time whatever offset the file used. */
function utcIso(t: string): string {
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? t : new Date(ms).toISOString();
}

function toSummary(r: SessionRow): SessionSummary {
  return {
    id: r.id,
    agent: r.agent,
    title: r.title,
    cwd: r.cwd,
    source: r.source,
    ...(r.channel !== null ? { channel: r.channel } : {}),
    created_at: r.created_at,
    updated_at: r.updated_at,
    messageCount: r.msg_count,
  };
}

/**
 * What a session file is on disk now — size, mtime, ctime and inode (each save writes a new file, and the
 * inode alone may be reused) — or null when there is none. A stamp equal to the one indexed: nothing to read.
 */
async function fileStamp(file: string): Promise<string | null> {
  try {
    return stampOf(await stat(file, { bigint: true }));
  } catch (e) {
    if (isMissing(e)) return null;
    throw e;
  }
}

/**
 * The files' stamps, read in batches with a turn of the event loop between them (a large folder does not
 * hold the daemon up): `null` where the file is gone since the readdir, `undefined` where it could not be
 * looked at (`onError` is told why).
 */
async function stampsOf(
  dir: string,
  ids: string[],
  onError: (id: string, e: unknown) => void,
): Promise<Array<string | null | undefined>> {
  const out: Array<string | null | undefined> = [];
  for (let i = 0; i < ids.length; i += STAT_BATCH) {
    if (i > 0) await new Promise((r) => setImmediate(r));
    for (const id of ids.slice(i, i + STAT_BATCH)) {
      try {
        out.push(fileStampSync(join(dir, `${id}.json`)));
      } catch (e) {
        onError(id, e);
        out.push(undefined);
      }
    }
  }
  return out;
}

function fileStampSync(file: string): string | null {
  try {
    return stampOf(statSync(file, { bigint: true }));
  } catch (e) {
    if (isMissing(e)) return null;
    throw e;
  }
}

const stampOf = (s: BigIntStats) => `${s.size}:${s.mtimeNs}:${s.ctimeNs}:${s.ino}`;

function isMissing(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

function toProblem(dir: string, id: string, e: unknown): SessionProblem {
  const file = join(dir, `${id}.json`);
  const error = isReinError(e)
    ? e
    : new ReinError('session_corrupt', `${file}: ${errorMessage(e)}`, { id, file }, { cause: e });
  return { file, error };
}
