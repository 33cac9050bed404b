import { mkdir, rm, writeFile } from 'node:fs/promises';
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  changeList,
  mergeChange,
  watchPrompt,
  WatcherManager,
  type ChangeType,
} from '../../../src-main/core/triggers/index.js';
import { useLeakCheck } from '../../support/leaks.js';
import { FakeHost, sleep, tempDirs, writeAgent } from './support.js';

useLeakCheck();
const dirs = tempDirs('rein-watch-');
let managers: WatcherManager[] = [];

afterEach(async () => {
  for (const m of managers) await m.dispose();
  managers = [];
});

async function started(
  host: FakeHost,
  opts: ConstructorParameters<typeof WatcherManager>[1] = {},
): Promise<WatcherManager> {
  const m = new WatcherManager(host, { rescanMs: 0, ...opts });
  managers.push(m);
  await m.start();
  await m.ready();
  // chokidar's fs.watch handles need a moment after `ready` before the first events arrive reliably.
  await sleep(100);
  return m;
}

/** A folder to watch, with symlinks resolved (macOS's /tmp is /private/tmp). */
async function folder(...parts: string[]): Promise<string> {
  const dir = join(dirs.root, ...parts);
  await mkdir(dir, { recursive: true });
  return realpathSync(dir);
}

const watchConfig = (entries: Array<{ path: string; glob?: string; debounce?: string | number; prompt?: string }>) =>
  `watch:\n${entries
    .map(
      (e) =>
        `  - path: ${JSON.stringify(e.path)}\n${e.glob ? `    glob: ${JSON.stringify(e.glob)}\n` : ''}${e.debounce !== undefined ? `    debounce: ${JSON.stringify(e.debounce)}\n` : ''}${e.prompt ? `    prompt: ${JSON.stringify(e.prompt)}\n` : ''}`,
    )
    .join('')}`;

function changesOf(text: string): string[] {
  return text.split('\n').filter((l) => l.startsWith('- '));
}

describe('the prompt of a batch', () => {
  it('{{files}} takes the list; without it the list is appended, sorted by path', () => {
    const changes = new Map<string, ChangeType>([
      ['/w/b.txt', 'modified'],
      ['/w/a.txt', 'created'],
    ]);
    expect(watchPrompt('Sort these:\n{{files}}\nThanks.', changes)).toBe(
      'Sort these:\n- created: /w/a.txt\n- modified: /w/b.txt\nThanks.',
    );
    expect(watchPrompt('File the PDFs.', changes)).toBe(
      'File the PDFs.\n\nFile changes detected:\n- created: /w/a.txt\n- modified: /w/b.txt',
    );
    expect(watchPrompt(undefined, changes)).toBe('File changes detected:\n- created: /w/a.txt\n- modified: /w/b.txt');
    const many = new Map<string, ChangeType>(
      Array.from({ length: 250 }, (_, i) => [`/w/${String(i).padStart(3, '0')}`, 'created' as const]),
    );
    expect(changeList(many).split('\n')).toHaveLength(201);
    expect(changeList(many).endsWith('- … and 50 more')).toBe(true);
  });

  it('a file created in the batch stays created; one that came and went is no change', () => {
    expect(mergeChange('created', 'modified')).toBe('created');
    expect(mergeChange('created', 'deleted')).toBeUndefined();
    expect(mergeChange('deleted', 'created')).toBe('modified');
    expect(mergeChange('modified', 'deleted')).toBe('deleted');
    expect(mergeChange(undefined, 'modified')).toBe('modified');
  });
});

