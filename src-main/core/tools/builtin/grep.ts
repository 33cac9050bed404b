/** `grep`: search file contents with a regular expression (ripgrep when installed, a JS walk otherwise). */
import { callSummaryOf } from '../../api/toolSummary.js';
import { spawn } from 'node:child_process';
import { readFile, stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { Stats } from 'node:fs';
import { glob as findFiles } from 'tinyglobby';
import { z } from 'zod';
import { errorResult, okResult, type Tool, type ToolResult } from '../tool.js';
import { findOnPath } from './support/executables.js';
import { looksBinary, SNIFF_BYTES } from './support/fileKind.js';
import { noiseIgnores, NOISE_DIRS } from './support/walkFilter.js';
import { errnoCode, resolveToolPath } from './support/toolPaths.js';
import { realpathLoose } from '../../util/realpath.js';
import { reinSecretReason } from '../../secrets/reinSecrets.js';
import { GREP_TRAITS } from './builtinTraits.js';

export const GREP_DEFAULT_MAX_RESULTS = 100;
export const GREP_MAX_RESULTS = 1_000;
/** Matching lines in minified files can be enormous; the match location matters more than the whole line. */
const MAX_MATCH_LINE_CHARS = 500;
/** The JS fallback reads whole files; beyond this it is not worth it (rg streams and has no such limit). */
const FALLBACK_MAX_FILE_BYTES = 50 * 1024 * 1024;

const input = z.strictObject({
  pattern: z.string().min(1).describe('Regular expression to search for (ripgrep syntax; e.g. "function\\s+main").'),
  path: z.string().min(1).optional().describe('File or folder to search (default: the working folder).'),
  glob: z.string().min(1).optional().describe('Only search files matching this glob, e.g. "*.ts" or "src/**/*.py".'),
  max_results: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe(`Maximum matching lines to return (default ${GREP_DEFAULT_MAX_RESULTS}, max ${GREP_MAX_RESULTS}).`),
  case_insensitive: z.boolean().optional().describe('Ignore case (default false).'),
});
export type GrepInput = z.infer<typeof input>;

export interface GrepToolOptions {
  /** 'auto' uses rg when it is on PATH; 'never' forces the JS search (tests, or an rg that misbehaves). */
  ripgrep?: 'auto' | 'never';
  /** Explicit rg binary; skips the PATH lookup. */
  rgPath?: string;
}

interface Search {
  /** Absolute file or folder being searched. */
  target: string;
  isFile: boolean;
  /** How the model named a single-file target (used as the path in results). */
  shownFile: string;
  regex: string;
  glob: string | undefined;
  caseInsensitive: boolean;
  max: number;
  signal: AbortSignal;
  /** Files whose lines are never shown: Rein's own secrets (a search over the home folder passes REIN_HOME). */
  hidden: (abs: string) => boolean;
}

type SearchOutcome =
  { kind: 'ok'; lines: string[]; cut: boolean; warning?: string } | { kind: 'error'; result: ToolResult };

export function createGrepTool(options: GrepToolOptions = {}): Tool<GrepInput> {
  const rgPath = (): string | undefined =>
    options.ripgrep === 'never' ? undefined : (options.rgPath ?? findOnPath('rg'));

  return {
    name: 'grep',
    source: 'local',
    traits: GREP_TRAITS,
    description: [
      'Search file contents for a regular expression. Results are `path:line:text`, paths relative to the searched folder,',
      `at most \`max_results\` lines in total (default ${GREP_DEFAULT_MAX_RESULTS}, max ${GREP_MAX_RESULTS}).`,
      'Narrow the search with `path` (a file or folder) and `glob` (e.g. "*.ts"). Binary files, .git and node_modules are skipped',
      '(and, when ripgrep is installed, files listed in .gitignore). Use glob to find files by name.',
    ].join(' '),
    input,
    isReadOnly: () => true,
    isDestructive: () => false,
    summarize: (i) => callSummaryOf('grep', i),

    async call(i, ctx, signal) {
      const target = resolveToolPath(i.path ?? '.', ctx.cwd);
      let st: Stats;
      try {
        st = await stat(target);
      } catch (e) {
        const code = errnoCode(e);
        if (code === 'ENOENT' || code === 'ENOTDIR')
          return errorResult('validation', `${i.path ?? target} does not exist`);
        if (code === 'EACCES' || code === 'EPERM')
          return errorResult('permission', `no permission to read ${i.path ?? target}`);
        return errorResult(
          'transient',
          `could not search ${i.path ?? target}: ${e instanceof Error ? e.message : String(e)}`,
        );
      }
      const notes: string[] = [];
      let max = i.max_results ?? GREP_DEFAULT_MAX_RESULTS;
      if (max > GREP_MAX_RESULTS) {
        notes.push(`(max_results ${max} is above the maximum; used ${GREP_MAX_RESULTS})`);
        max = GREP_MAX_RESULTS;
      }
      const search: Search = {
        target,
        isFile: !st.isDirectory(),
        shownFile: i.path ?? target,
        regex: i.pattern,
        glob: i.glob,
        caseInsensitive: i.case_insensitive ?? false,
        max,
        signal,
        hidden: secretFilter(ctx.reinHome),
      };
      const rg = rgPath();
      const outcome = rg ? await searchWithRipgrep(rg, search) : await searchWithJs(search);
      if (outcome.kind === 'error') return outcome.result;
      if (signal.aborted) return errorResult('transient', 'grep was cancelled');
      if (outcome.lines.length === 0) return okResult([...notes, 'no matches found'].join('\n'));
      let out = outcome.lines.join('\n');
      if (outcome.cut)
        out += `\n\n(showing the first ${max} matches; narrow the pattern, path or glob to see the rest)`;
      if (outcome.warning) out += `\n\n(${outcome.warning})`;
      return okResult([...notes, out].join('\n'));
    },
  };
}

export const grepTool: Tool<GrepInput> = createGrepTool();

/** Rein's secret files, as written or behind a symlink, are left out of every search (one check per file). */
function secretFilter(reinHome: string): (abs: string) => boolean {
  const seen = new Map<string, boolean>();
  return (abs) => {
    let hide = seen.get(abs);
    if (hide === undefined) {
      hide =
        reinSecretReason(abs, reinHome) !== undefined || reinSecretReason(realpathLoose(abs), reinHome) !== undefined;
      seen.set(abs, hide);
    }
    return hide;
  };
}

const cutLine = (text: string): string =>
  text.length > MAX_MATCH_LINE_CHARS ? `${text.slice(0, MAX_MATCH_LINE_CHARS)}… (${text.length} chars)` : text;

async function searchWithRipgrep(rg: string, s: Search): Promise<SearchOutcome> {
  // --null puts a NUL after the path so paths containing ':' parse unambiguously; --sort path keeps output stable.
  const args = ['-n', '--no-heading', '--color', 'never', '--with-filename', '--null', '--sort', 'path', '--hidden'];
  if (s.caseInsensitive) args.push('-i');
  if (s.glob) args.push('--glob', s.glob);
  for (const d of NOISE_DIRS) if (!(s.glob ?? '').includes(d)) args.push('--glob', `!${d}`);
  args.push('-e', s.regex, '--', s.isFile ? s.target : '.');

  const child = spawn(rg, args, { cwd: s.isFile ? undefined : s.target, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d: string) => {
    if (stderr.length < 4_000) stderr += d;
  });
  const exited = new Promise<number | null>((resolve) => {
    child.once('close', (code) => resolve(code));
    child.once('error', () => resolve(null));
  });
  const onAbort = (): void => void child.kill('SIGTERM');
  s.signal.addEventListener('abort', onAbort, { once: true });

  const lines: string[] = [];
  let cut = false;
  const rl = createInterface({ input: child.stdout, crlfDelay: Infinity });
  for await (const raw of rl) {
    const nul = raw.indexOf('\0');
    if (nul === -1) continue;
    const path = s.isFile ? s.shownFile : raw.slice(0, nul).replace(/^\.\//, '');
    if (s.hidden(s.isFile ? s.target : `${s.target}/${raw.slice(0, nul)}`)) continue;
    const rest = raw.slice(nul + 1);
    const colon = rest.indexOf(':');
    if (lines.length >= s.max) {
      cut = true;
      child.kill('SIGTERM');
      break;
    }
    lines.push(`${path}:${rest.slice(0, colon)}:${cutLine(rest.slice(colon + 1))}`);
  }
  rl.close();
  const code = await exited;
  s.signal.removeEventListener('abort', onAbort);
  if (cut || s.signal.aborted) return { kind: 'ok', lines, cut };
  if (code === 0 || code === 1) return { kind: 'ok', lines, cut: false };
  const message = stderr.trim().split('\n').slice(0, 6).join('\n');
  if (/regex parse error|error parsing regex|unclosed|unopened|repetition operator/i.test(stderr)) {
    return {
      kind: 'error',
      result: errorResult('validation', `invalid regular expression ${JSON.stringify(s.regex)}: ${message}`),
    };
  }
  if (lines.length > 0)
    return { kind: 'ok', lines, cut: false, warning: `some files could not be searched: ${message}` };
  if (code === null) return { kind: 'error', result: errorResult('transient', `could not run ripgrep (${rg})`) };
  return { kind: 'error', result: errorResult('validation', `ripgrep failed: ${message || `exit status ${code}`}`) };
}

async function searchWithJs(s: Search): Promise<SearchOutcome> {
  let re: RegExp;
  try {
    re = new RegExp(s.regex, s.caseInsensitive ? 'iu' : 'u');
  } catch {
    try {
      // Some valid patterns (e.g. "\-") are rejected in unicode mode only.
      re = new RegExp(s.regex, s.caseInsensitive ? 'i' : '');
    } catch (e) {
      return {
        kind: 'error',
        result: errorResult(
          'validation',
          `invalid regular expression ${JSON.stringify(s.regex)}: ${(e as Error).message}`,
        ),
      };
    }
  }

  let files: { abs: string; shown: string }[];
  if (s.isFile) {
    files = [{ abs: s.target, shown: s.shownFile }];
  } else {
    const { patterns, ignore } = fallbackGlob(s.glob);
    try {
      const found = await findFiles(patterns, {
        cwd: s.target,
        dot: true,
        onlyFiles: true,
        followSymbolicLinks: false,
        ignore: [...ignore, ...noiseIgnores(s.glob ?? '')],
        signal: s.signal,
      });
      found.sort();
      files = found.map((f) => ({ abs: `${s.target}/${f}`, shown: f }));
    } catch (e) {
      if (s.signal.aborted) return { kind: 'ok', lines: [], cut: false };
      return {
        kind: 'error',
        result: errorResult('validation', `invalid glob ${JSON.stringify(s.glob)}: ${(e as Error).message}`),
      };
    }
  }

  const lines: string[] = [];
  let unreadable = 0;
  for (const f of files) {
    if (s.signal.aborted) break;
    if (s.hidden(f.abs)) continue;
    let buf: Buffer;
    try {
      const st = await stat(f.abs);
      if (!st.isFile() || st.size > FALLBACK_MAX_FILE_BYTES) continue;
      buf = await readFile(f.abs);
    } catch {
      unreadable++;
      continue;
    }
    if (looksBinary(buf.subarray(0, SNIFF_BYTES))) continue;
    const text = buf.toString('utf8').split(/\r?\n/);
    if (text.length > 1 && text[text.length - 1] === '') text.pop(); // the final newline ends a line, it does not start one
    for (let n = 0; n < text.length; n++) {
      const line = text[n]!;
      if (!re.test(line)) continue;
      if (lines.length >= s.max) return { kind: 'ok', lines, cut: true };
      lines.push(`${f.shown}:${n + 1}:${cutLine(line)}`);
    }
  }
  const warning = unreadable > 0 ? `${unreadable} file(s) could not be read` : undefined;
  return warning ? { kind: 'ok', lines, cut: false, warning } : { kind: 'ok', lines, cut: false };
}

/**
 * ripgrep's --glob follows .gitignore rules: a glob without a slash matches the name at any depth, and a
 * leading `!` excludes. The JS walk mimics that so both paths return the same files.
 */
function fallbackGlob(glob: string | undefined): { patterns: string[]; ignore: string[] } {
  if (!glob) return { patterns: ['**/*'], ignore: [] };
  const negated = glob.startsWith('!');
  const body = negated ? glob.slice(1) : glob;
  const anyDepth = body.includes('/') ? body.replace(/^\//, '') : `**/${body}`;
  return negated ? { patterns: ['**/*'], ignore: [anyDepth] } : { patterns: [anyDepth], ignore: [] };
}
