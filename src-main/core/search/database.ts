/**
 * Opening `rein.db`: WAL (readers never wait for the one writer; the daemon, the CLI and the desktop
 * may all have it open), a busy timeout for the moments two writers meet, and recovery from a file
 * that is not a usable database: it is moved aside as `rein.db.corrupt-<time>` (kept for a post-mortem,
 * never deleted) and a new, empty one takes its place. The caller then refills it from the JSON files.
 */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type Database from 'better-sqlite3';
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

/** rein.db holds the text of every session: its owner's alone, like the session files. */
export const DATABASE_FILE_MODE = 0o600;

export function openDatabase(file: string): OpenedDatabase {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  ownerOnly(file);
  try {
    return openChecked(file);
  } catch (e) {
    if (!isCorruptionError(e)) throw wrapOpenError(file, e);
  }
  const movedAside = moveAside(file);
  ownerOnly(file);
  try {
    return { ...openChecked(file), movedAside };
  } catch (e) {
    throw wrapOpenError(file, e);
  }
}

/**
 * The native addon, loaded by the first open: a command that neither searches nor indexes never pays
 * for it (docs/architecture.md, *Startup*).
 */
let sqlite: typeof Database | undefined;
function sqliteClass(): typeof Database {
  sqlite ??= createRequire(import.meta.url)('better-sqlite3') as typeof Database;
  return sqlite;
}

function openChecked(file: string): Omit<OpenedDatabase, 'movedAside'> {
  const Sqlite = sqliteClass();
  const db = new Sqlite(file);
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

/**
 * Creates the file 0600 before SQLite opens it (SQLite would create it 0644 less the umask, and gives
 * its -wal and -shm files the database file's mode), and narrows an existing one and its companions
 * made by an earlier version.
 */
function ownerOnly(file: string): void {
  // Best effort: a file that cannot be opened here fails SQLite's open next, which says why.
  try {
    closeSync(openSync(file, 'a', DATABASE_FILE_MODE));
  } catch {
    return;
  }
  for (const f of [file, `${file}-wal`, `${file}-shm`]) {
    try {
      chmodSync(f, DATABASE_FILE_MODE);
    } catch {
      // Absent (no WAL yet) or not ours to change.
    }
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
