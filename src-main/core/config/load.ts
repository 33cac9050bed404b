/**
 * Loads the global `config.yaml` and the project overlay `<cwd>/.rein/config.yaml`, merges them and
 * applies defaults. Each file is validated on its own first, so every problem names the file, line and
 * field where the person has to fix it; all problems are reported at once. The loader only reads:
 * a broken file is left exactly as it is.
 *
 * The overlay's raising settings (hooks, MCP servers, base_url, wider permissions…: config/folderTrust.ts)
 * apply only when the caller's trust decision says the folder is trusted for exactly these bytes; by
 * default nothing is, and they are left out (the rest of the overlay still applies). `overlay` in the
 * result says what was left out, for the caller to warn or ask.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import { ReinError, errorMessage } from '../errors.js';
import { describeIssues } from '../util/zodIssues.js';
import { overlayHash, splitOverlay, untrustedWarning, type RaisingSetting } from './folderTrust.js';
import { mergeConfigLayers, type RawConfig } from './merge.js';
import { paths } from './paths.js';
import { GlobalConfig } from './schema.js';
import { TrustedFolders, trustKey } from './trustedFolders.js';
import { configTooLarge, yamlDocToJs } from './yamlLimits.js';

/** An overlay with raising settings, as a trust decision sees it. */
export interface OverlayCandidate {
  /** The folder's real path (what trust is remembered by). */
  folder: string;
  /** The overlay file. */
  file: string;
  /** sha256 of the file's bytes, hex. */
  hash: string;
  /** Its raising settings with their values, in file order. */
  settings: RaisingSetting[];
}

/** Decides whether an overlay's raising settings apply: asked only when it has some. */
export interface FolderTrustDecider {
  decide(overlay: OverlayCandidate): boolean | Promise<boolean>;
}

/**
 * `untrusted` (the default): raising settings never apply. `stored`: they apply when
 * `$REIN_HOME/trusted-folders.json` trusts the folder for these bytes (every command that cannot ask).
 * `trusted`: they apply (tests; a caller that asked itself). A decider: asked (the terminal of `rein run`).
 */
export type FolderTrustInput = 'trusted' | 'untrusted' | 'stored' | FolderTrustDecider;

export interface LoadConfigOptions {
  /** Rein's home folder (see `reinHome()`); `<home>/config.yaml` is the global file. */
  home: string;
  /** Working folder; `<cwd>/.rein/config.yaml` is the project overlay. */
  cwd: string;
  /** Whether the overlay's raising settings apply (default `untrusted`: they do not). */
  trust?: FolderTrustInput;
  /**
   * Told once, in one line naming them, when raising settings are left out (and about a damaged trust
   * file). Without it the caller reads `overlay` itself.
   */
  warn?: (message: string) => void;
}

/** The project overlay, when there is one. */
export interface LoadedOverlay {
  file: string;
  /** The folder's real path. */
  folder: string;
  /** sha256 of the file's bytes, hex. */
  hash: string;
  /** Dotted keys of its raising settings (`hooks.SessionStart`, `mcp_servers.x`, `base_url`); empty when it has none. */
  raising: string[];
  /** The same with their values. */
  settings: RaisingSetting[];
  /** Whether the raising settings are in `config` (the folder is trusted, or there are none). */
  applied: boolean;
}

