/**
 * Layout of `rein.db`. The database holds nothing but what the session JSON files already say, so a
 * schema change never migrates: a different `PRAGMA user_version` drops everything and the index is
 * rebuilt from the files.
 */
import type Database from 'better-sqlite3';

/**
 * Bump on any change below, or to what search/extract.ts puts in the rows; every Rein that sees another
 * number rebuilds. 3: Rein's per-turn `<!-- cache_break -->` / `<context>` block and hook output are no
 * longer indexed (version 2 indexes held them, so "working folder" matched every session). 4: each
 * session's file stamp (`file_stamp`), so what is unchanged on disk is not read again.
 */
export const SCHEMA_VERSION = 4;

/** The FTS5 tables, in the order searches try them. */
export const FTS_TABLES = ['conversation_words', 'tool_output_words', 'substrings'] as const;
export type FtsTable = (typeof FTS_TABLES)[number];

/** Message row ids are `(session key << ROW_BITS) + position`; a session can have 2^24 indexed rows. */
export const ROW_BITS = 24;
export const ROWS_PER_SESSION = 2 ** ROW_BITS;

/** `meta` key set once a full index from the JSON files has completed. */
export const META_INDEXED_AT = 'indexed_at';

const DDL = `
CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;

-- One row per session. Ids are unique in practice, but isolation is per (agent, id): a session file
-- copied into another agent's folder stays that agent's own.
CREATE TABLE sessions (
  key        INTEGER PRIMARY KEY,
  id         TEXT NOT NULL,
  agent      TEXT NOT NULL,
  source     TEXT NOT NULL,
  channel    TEXT,
  title      TEXT NOT NULL,
  cwd        TEXT NOT NULL,
  created_at TEXT NOT NULL,   -- ISO-8601 UTC (toISOString), so text order is time order
  updated_at TEXT NOT NULL,
  msg_count  INTEGER NOT NULL,
  -- The JSON file as it was when these rows were read from it (size, mtime, ctime, inode: sessionIndex.ts
  -- fileStamp); NULL when indexed from a session in memory. The same stamp on disk: nothing to read.
  file_stamp TEXT,
  UNIQUE (agent, id)
);
CREATE INDEX sessions_by_agent_updated ON sessions (agent, updated_at DESC);
CREATE INDEX sessions_by_source_updated ON sessions (source, updated_at DESC);
CREATE INDEX sessions_by_id ON sessions (id);

-- Searchable text (search/extract.ts): several rows may come from one message. A row's id is
-- (session key << 24) + its position among the session's rows, so the session of a matching row is
-- known from the id alone, without reading the (wide) row, and a session's rows form one id range.
-- Session keys grow as sessions are added, so higher ids belong to newer sessions.
CREATE TABLE messages (
  id         INTEGER PRIMARY KEY,
  msg_index  INTEGER NOT NULL,
  role       TEXT NOT NULL,
  substrings INTEGER NOT NULL,  -- 1: also in the trigram index
  content    TEXT NOT NULL
);
-- Lets a short-query scan visit only the rows that take part in substring search.
CREATE INDEX messages_with_substrings ON messages (id) WHERE substrings = 1;

-- Three FTS5 indexes over the text (stored once, in messages):
--   conversation_words  whole words with English stemming: user messages, answers, tool calls;
--   tool_output_words   the same over tool output, kept apart so a word that fills tool output
--                       ("error", "file") costs nothing when the conversation already has matches:
--                       bm25 reads a phrase's whole match list once per query, and searches try
--                       the conversation first;
--   substrings          trigrams, for substrings (Chinese and Japanese have no spaces between words;
--                       partial words; code) over the rows marked \`substrings\`: the conversation and
--                       tool output with CJK in it. The rest of the tool output is most of the text;
--                       trigram-indexing it (one entry per character) would make the index several
--                       times larger and slower to build.
CREATE VIRTUAL TABLE conversation_words USING fts5(
  content, content = 'messages', content_rowid = 'id', tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE VIRTUAL TABLE tool_output_words USING fts5(
  content, content = 'messages', content_rowid = 'id', tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE VIRTUAL TABLE substrings USING fts5(
  content, content = 'messages', content_rowid = 'id', tokenize = 'trigram remove_diacritics 1'
);

-- Rows are only ever inserted and deleted, never updated. Each index must delete exactly the rows it
-- indexed: deleting a row an external-content FTS5 table never saw corrupts it.
CREATE TRIGGER conversation_words_insert AFTER INSERT ON messages WHEN new.role <> 'tool_result' BEGIN
  INSERT INTO conversation_words (rowid, content) VALUES (new.id, new.content);
END;
CREATE TRIGGER conversation_words_delete AFTER DELETE ON messages WHEN old.role <> 'tool_result' BEGIN
  INSERT INTO conversation_words (conversation_words, rowid, content) VALUES ('delete', old.id, old.content);
END;
CREATE TRIGGER tool_output_words_insert AFTER INSERT ON messages WHEN new.role = 'tool_result' BEGIN
  INSERT INTO tool_output_words (rowid, content) VALUES (new.id, new.content);
END;
CREATE TRIGGER tool_output_words_delete AFTER DELETE ON messages WHEN old.role = 'tool_result' BEGIN
  INSERT INTO tool_output_words (tool_output_words, rowid, content) VALUES ('delete', old.id, old.content);
END;
CREATE TRIGGER substrings_insert AFTER INSERT ON messages WHEN new.substrings = 1 BEGIN
  INSERT INTO substrings (rowid, content) VALUES (new.id, new.content);
END;
CREATE TRIGGER substrings_delete AFTER DELETE ON messages WHEN old.substrings = 1 BEGIN
  INSERT INTO substrings (substrings, rowid, content) VALUES ('delete', old.id, old.content);
END;
`;

export type SchemaOutcome = 'current' | 'created' | 'replaced';

/**
 * Makes sure the database has this version's schema. Runs in one IMMEDIATE transaction so two
 * processes opening a new file at once cannot both create it.
 */
export function ensureSchema(db: Database.Database): SchemaOutcome {
  return db
    .transaction((): SchemaOutcome => {
      const version = db.pragma('user_version', { simple: true }) as number;
      if (version === SCHEMA_VERSION) return 'current';
      const hadObjects = dropAll(db);
      db.exec(DDL);
      db.pragma(`user_version = ${SCHEMA_VERSION}`);
      return version === 0 && !hadObjects ? 'created' : 'replaced';
    })
    .immediate();
}

/** Drops every table, virtual tables first (they own their shadow tables). Returns whether any existed. */
function dropAll(db: Database.Database): boolean {
  const objects = () =>
    db.prepare(`SELECT name, sql FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`).all() as Array<{
      name: string;
      sql: string | null;
    }>;
  const before = objects();
  for (const t of before.filter((o) => /^\s*CREATE\s+VIRTUAL/i.test(o.sql ?? '')))
    db.exec(`DROP TABLE IF EXISTS "${t.name.replace(/"/g, '""')}"`);
  for (const t of objects()) db.exec(`DROP TABLE IF EXISTS "${t.name.replace(/"/g, '""')}"`);
  return before.length > 0;
}
