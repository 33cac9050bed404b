/**
 * Opening `rein.db`: WAL (readers never wait for the one writer; the daemon, the CLI and the desktop
 * may all have it open), a busy timeout for the moments two writers meet, and recovery from a file
 * that is not a usable database: it is moved aside as `rein.db.corrupt-<time>` (kept for a post-mortem,
 * never deleted) and a new, empty one takes its place. The caller then refills it from the JSON files.
 * When the disk cannot take a write (full, failing, read-only), the index can still be read: opened
 * read-only, or built in memory from the JSON files (sessionIndex.ts decides).
 */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, renameSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type Database from 'better-sqlite3';
import { ReinError, errorMessage } from '../errors.js';
import { META_INDEXED_AT, SCHEMA_VERSION, ensureSchema, type SchemaOutcome } from './schema.js';
import { appRootFrom, chooseSqliteBinding } from './nativeBinding.js';

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
  const seen = fileIdentity(file);
  try {
    return openChecked(file);
  } catch (e) {
    if (!isCorruptionError(e)) throw wrapOpenError(file, e);
  }
  const movedAside = moveAside(file, seen);
  ownerOnly(file);
  try {
    return { ...openChecked(file), ...(movedAside ? { movedAside } : {}) };
  } catch (e) {
    throw wrapOpenError(file, e);
  }
}

/**
 * The existing index as it is, for reading only: nothing is written (no schema, no journal mode), so
 * it opens on a full or read-only disk. Undefined when there is none this version can use (absent,
 * another schema version, never completely built, damaged) — the caller then builds one in memory.
 */
export function openReadOnly(file: string): Database.Database | undefined {
  if (!existsSync(file)) return undefined;
  let db: Database.Database | undefined;
  try {
    db = new (sqliteClass())(file, { readonly: true, fileMustExist: true });
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    const usable =
      db.pragma('user_version', { simple: true }) === SCHEMA_VERSION &&
      db.prepare(`SELECT 1 FROM meta WHERE key = ?`).get(META_INDEXED_AT) !== undefined;
    if (usable) return db;
  } catch {
    // Not readable as it is (a WAL index whose -shm cannot be made on this disk, damage): not usable.
  }
  db?.close();
  return undefined;
}

/** An empty index in memory, with this version's schema: a search that cannot use the file at all. */
export function openInMemory(): Database.Database {
  const db = new (sqliteClass())(':memory:');
  ensureSchema(db);
  return db;
}

/** Which file a path names now (device and inode), to tell whether another process replaced it. */
export function fileIdentity(file: string): string | undefined {
  try {
    const st = statSync(file, { bigint: true });
    return `${st.dev}:${st.ino}`;
  } catch {
    return undefined;
  }
}

/**
 * The native addon, loaded by the first open: a command that neither searches nor indexes never pays
 * for it (docs/architecture.md, *Startup*).
 */
let sqlite: typeof Database | undefined;
function sqliteClass(): typeof Database {
  sqlite ??= withElectronBinding(createRequire(import.meta.url)('better-sqlite3') as typeof Database);
  return sqlite;
}

/**
 * Under Electron, the addon built for Electron's ABI (nativeBinding.ts), handed to every open as
 * better-sqlite3's `nativeBinding`; under Node the class as it is (node_modules' own build).
 */
function withElectronBinding(Base: typeof Database): typeof Database {
  if (!process.versions.electron) return Base;
  const choice = chooseSqliteBinding({
    versions: process.versions,
    platform: process.platform,
    arch: process.arch,
    ...((process as { resourcesPath?: string }).resourcesPath
      ? { resourcesPath: (process as { resourcesPath?: string }).resourcesPath }
      : {}),
    ...(appRootFrom(fileURLToPath(import.meta.url)) ? { appRoot: appRootFrom(fileURLToPath(import.meta.url))! } : {}),
  });
  if (choice.why === 'mismatch') process.stderr.write(`rein: ${choice.problem}\n`);
  const binding = choice.binding;
  if (!binding) return Base;
  const Bound = function (this: unknown, file?: string | Buffer, options?: Database.Options) {
    return new Base(file, { ...options, nativeBinding: binding });
  } as unknown as typeof Database;
  Object.setPrototypeOf(Bound, Base);
  return Bound;
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
 * Renames the damaged file and its WAL and shared-memory file out of the way, keeping all three for a
 * post-mortem. The WAL must go: left behind, SQLite could replay its pages into the new file.
 *
 * With `expected` (fileIdentity of the damaged file as it was opened), only that file is moved: when
 * another process has already moved it and built a new index at the path, that new one stays, and
 * undefined is returned.
 */
export function moveAside(file: string, expected?: string): string | undefined {
  if (expected !== undefined && fileIdentity(file) !== expected) return undefined;
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const target = `${file}.corrupt-${stamp}`;
  try {
    renameSync(file, target);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined; // moved by another process meanwhile
    throw new ReinError(
      'internal',
      `cannot move the damaged session index ${file} aside: ${errorMessage(e)}`,
      { file },
      { cause: e },
    );
  }
  for (const companion of ['-wal', '-shm']) {
    try {
      renameSync(`${file}${companion}`, `${target}${companion}`);
    } catch {
      // Absent (no WAL yet), or taken along by another process.
    }
  }
  return target;
}

function wrapOpenError(file: string, e: unknown): ReinError {
  return new ReinError('internal', `cannot open the session index ${file}: ${errorMessage(e)}`, { file }, { cause: e });
}
