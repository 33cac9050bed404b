/**
 * Keeps `out/renderer/` (the page `rein daemon` serves) built from the current source, for the browser
 * end-to-end test and `npm run bench -- ui`. It builds with the renderer part of the project's own
 * electron-vite config (what `npm run build` uses), so no Electron binary is needed, and only when the
 * build is missing or older than one of its inputs: each build records the project files it read in
 * `out/renderer-inputs.json` (outside the served folder), and any of them, or any file under
 * src-renderer/, being newer than index.html means a rebuild. An inter-process lock keeps two test runs
 * from building into the same folder at once.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import lockfile from 'proper-lockfile';

export const ROOT = resolve(import.meta.dirname, '../..');
export const RENDERER_DIR = join(ROOT, 'out', 'renderer');
const INPUTS_FILE = join(ROOT, 'out', 'renderer-inputs.json');
const ALWAYS_INPUTS = ['electron.vite.config.ts', 'package.json'];

/** Builds out/renderer when it is missing or stale; returns the folder and whether it built. */
export async function ensureRendererBuilt(): Promise<{ dir: string; built: boolean; reason?: string }> {
  await mkdir(join(ROOT, 'out'), { recursive: true });
  const release = await lockfile.lock(join(ROOT, 'out'), {
    lockfilePath: join(ROOT, 'out', '.renderer-build.lock'),
    stale: 120_000,
    retries: { retries: 600, minTimeout: 100, maxTimeout: 500 },
  });
  try {
    const reason = await staleness();
    if (!reason) return { dir: RENDERER_DIR, built: false };
    await buildRendererInto(join(ROOT, 'out'), true);
    return { dir: RENDERER_DIR, built: true, reason };
  } finally {
    await release();
  }
}

/**
 * Builds the page into `<outDir>/renderer` (electron-vite's layout) and, when it is the project's own
 * out/ folder, records the inputs. Returns the renderer folder.
 */
export async function buildRendererInto(outDir: string, recordInputs = false): Promise<string> {
  const { resolveConfig } = await import('electron-vite');
  const { build } = await import('vite');
  const { config } = await resolveConfig(
    { root: ROOT, configFile: join(ROOT, 'electron.vite.config.ts'), build: { outDir }, logLevel: 'error' },
    'build',
    'production',
  );
  if (!config?.renderer) throw new Error('electron.vite.config.ts has no renderer config');
  const rendererDir = join(outDir, 'renderer');
  const output = await build({
    ...config.renderer,
    logLevel: 'error',
    build: { ...config.renderer.build, outDir: rendererDir, emptyOutDir: true },
  });
  if (recordInputs) {
    const ids = new Set<string>();
    for (const o of Array.isArray(output) ? output : [output]) {
      if (!('output' in o)) continue;
      for (const chunk of o.output) if (chunk.type === 'chunk') for (const id of chunk.moduleIds) ids.add(id);
    }
    const files = [...ids]
      .filter((id) => id.startsWith(`${ROOT}/`) && !id.includes('/node_modules/') && !id.includes('\0'))
      .map((id) => id.split('?')[0]!);
    await writeFile(INPUTS_FILE, `${JSON.stringify({ files: [...new Set(files)].sort() }, null, 2)}\n`);
  }
  return rendererDir;
}

/** Why out/renderer needs building, or undefined when it is current. */
async function staleness(): Promise<string | undefined> {
  const page = join(RENDERER_DIR, 'index.html');
  if (!existsSync(page)) return 'out/renderer/index.html is missing';
  if (!existsSync(INPUTS_FILE)) return 'no record of what the last build read';
  const builtAt = (await stat(page)).mtimeMs;
  let recorded: string[] = [];
  try {
    recorded = (JSON.parse(await readFile(INPUTS_FILE, 'utf8')) as { files: string[] }).files;
  } catch {
    return 'the record of the last build is unreadable';
  }
  const inputs = [
    ...recorded,
    ...ALWAYS_INPUTS.map((f) => join(ROOT, f)),
    ...(await filesUnder(join(ROOT, 'src-renderer'))),
  ];
  for (const file of inputs) {
    const info = await stat(file).catch(() => undefined);
    if (!info) return `${file} is gone`;
    if (info.mtimeMs > builtAt) return `${file} changed`;
  }
  return undefined;
}

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(path)));
    else out.push(path);
  }
  return out;
}