describe('file watchers (real files, real chokidar)', () => {
  it('batch the changes of one debounce window into one unattended run; each event starts the wait again', async () => {
    const inbox = await folder('inbox');
    await writeAgent(dirs.home, 'clerk', {
      config: watchConfig([{ path: inbox, debounce: '600ms', prompt: 'Sort the new files.' }]),
    });
    const host = new FakeHost(dirs.home);
    await started(host);
    await writeFile(join(inbox, 'b.txt'), '1');
    await writeFile(join(inbox, 'a.txt'), '1');
    await sleep(400);
    await writeFile(join(inbox, 'c.txt'), '1');
    await sleep(400);
    // 800 ms after the first writes (past their 600 ms), but only 400 after the last: still waiting.
    expect(host.runs).toHaveLength(0);
    const [run] = await host.waitForRuns(1);
    await sleep(800);
    expect(host.runs).toHaveLength(1);
    const r = run!.request;
    expect(r).toMatchObject({
      agent: 'clerk',
      source: 'watcher',
      entry: 'watcher',
      origin: 'unattended',
      session: { kind: 'ephemeral' },
    });
    expect(r.text.startsWith('Sort the new files.\n\nFile changes detected:\n')).toBe(true);
    expect(changesOf(r.text)).toEqual([
      `- created: ${join(inbox, 'a.txt')}`,
      `- created: ${join(inbox, 'b.txt')}`,
      `- created: ${join(inbox, 'c.txt')}`,
    ]);
  });

  it('match the glob against the file name; hidden files only by a pattern that names them', async () => {
    const docs = await folder('docs');
    await mkdir(join(docs, 'deep', 'er'), { recursive: true });
    await writeAgent(dirs.home, 'clerk', {
      config: watchConfig([{ path: docs, glob: '*.pdf', debounce: 150, prompt: 'PDFs: {{files}}' }]),
    });
    await writeAgent(dirs.home, 'all', { config: watchConfig([{ path: docs, debounce: 150 }]) });
    const host = new FakeHost(dirs.home);
    await started(host);
    await writeFile(join(docs, 'deep', 'er', 'report.pdf'), '%PDF');
    await writeFile(join(docs, 'notes.txt'), 'x');
    await writeFile(join(docs, '.DS_Store'), 'x');
    await writeFile(join(docs, 'pdf'), 'x');
    await host.waitForRuns(2);
    await sleep(400);
    const byAgent = Object.fromEntries(host.runs.map((r) => [r.request.agent, r.request.text]));
    expect(byAgent.clerk).toBe(`PDFs: - created: ${join(docs, 'deep', 'er', 'report.pdf')}`);
    expect(changesOf(byAgent.all!)).toEqual([
      `- created: ${join(docs, 'deep', 'er', 'report.pdf')}`,
      `- created: ${join(docs, 'notes.txt')}`,
      `- created: ${join(docs, 'pdf')}`,
    ]);
  });

  it('never enter dependency, VCS, build or cache folders — unless it is the watched folder itself', async () => {
    const root = await folder('build');
    for (const d of ['node_modules/pkg', '.git/objects', 'dist', 'src/__pycache__', 'src/target', '.venv/lib'])
      await mkdir(join(root, d), { recursive: true });
    await writeAgent(dirs.home, 'dev', { config: watchConfig([{ path: root, debounce: 150 }]) });
    const host = new FakeHost(dirs.home);
    const m = await started(host);
    // The root (named `build`), src: nothing below the skipped folders is watched.
    expect(m.watchedDirs).toBe(2);
    for (const f of [
      'node_modules/pkg/index.js',
      '.git/objects/ab',
      'dist/app.js',
      'src/__pycache__/m.pyc',
      'src/target/x.o',
      '.venv/lib/site.py',
    ])
      await writeFile(join(root, f), 'x');
    await writeFile(join(root, 'src', 'main.py'), 'x');
    // A file may be called like a skipped folder.
    await writeFile(join(root, 'src', 'build'), 'x');
    await mkdir(join(root, 'src', 'node_modules'));
    await writeFile(join(root, 'src', 'node_modules', 'late.js'), 'x');
    const [run] = await host.waitForRuns(1);
    await sleep(400);
    expect(host.runs).toHaveLength(1);
    expect(changesOf(run!.request.text)).toEqual([
      `- created: ${join(root, 'src', 'build')}`,
      `- created: ${join(root, 'src', 'main.py')}`,
    ]);
  });

  it('watch at most the cap of folders, warning once', async () => {
    const root = await folder('many');
    for (let i = 0; i < 6; i++) await mkdir(join(root, `d${i}`));
    const other = await folder('other');
    await mkdir(join(other, 'x'));
    await writeAgent(dirs.home, 'a', {
      config: watchConfig([
        { path: root, debounce: 100 },
        { path: other, debounce: 100 },
      ]),
    });
    const warnings: string[] = [];
    const m = await started(new FakeHost(dirs.home), { maxDirs: 4, warn: (w) => warnings.push(w) });
    expect(m.watchedDirs).toBe(4);
    expect(warnings.filter((w) => w.includes('4 folders are watched'))).toHaveLength(1);
    await mkdir(join(root, 'later'));
    await sleep(300);
    expect(m.watchedDirs).toBe(4);
    expect(warnings.filter((w) => w.includes('folders are watched'))).toHaveLength(1);
  });

  it('fan a change out to every agent whose folder contains it; nested folders are watched once', async () => {
    const outer = await folder('proj');
    const inner = await folder('proj', 'docs');
    await writeAgent(dirs.home, 'whole', { config: watchConfig([{ path: outer, debounce: 150 }]) });
    await writeAgent(dirs.home, 'docs', { config: watchConfig([{ path: inner, debounce: 150 }]) });
    const host = new FakeHost(dirs.home);
    const m = await started(host);
    expect(m.roots).toEqual([outer]);
    await writeFile(join(inner, 'guide.md'), 'x');
    await host.waitForRuns(2);
    await writeFile(join(outer, 'README.md'), 'x');
    await host.waitForRuns(3);
    await sleep(400);
    const runs = host.runs.map((r) => `${r.request.agent}: ${changesOf(r.request.text).join(' ')}`).sort();
    expect(runs).toEqual(
      [
        `docs: - created: ${join(inner, 'guide.md')}`,
        `whole: - created: ${join(inner, 'guide.md')}`,
        `whole: - created: ${join(outer, 'README.md')}`,
      ].sort(),
    );
  });

  it('follow config changes without a restart: a new folder is watched, a dropped one no longer', async () => {
    const first = await folder('first');
    const second = await folder('second');
    await writeAgent(dirs.home, 'clerk', { config: watchConfig([{ path: first, debounce: 100 }]) });
    const host = new FakeHost(dirs.home);
    const m = await started(host);
    expect(m.roots).toEqual([first]);
    await writeFile(join(dirs.home, 'agents', 'clerk', 'config.yaml'), watchConfig([{ path: second, debounce: 100 }]));
    host.publish({ type: 'agent_changed', at: new Date().toISOString(), agent: 'clerk', change: 'updated' });
    await m.ready();
    await sleep(100);
    expect(m.roots).toEqual([second]);
    await writeFile(join(first, 'ignored.txt'), 'x');
    await writeFile(join(second, 'seen.txt'), 'x');
    const [run] = await host.waitForRuns(1);
    await sleep(300);
    expect(host.runs).toHaveLength(1);
    expect(changesOf(run!.request.text)).toEqual([`- created: ${join(second, 'seen.txt')}`]);
    await rm(join(dirs.home, 'agents', 'clerk'), { recursive: true });
    host.publish({ type: 'agent_changed', at: new Date().toISOString(), agent: 'clerk', change: 'deleted' });
    await m.ready();
    expect(m.roots).toEqual([]);
  });

  it("a batch that comes while the agent's previous watcher run is going waits for it, merged, and is not lost", async () => {
    const inbox = await folder('inbox');
    await writeAgent(dirs.home, 'clerk', { config: watchConfig([{ path: inbox, debounce: 100 }]) });
    const host = new FakeHost(dirs.home);
    host.autoFinish = false;
    await started(host);
    await writeFile(join(inbox, 'one.txt'), 'x');
    const [first] = await host.waitForRuns(1);
    await writeFile(join(inbox, 'two.txt'), 'x');
    await sleep(400);
    await writeFile(join(inbox, 'three.txt'), 'x');
    await sleep(400);
    // Two more batches came and went through their debounce, but the first run is still going.
    expect(host.runs).toHaveLength(1);
    first!.finish();
    const [, second] = await host.waitForRuns(2);
    expect(changesOf(second!.request.text)).toEqual([
      `- created: ${join(inbox, 'three.txt')}`,
      `- created: ${join(inbox, 'two.txt')}`,
    ]);
    second!.finish();
    await sleep(300);
    expect(host.runs).toHaveLength(2);
  });

  it('a folder that does not exist is reported once and watched once it appears (rescan)', async () => {
    const later = join(dirs.root, 'later');
    await writeAgent(dirs.home, 'clerk', { config: watchConfig([{ path: later, debounce: 100 }]) });
    const warnings: string[] = [];
    const host = new FakeHost(dirs.home);
    const m = await started(host, { warn: (w) => warnings.push(w) });
    await m.refresh();
    expect(m.roots).toEqual([]);
    expect(warnings.filter((w) => w.includes('cannot be watched'))).toHaveLength(1);
    await mkdir(later);
    await m.refresh();
    await m.ready();
    expect(m.roots).toEqual([realpathSync(later)]);
  });

  it('dispose closes every chokidar watcher and timer: no handles are left', async () => {
    const inbox = await folder('inbox');
    for (let i = 0; i < 5; i++) await mkdir(join(inbox, `sub${i}`));
    await writeAgent(dirs.home, 'clerk', { config: watchConfig([{ path: inbox, debounce: '10s' }]) });
    const host = new FakeHost(dirs.home);
    const m = await started(host);
    // A batch waiting on its debounce timer when the manager goes.
    await writeFile(join(inbox, 'pending.txt'), 'x');
    await sleep(200);
    await m.dispose();
    managers = [];
    expect(m.roots).toEqual([]);
    await sleep(100);
    expect(host.runs).toHaveLength(0);
    // useLeakCheck fails this test if an FSWatcher, a timer or a descriptor is still open.
  });
});
