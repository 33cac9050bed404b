/**
 * Patterns in `allowed_commands` / `denied_commands`. They are command globs, not path globs: `*` matches
 * any run of characters including `/` and spaces, `?` matches one character, everything else is literal
 * (so shell syntax such as `|`, `(`, `{a,b}` or `!` in a pattern means itself). Whitespace runs compare as
 * one space.
 */
const cache = new Map<string, RegExp>();

const squash = (s: string): string => s.trim().replace(/\s+/g, ' ');

export function commandGlob(pattern: string, caseInsensitive = false): RegExp {
  const key = `${caseInsensitive ? 'i' : 's'}:${pattern}`;
  let re = cache.get(key);
  if (!re) {
    const body = [...squash(pattern)]
      .map((c) => (c === '*' ? '[\\s\\S]*' : c === '?' ? '[\\s\\S]' : c.replace(/[.+^${}()|[\]\\/-]/g, '\\$&')))
      .join('');
    re = new RegExp(`^${body}$`, caseInsensitive ? 'i' : '');
    if (cache.size > 2000) cache.clear();
    cache.set(key, re);
  }
  return re;
}

export interface PatternOptions {
  /** A pattern that is one bare word (`rm`) also matches that command with any arguments. */
  bareNameMatchesAnyArgs?: boolean;
  caseInsensitive?: boolean;
}

/** The first pattern matching any of the texts, or undefined. */
export function firstMatchingPattern(
  patterns: readonly string[],
  texts: readonly string[],
  opts: PatternOptions = {},
): string | undefined {
  for (const p of patterns) {
    const sq = squash(p);
    if (!sq) continue;
    const re = commandGlob(sq, opts.caseInsensitive);
    const bare =
      opts.bareNameMatchesAnyArgs && /^[^\s*?]+$/.test(sq) ? commandGlob(`${sq} *`, opts.caseInsensitive) : undefined;
    for (const t of texts) {
      const st = squash(t);
      if (re.test(st) || bare?.test(st)) return p;
    }
  }
  return undefined;
}