export interface LoadedConfig {
  config: GlobalConfig;
  /** The files that existed and were read, global first. */
  files: string[];
  overlay?: LoadedOverlay;
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

interface Layer {
  file: string;
  raw: RawConfig;
  /** sha256 of the bytes read (the overlay's is what trust is bound to). */
  hash: string;
}

interface ReadLayers {
  global?: Layer;
  overlay?: Layer;
  /** Each file on its own is valid; else the problems, all of them. */
  problems: ConfigProblem[];
}

async function readLayers(home: string, cwd: string): Promise<ReadLayers> {
  const globalFile = resolve(paths.globalConfig(home));
  const projectFile = resolve(paths.projectConfig(cwd));
  // With cwd = the folder holding REIN_HOME (e.g. ~ and ~/.rein) both paths name one file; read it once.
  const candidates = projectFile === globalFile ? [globalFile] : [globalFile, projectFile];
  const out: ReadLayers = { problems: [] };
  for (const file of candidates) {
    const bytes = await readIfPresent(file);
    if (bytes === undefined) continue;
    const layer = parseLayer(file, bytes.toString('utf8'));
    if (!layer.ok) {
      out.problems.push(...layer.problems);
      continue;
    }
    const read = { file, raw: layer.raw, hash: overlayHash(bytes) };
    if (file === globalFile) out.global = read;
    else out.overlay = read;
  }
  return out;
}

/**
 * The overlay of `cwd` as a trust decision sees it, without deciding anything (`rein trust` shows it):
 * undefined when there is none. Throws `config_invalid` when either file does not load.
 */
export async function inspectOverlay(opts: {
  home: string;
  cwd: string;
}): Promise<(OverlayCandidate & { raw: RawConfig }) | undefined> {
  const layers = await readLayers(opts.home, opts.cwd);
  if (layers.problems.length > 0) throw configInvalid(layers.problems);
  if (!layers.overlay) return undefined;
  const global = parseMerged(layers.global ? [layers.global] : []);
  const { raising } = splitOverlay(global, layers.overlay.raw);
  return {
    folder: trustKey(opts.cwd),
    file: layers.overlay.file,
    hash: layers.overlay.hash,
    settings: raising,
    raw: layers.overlay.raw,
  };
}

export async function loadConfig(opts: LoadConfigOptions): Promise<LoadedConfig> {
  const layers = await readLayers(opts.home, opts.cwd);
  if (layers.problems.length > 0) throw configInvalid(layers.problems);
  const used: Layer[] = layers.global ? [layers.global] : [];
  let overlay: LoadedOverlay | undefined;
  if (layers.overlay) {
    const global = parseMerged(used);
    const split = splitOverlay(global, layers.overlay.raw);
    const candidate: OverlayCandidate = {
      folder: trustKey(opts.cwd),
      file: layers.overlay.file,
      hash: layers.overlay.hash,
      settings: split.raising,
    };
    const applied = split.raising.length === 0 || (await decide(opts, candidate));
    used.push(applied ? layers.overlay : { ...layers.overlay, raw: split.safe });
    overlay = { ...candidate, raising: split.raising.map((r) => r.key), applied };
    if (!applied) opts.warn?.(untrustedWarning(overlay));
  }
  return {
    config: parseMerged(used),
    files: [...(layers.global ? [layers.global.file] : []), ...(layers.overlay ? [layers.overlay.file] : [])],
    ...(overlay ? { overlay } : {}),
  };
}

async function decide(opts: LoadConfigOptions, candidate: OverlayCandidate): Promise<boolean> {
  const trust = opts.trust ?? 'untrusted';
  if (trust === 'trusted') return true;
  if (trust === 'untrusted') return false;
  if (trust === 'stored') return (await TrustedFolders.load(opts.home, opts.warn)).decide(candidate);
  return trust.decide(candidate);
}

/** The layers merged (lists append, whole MCP entries replace) with defaults applied. */
function parseMerged(layers: readonly Layer[]): GlobalConfig {
  const merged = layers.reduce<RawConfig>((acc, layer) => mergeConfigLayers(acc, layer.raw), {});
  const parsed = GlobalConfig.safeParse(merged);
  if (!parsed.success) {
    // Each file passed on its own, so this is a combination problem: no single file or line to blame.
    const file = layers.map((l) => l.file).join(' + ');
    throw configInvalid(
      describeIssues(parsed.error.issues, merged).map((p) => ({ file, field: p.field, message: p.message })),
    );
  }
  return parsed.data;
}

async function readIfPresent(file: string): Promise<Buffer | undefined> {
  try {
    return await readFile(file);
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
