/**
 * Skill bodies refer to their own files relatively (`scripts/check.sh`, `./references/api.md`,
 * `[the form](FORMS.md)`), but the model runs commands from the user's working folder. Before a body
 * is handed to the model, every such reference that names a file or folder really inside the skill
 * folder becomes an absolute path. Anything else is left exactly as written: absolute paths, `~`
 * paths, URLs, globs, paths that climb out of the folder, and paths that do not exist there (the body
 * may be talking about the user's files).
 */
import { stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';

// A token is a maximal run of characters that are not whitespace, quotes, brackets or separators.
// `=` splits `--config=scripts/c.json`; `(` and `)` isolate markdown link targets.
const TOKEN = /[^\s`'"()<>[\]{}|,;=]+/g;
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;
const TRAILING_PUNCTUATION = /[.:!?]+$/;

interface Candidate {
  start: number;
  end: number;
  /** The path as written, without fragment or trailing punctuation. */
  path: string;
  /** `#section` and/or sentence punctuation that stay after the rewritten path. */
  suffix: string;
  isLinkTarget: boolean;
}

export async function rewriteSkillPaths(body: string, skillDir: string): Promise<string> {
  const dir = resolve(skillDir);
  const candidates: Candidate[] = [];
  for (const m of body.matchAll(TOKEN)) {
    const start = m.index;
    const isLinkTarget = body.slice(Math.max(0, start - 2), start) === '](';
    candidates.push(...candidatesFor(m[0], start, isLinkTarget));
  }

  const exists = new Map<string, Promise<boolean>>();
  const existsInside = (p: string): Promise<boolean> => {
    let known = exists.get(p);
    if (!known) {
      known = stat(resolve(dir, p)).then(
        () => true,
        () => false,
      );
      exists.set(p, known);
    }
    return known;
  };

  // For each token, the first (longest) candidate that names a real file wins.
  const chosen = new Map<number, Candidate>();
  const checks = await Promise.all(candidates.map((c) => (insideFolder(dir, c.path) ? existsInside(c.path) : false)));
  candidates.forEach((c, i) => {
    if (checks[i] && !chosen.has(c.start)) chosen.set(c.start, c);
  });
  if (chosen.size === 0) return body;

  let out = '';
  let at = 0;
  for (const c of [...chosen.values()].sort((a, b) => a.start - b.start)) {
    // resolve() drops a trailing slash; keep it, it says "folder" to the reader.
    const abs = resolve(dir, c.path) + (c.path.endsWith('/') ? '/' : '');
    out += body.slice(at, c.start) + absoluteForm(abs, c, body) + c.suffix;
    at = c.end;
  }
  return out + body.slice(at);
}

/** The readings of one token worth checking, longest first: as written, then without `.`/`:` at the end. */
function candidatesFor(token: string, start: number, isLinkTarget: boolean): Candidate[] {
  if (token.startsWith('/') || token.startsWith('~') || token.startsWith('$') || token.startsWith('-')) return [];
  if (token.includes('\\') || SCHEME.test(token)) return [];

  const out: Candidate[] = [];
  const hash = token.indexOf('#');
  const fragment = hash >= 0 ? token.slice(hash) : '';
  const withoutFragment = hash >= 0 ? token.slice(0, hash) : token;
  const readings = [{ path: withoutFragment, tail: '' }];
  const punctuation = TRAILING_PUNCTUATION.exec(withoutFragment)?.[0];
  if (punctuation && hash < 0)
    readings.push({ path: withoutFragment.slice(0, -punctuation.length), tail: punctuation });

  for (const r of readings) {
    if (r.path === '' || r.path === '.' || r.path === './') continue;
    // Bare words ("README.md", "python") are too ambiguous in prose; a link target is unambiguous.
    if (!isLinkTarget && !r.path.includes('/')) continue;
    out.push({ start, end: start + token.length, path: r.path, suffix: fragment + r.tail, isLinkTarget });
  }
  return out;
}

function insideFolder(dir: string, p: string): boolean {
  const rel = relative(dir, resolve(dir, p));
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

/** Paths with spaces (a home folder like "/Users/Ann Lee") are wrapped so links and commands still work. */
function absoluteForm(abs: string, c: Candidate, body: string): string {
  if (!/\s/.test(abs)) return abs;
  if (c.isLinkTarget) return `<${abs}>`;
  const before = body[c.start - 1];
  if (before === '"' || before === "'") return abs;
  return `'${abs}'`;
}
