/**
 * Loads the global `config.yaml` and the project overlay `<cwd>/.rein/config.yaml`, merges them and
 * applies defaults. Each file is validated on its own first, so every problem names the file, line and
 * field where the person has to fix it; all problems are reported at once. The loader only reads:
 * a broken file is left exactly as it is.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import { ReinError, errorMessage } from '../errors.js';
import { describeIssues } from '../util/zodIssues.js';
import { mergeConfigLayers, type RawConfig } from './merge.js';
import { paths } from './paths.js';
import { GlobalConfig } from './schema.js';
import { configTooLarge, yamlDocToJs } from './yamlLimits.js';

export interface LoadConfigOptions {
  /** Rein's home folder (see `reinHome()`); `<home>/config.yaml` is the global file. */
  home: string;
  /** Working folder; `<cwd>/.rein/config.yaml` is the project overlay. */
  cwd: string;
}

export interface LoadedConfig {
  config: GlobalConfig;
  /** The files that existed and were read, global first. */
  files: string[];
}

/** One thing wrong with a config file; `line`/`column` are 1-based, absent when no position is known. */
export interface ConfigProblem {
  file: string;
  line?: number;
  column?: number;
  /** Dotted field path (`permissions.mode`); absent for YAML syntax errors. */
  field?: string;
  message: string;
}

export async function loadConfig(opts: LoadConfigOptions): Promise<LoadedConfig> {
  const globalFile = resolve(paths.globalConfig(opts.home));
  const projectFile = resolve(paths.projectConfig(opts.cwd));
  // With cwd = the folder holding REIN_HOME (e.g. ~ and ~/.rein) both paths name one file; read it once.
  const candidates = projectFile === globalFile ? [globalFile] : [globalFile, projectFile];

  const layers: { file: string; raw: RawConfig }[] = [];
  const problems: ConfigProblem[] = [];
  for (const file of candidates) {
    const text = await readIfPresent(file);
    if (text === undefined) continue;
    const layer = parseLayer(file, text);
    if (layer.ok) layers.push({ file, raw: layer.raw });
    else problems.push(...layer.problems);
  }
  if (problems.length > 0) throw configInvalid(problems);

  const merged = layers.reduce<RawConfig>((acc, layer) => mergeConfigLayers(acc, layer.raw), {});
  const parsed = GlobalConfig.safeParse(merged);
  if (!parsed.success) {
    // Each file passed on its own, so this is a combination problem: no single file or line to blame.
    const file = layers.map((l) => l.file).join(' + ');
    throw configInvalid(
      describeIssues(parsed.error.issues, merged).map((p) => ({ file, field: p.field, message: p.message })),
    );
  }
  return { config: parsed.data, files: layers.map((l) => l.file) };
}

async function readIfPresent(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    // ENOTDIR: `.rein` exists but is a file, so there is no overlay inside it.
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw new ReinError('config_io', `${file}: cannot read: ${errorMessage(e)}`, { file }, { cause: e });
  }
}

type LayerResult = { ok: true; raw: RawConfig } | { ok: false; problems: ConfigProblem[] };

/** Parses and validates one file on its own. Exported for tools that check a single file (e.g. an editor). */
export function parseLayer(file: string, text: string): LayerResult {
  const tooLarge = configTooLarge(text);
  if (tooLarge) return { ok: false, problems: [{ file, message: tooLarge }] };
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false });
  if (doc.errors.length > 0) {
    return {
      ok: false,
      problems: doc.errors.map((err) => {
        const { line, col } = lineCounter.linePos(err.pos[0]);
        return { file, line, column: col, message: `YAML syntax error: ${firstLine(err.message)}` };
      }),
    };
  }
  const js = yamlDocToJs(doc);
  if (!js.ok) return { ok: false, problems: [{ file, message: js.message }] };
  const value = js.value;
  // An empty (or comments-only) file means "all defaults".
  const raw = value === null || value === undefined ? {} : value;
  const result = GlobalConfig.safeParse(raw);
  if (!result.success) {
    const problems: ConfigProblem[] = describeIssues(result.error.issues, raw).map((p) => {
      const at = positionOf(doc, p.path, lineCounter);
      return { file, ...at, field: p.field, message: p.message };
    });
    // zod reports in schema order; a person reads the file top to bottom.
    problems.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
    return { ok: false, problems };
  }
  return { ok: true, raw: raw as RawConfig };
}

/**
 * Line and column of the node a zod path points at. For a mapping entry that is the key (so
 * `permissions.mode` points at `mode:`, and an unknown key at itself); for a list item the item. When
 * the path leaves the document (a required key that is missing), the deepest node that exists.
 * Exported so other YAML files (agent config, `_attached.yaml`) place their problems the same way.
 */
export function positionOf(
  doc: Document,
  path: readonly PropertyKey[],
  lineCounter: LineCounter,
): { line?: number; column?: number } {
  let node: unknown = doc.contents;
  let offset: number | undefined = rangeStart(node);
  for (const seg of path) {
    if (isAlias(node)) node = node.resolve(doc);
    if (isMap(node)) {
      const pair = node.items.find((p) => keyText(p.key) === String(seg));
      if (!pair) break;
      offset = rangeStart(pair.key) ?? offset;
      node = pair.value;
    } else if (isSeq(node) && typeof seg === 'number') {
      const item = node.items[seg];
      if (item === undefined) break;
      offset = rangeStart(item) ?? offset;
      node = item;
    } else break;
  }
  if (offset === undefined) return {};
  const { line, col } = lineCounter.linePos(offset);
  return { line, column: col };
}

function keyText(key: unknown): string | undefined {
  if (isScalar(key)) return String(key.value);
  return undefined;
}

function rangeStart(node: unknown): number | undefined {
  return (node as Node | null | undefined)?.range?.[0];
}

function firstLine(s: string): string {
  return s.split('\n', 1)[0] ?? s;
}

function configInvalid(problems: ConfigProblem[]): ReinError {
  const lines = problems.map((p) => {
    const where = p.line !== undefined ? `${p.file}:${p.line}:${p.column ?? 1}` : p.file;
    return p.field !== undefined ? `${where}: ${p.field}: ${p.message}` : `${where}: ${p.message}`;
  });
  const first = problems[0]!;
  return new ReinError('config_invalid', lines.join('\n'), {
    file: first.file,
    line: first.line,
    column: first.column,
    field: first.field,
    problems,
  });
}
