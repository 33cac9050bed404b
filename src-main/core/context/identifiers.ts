/**
 * Identifier-like tokens (paths, URLs, host:port, ids, hashes) are what a summary most often loses and
 * what a continuation most often needs verbatim: "the config at /srv/app/prod.yaml", "commit 4f2a9c1".
 * Compaction picks up to 12 from the part it drops and makes sure the summary carries each one.
 */

export const MAX_IDENTIFIERS = 12;

export type IdentifierKind = 'url' | 'uuid' | 'host' | 'path' | 'id' | 'hash' | 'number';

// Order matters: longer shapes are taken first and removed, so a URL is not also counted as a path.
const PATTERNS: Array<[IdentifierKind, RegExp]> = [
  ['url', /\bhttps?:\/\/[^\s<>"'`)\]}]+/g],
  ['uuid', /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi],
  ['host', /\b(?:\d{1,3}(?:\.\d{1,3}){3}|localhost|(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,})(?::\d{2,5})\b/gi], // host:port
  ['path', /(?<![\w.@+-])(?:~|\.{1,2})?\/(?:[\w.@+-]+\/)*[\w.@+-]*[\w@+-]/g], // absolute, home and ./ paths
  ['path', /\b[\w.@+-]+(?:\/[\w.@+-]+)+\.[a-z0-9]{1,8}\b/gi], // relative paths with an extension: src/app/main.ts
  ['host', /\b\d{1,3}(?:\.\d{1,3}){3}\b/g], // IPv4
  ['id', /\b[A-Z][A-Z0-9]{1,9}-\d{1,7}\b/g], // tickets: OPS-1234
  ['id', /\b[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*[-_][0-9a-f]{6,}\b/gi], // named ids with a hex tail: deploy-7f3a9c2e
  ['hash', /\b[0-9a-f]{7,64}\b/gi], // hashes (checked below for mixing letters and digits)
  ['number', /\b\d{6,}\b/g], // long numbers: order ids, timestamps
];

export interface IdentifierMatch {
  token: string;
  kind: IdentifierKind;
}

/** All identifier-like tokens of a text, in order of appearance (duplicates kept). */
export function findIdentifiers(text: string): string[] {
  return findIdentifierMatches(text).map((m) => m.token);
}

export function findIdentifierMatches(text: string): IdentifierMatch[] {
  const found: Array<{ at: number } & IdentifierMatch> = [];
  let rest = text;
  for (const [kind, re] of PATTERNS) {
    re.lastIndex = 0;
    rest = rest.replace(re, (match: string, ...args: unknown[]) => {
      const at = args[args.length - 2] as number;
      const token = trimPunctuation(match);
      if (accept(token)) found.push({ at, token, kind: kind === 'hash' && /^\d+$/.test(token) ? 'number' : kind });
      // Blank the match out (same length) so later patterns cannot take pieces of it.
      return ' '.repeat(match.length);
    });
  }
  return found.sort((a, b) => a.at - b.at).map(({ token, kind }) => ({ token, kind }));
}

function trimPunctuation(token: string): string {
  return token.replace(/[.,;:!?]+$/, '');
}

function accept(token: string): boolean {
  if (token.length < 4) return false;
  if (/^\/+$/.test(token)) return false;
  if (/^[0-9a-f]+$/i.test(token)) {
    // A bare hex run is a hash only when it mixes digits and letters (not "deadbeef" words or plain numbers ≥ 6 digits, matched elsewhere).
    return /\d/.test(token) && /[a-f]/i.test(token) ? true : /^\d{6,}$/.test(token);
  }
  if (token.startsWith('/') && !token.slice(1).includes('/') && !/\.[a-z0-9]+$/i.test(token)) {
    // "/tmp" style single segments are too common to be worth keeping; "/etc/hosts" and "/x.txt" are kept.
    return false;
  }
  return true;
}

export interface WeightedText {
  text: string;
  /** How much a mention here counts: what people and the model said outweighs raw tool output. */
  weight: number;
}

/**
 * Up to `max` identifiers. Scores add up the weights of every mention. Kinds take turns (the best
 * URL, the best host, the best path, …, then the second best of each), so fifty file reads cannot
 * crowd out the one database host; within a kind, higher score first, then the latest mention.
 * Returned in order of first appearance so they read naturally.
 */
export function pickIdentifiers(texts: readonly WeightedText[], max = MAX_IDENTIFIERS): string[] {
  const stats = new Map<string, { kind: IdentifierKind; score: number; first: number; last: number }>();
  let pos = 0;
  for (const t of texts) {
    for (const { token, kind } of findIdentifierMatches(t.text)) {
      const s = stats.get(token);
      if (s) {
        s.score += t.weight;
        s.last = pos;
      } else stats.set(token, { kind, score: t.weight, first: pos, last: pos });
      pos++;
    }
  }
  type Entry = [string, { kind: IdentifierKind; score: number; first: number; last: number }];
  const better = (a: Entry, b: Entry) => b[1].score - a[1].score || b[1].last - a[1].last;
  const byKind = new Map<IdentifierKind, Entry[]>();
  for (const e of [...stats.entries()].sort(better)) {
    const list = byKind.get(e[1].kind) ?? [];
    list.push(e);
    byKind.set(e[1].kind, list);
  }
  const kinds = [...byKind.values()].sort((a, b) => better(a[0]!, b[0]!));
  const picked: Entry[] = [];
  for (let round = 0; picked.length < max; round++) {
    const before = picked.length;
    for (const list of kinds) if (list[round] && picked.length < max) picked.push(list[round]!);
    if (picked.length === before) break;
  }
  return picked.sort((a, b) => a[1].first - b[1].first).map(([token]) => token);
}

export const IDENTIFIERS_HEADING = 'Identifiers from the earlier conversation (verbatim):';

/** The summary with any of `identifiers` it lacks appended verbatim. */
export function ensureIdentifiers(
  summary: string,
  identifiers: readonly string[],
): { text: string; appended: string[] } {
  const missing = identifiers.filter((id) => !summary.includes(id));
  if (missing.length === 0) return { text: summary, appended: [] };
  return {
    text: `${summary.trimEnd()}\n\n${IDENTIFIERS_HEADING}\n${missing.map((m) => `- ${m}`).join('\n')}`,
    appended: missing,
  };
}
