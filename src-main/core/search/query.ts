/**
 * Turns what a person (or the model) typed into the searches the index can run. The input is plain
 * text, never FTS5 syntax: every term is quoted, so `foo-bar`, `C++`, `AND`, `a:b` or a stray quote can
 * never be a syntax error. `"two words"` in double quotes is kept together as a phrase; other terms are
 * ANDed (all must occur in the same message).
 *
 * Three stages. The words stage runs whenever it can serve the query; the other two run when it
 * cannot, or when it found nothing:
 *   words      — porter/unicode61 index over all indexed text: whole words with English stemming
 *                (`running` finds `runs`). Only when every term is made of word characters and has no
 *                CJK: the tokenizer would silently drop `++` from `C++` (matching every lone "c") and
 *                sees a whole run of Chinese characters as one word.
 *   substrings — trigram index: case-insensitive substrings of 3+ characters, so `数据库` finds
 *                `数据库迁移` and `config` finds `configuration`. It covers the conversation and any
 *                text with CJK in it, not plain tool output (found by its words). Terms shorter than 3
 *                characters ride along as LIKE filters on the matched rows.
 *   short      — LIKE scan of the same rows, only when no term has 3 characters (a trigram index
 *                cannot look up `数据`).
 */
import { hasCjk } from './cjk.js';

export interface QueryPlan {
  /** Terms as the user meant them (phrases without their quotes), for snippets built outside FTS. */
  terms: string[];
  /** FTS5 MATCH expression for the porter index; absent when the words stage cannot serve the query. */
  words?: string;
  /** FTS5 MATCH expression for the trigram index (terms of 3+ characters). */
  substrings?: string;
  /** LIKE patterns (escape character `\`) that every matching message must also contain. */
  likes: string[];
}

export interface PlanOptions {
  /** Match the last term as a word prefix in the words stage (`deplo` finds `deployment`). */
  prefix?: boolean;
}

/** The trigram tokenizer needs this many characters to look a term up. */
export const MIN_SUBSTRING_CHARS = 3;

/** Characters unicode61 keeps in tokens. */
const WORD_CHAR = /[\p{L}\p{N}\p{M}]/u;
/**
 * Punctuation that only separates words, so dropping it (as unicode61 does) keeps the meaning:
 * `foo-bar`, `node_modules/x.js`, `config:`, `don't`, `(beta)`. Anything else (`+ # $ = < > @ & * | ~`)
 * makes the term an exact string that only the substring stage honours.
 */
const SEPARATOR_CHAR = /[\s\-_.,:;!?'"/()\u2018\u2019\u201c\u201d]/u;
const TERM = /"([^"]*)"|(\S+)/gu;

export function planQuery(raw: string, opts: PlanOptions = {}): QueryPlan | undefined {
  const terms = splitTerms(raw.normalize('NFC'));
  if (terms.length === 0) return undefined;

  const plan: QueryPlan = { terms, likes: [] };

  const wordy = terms.every(
    (t) => !hasCjk(t) && WORD_CHAR.test(t) && [...t].every((c) => WORD_CHAR.test(c) || SEPARATOR_CHAR.test(c)),
  );
  if (wordy) {
    plan.words = terms.map((t, i) => ftsString(t) + (opts.prefix && i === terms.length - 1 ? '*' : '')).join(' ');
  }

  const long = terms.filter((t) => charCount(t) >= MIN_SUBSTRING_CHARS);
  const short = terms.filter((t) => charCount(t) < MIN_SUBSTRING_CHARS);
  if (long.length > 0) plan.substrings = long.map(ftsString).join(' ');
  plan.likes = short.map(likePattern);
  return plan;
}

/** Whitespace-separated terms; `"…"` keeps a phrase together. Stray quotes are dropped. */
export function splitTerms(raw: string): string[] {
  const terms: string[] = [];
  for (const m of raw.matchAll(TERM)) {
    const term = (m[1] ?? m[2] ?? '').replace(/"/g, '').replace(/\s+/g, ' ').trim();
    if (term) terms.push(term);
  }
  return terms;
}

/** An FTS5 string literal: the whole term is data, whatever characters it holds. */
export function ftsString(term: string): string {
  return `"${term.replace(/"/g, '""')}"`;
}

export function likePattern(term: string): string {
  return `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Characters as a reader counts them: code points, so `数据` and `🙂🙂` are both 2. */
export function charCount(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}
