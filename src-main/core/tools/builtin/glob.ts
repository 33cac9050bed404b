/** `glob`: find files by name pattern, newest first. */
import { callSummaryOf } from '../../api/toolSummary.js';
import { stat } from 'node:fs/promises';
import { isAbsolute, sep } from 'node:path';
import { glob as findFiles, isDynamicPattern } from 'tinyglobby';
import { z } from 'zod';
import { errorResult, okResult, type Tool } from '../tool.js';
import { noiseIgnores } from './support/walkFilter.js';
import { errnoCode, expandHome, resolveToolPath } from './support/toolPaths.js';
import { GLOB_TRAITS } from './builtinTraits.js';

export const GLOB_MAX_RESULTS = 1_000;
/** Bounded parallelism for the mtime lookups of large result sets. */
const STAT_BATCH = 64;

const input = z.strictObject({
  pattern: z.string().min(1).describe('Glob pattern such as "**/*.ts" or "src/**/test_*.py" (** crosses folders).'),
  path: z.string().min(1).optional().describe('Folder to search in (default: the working folder).'),
});
export type GlobInput = z.infer<typeof input>;

export const globTool: Tool<GlobInput> = {
  name: 'glob',
  source: 'local',
  traits: GLOB_TRAITS,
  description: [
    'Find files whose path matches a glob pattern (`*` within a name, `**` across folders, `{a,b}` alternatives).',
    'Returns paths relative to the search folder, newest first, at most 1,000.',
    '.git and node_modules are skipped unless the pattern names them. Use grep to search file contents.',
  ].join(' '),
  input,
  isReadOnly: () => true,
  isDestructive: () => false,
  summarize: (i) => callSummaryOf('glob', i),

  async call(i, ctx, signal) {
    let base = resolveToolPath(i.path ?? '.', ctx.cwd);
    let pattern = i.pattern;
    // An absolute pattern carries its own base: split it at the first segment with glob syntax.
    const expanded = expandHome(pattern);
    if (isAbsolute(expanded)) {
      const split = splitStaticPrefix(expanded);
      base = split.base;
      pattern = split.rest;
    }
    try {
      const st = await stat(base);
      if (!st.isDirectory()) return errorResult('validation', `${i.path ?? base} is not a folder`);
    } catch (e) {
      const code = errnoCode(e);
      if (code === 'ENOENT' || code === 'ENOTDIR')
        return errorResult('validation', `the folder ${i.path ?? base} does not exist`);
      if (code === 'EACCES' || code === 'EPERM')
        return errorResult('permission', `no permission to read ${i.path ?? base}`);
      return errorResult(
        'transient',
        `could not read ${i.path ?? base}: ${e instanceof Error ? e.message : String(e)}`,
      );
    }

    let matches: string[];
    try {
      matches = await findFiles(pattern, {
        cwd: base,
        dot: true,
        onlyFiles: true,
        followSymbolicLinks: false,
        ignore: noiseIgnores(pattern),
        signal,
      });
    } catch (e) {
      if (signal.aborted) return errorResult('transient', 'glob was cancelled');
      return errorResult(
        'validation',
        `invalid glob pattern ${JSON.stringify(i.pattern)}: ${e instanceof Error ? e.message : String(e)}`,
      );
    }
    if (matches.length === 0) return okResult('no files matched');

    const withTimes = await mtimes(base, matches);
    withTimes.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    const shown = withTimes.slice(0, GLOB_MAX_RESULTS).map((m) => m.path);
    let out = shown.join('\n');
    if (withTimes.length > GLOB_MAX_RESULTS) {
      out += `\n\n(showing the ${GLOB_MAX_RESULTS} newest of ${withTimes.length} matches; narrow the pattern or path)`;
    }
    return okResult(out);
  },
};

async function mtimes(base: string, paths: string[]): Promise<{ path: string; mtimeMs: number }[]> {
  const out: { path: string; mtimeMs: number }[] = [];
  for (let start = 0; start < paths.length; start += STAT_BATCH) {
    const batch = paths.slice(start, start + STAT_BATCH);
    const stats = await Promise.all(
      batch.map(async (p) => {
        try {
          return (await stat(`${base}${sep}${p}`)).mtimeMs;
        } catch {
          return 0; // vanished or a dangling link: still listed, last
        }
      }),
    );
    batch.forEach((p, n) => out.push({ path: p, mtimeMs: stats[n] ?? 0 }));
  }
  return out;
}

function splitStaticPrefix(absPattern: string): { base: string; rest: string } {
  const segments = absPattern.split('/');
  let n = 0;
  while (n < segments.length - 1 && !isDynamicPattern(segments[n] ?? '')) n++;
  const base = segments.slice(0, n).join('/') || '/';
  return { base, rest: segments.slice(n).join('/') || '*' };
}
