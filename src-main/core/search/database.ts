/**
 * Opening `rein.db`: WAL (readers never wait for the one writer; the daemon, the CLI and the desktop
 * may all have it open), a busy timeout for the moments two writers meet, and recovery from a file
 * that is not a usable database: it is moved aside as `rein.db.corrupt-<time>` (kept for a post-mortem,
 * never deleted) and a new, empty one takes its place. The caller then refills it from the JSON files.
 */
import { mkdirSync, renameSync, rmSync, existsSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { ReinError, errorMessage } from '../errors.js';
import { ensureSchema, type SchemaOutcome } from './schema.js';

/** How long a writer waits for another process's write transaction before giving up. */
export const BUSY_TIMEOUT_MS = 5_000;

export interface OpenedDatabase {
  db: Database.Database;
  schema: SchemaOutcome;
  /** Where a damaged file was moved, when it was. */
  movedAside?: string;
}

export function openDatabase(file: string): OpenedDatabase {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  try {
    return openChecked(file);
  } catch (e) {
    if (!isCorruptionError(e)) throw wrapOpenError(file, e);
  }
  const movedAside = moveAside(file);
  try {
    return { ...openChecked(file), movedAside };
  } catch (e) {
    throw wrapOpenError(file, e);
  }
}

function openChecked(file: string): Omit<OpenedDatabase, 'movedAside'> {
  const db = new Database(file);
  try {
    // The first statements read the header: a file of garbage fails here, not on the first search.
    db.pragma('journal_mode = WAL');
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    // NORMAL is durable enough in WAL mode for data that can always be rebuilt, and much faster.
    db.pragma('synchronous = NORMAL');
    db.prepare('SELECT count(*) FROM sqlite_schema').get();
    const schema = ensureSchema(db);
    return { db, schema };
  } catch (e) {
    db.close();
    throw e;
  }
}

/** SQLite's verdict that the file (or a page of it) is not a valid database. */
export function isCorruptionError(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT'));
}

/**
 * Renames the damaged file and its WAL out of the way. The WAL must go too: left behind, SQLite could
 * replay its pages into the new file.
 */
export function moveAside(file: string): string {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const target = `${file}.corrupt-${stamp}`;
  renameSync(file, target);
  if (existsSync(`${file}-wal`)) renameSync(`${file}-wal`, `${target}-wal`);
  rmSync(`${file}-shm`, { force: true });
  return target;
}

function wrapOpenError(file: string, e: unknown): ReinError {
  return new ReinError('internal', `cannot open the session index ${file}: ${errorMessage(e)}`, { file }, { cause: e });
}
