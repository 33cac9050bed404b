/**
 * `npm run bench -- index-check`: what the search index's folder check costs each time the index opens
 * (SessionIndex.checkDisk: a readdir per agent folder, a stat per session file, one SELECT of the
 * stamps), on sessions none of which changed, and with a few changed. Printed, never asserted.
 *
 *   REIN_BENCH_SESSIONS   session files (default 1,000)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { paths } from '../src-main/core/config/paths.js';
import { SessionIndex } from '../src-main/core/search/sessionIndex.js';
import { SessionStore } from '../src-main/core/sessions/store.js';
import { fmt, median, percentile } from './support.js';

const TARGET_MS = 25;

export async function run(): Promise<void> {
  const count = Number(process.env.REIN_BENCH_SESSIONS ?? 1_000);
  const home = mkdtempSync(join(tmpdir(), 'rein-bench-index-check-'));
  try {
    const store = new SessionStore(paths.sessionsDir(home, 'default'));
    const saved = [];
    for (let i = 0; i < count; i++) {
      const s = store.create({ agent: 'default', cwd: '/Users/me/project', source: 'cli', title: `session ${i}` });
      for (let t = 0; t < 10; t++) {
        s.messages.push({
          role: 'user',
          content: [{ type: 'text', text: `question ${t} of session ${i} about the deployment` }],
        });
        s.messages.push({
          role: 'assistant',
          content: [{ type: 'text', text: `answer ${t}: the deployment of build ${i} is fine` }],
        });
        s.message_meta.push({ source: 'cli', timestamp: s.created_at }, { source: 'cli', timestamp: s.created_at });
      }
      await store.save(s);
      saved.push(s);
    }
    (await SessionIndex.open(home)).dispose(); // the first open builds the index

    const idx = await SessionIndex.open(home, { rebuild: 'never' });
    const unchanged: number[] = [];
    for (let i = 0; i < 30; i++) {
      const t0 = performance.now();
      const r = await idx.checkDisk();
      unchanged.push(performance.now() - t0);
      if (r.indexed !== 0 || r.files !== count) throw new Error(`unexpected check: ${JSON.stringify(r)}`);
    }
    const changed: number[] = [];
    for (let i = 0; i < 10; i++) {
      for (const s of saved.slice(i * 5, i * 5 + 5)) await store.save(s);
      const t0 = performance.now();
      const r = await idx.checkDisk();
      changed.push(performance.now() - t0);
      if (r.indexed !== 5) throw new Error(`expected 5 re-read, got ${JSON.stringify(r)}`);
    }
    idx.dispose();
    const opens: number[] = [];
    for (let i = 0; i < 10; i++) {
      const t0 = performance.now();
      (await SessionIndex.open(home)).dispose();
      opens.push(performance.now() - t0);
    }
    console.log(`index check on ${count} sessions (target: median under ${TARGET_MS} ms)`);
    console.log(`  none changed:   median ${fmt(median(unchanged))} ms, p95 ${fmt(percentile(unchanged, 95))} ms`);
    console.log(`  5 changed:      median ${fmt(median(changed))} ms, p95 ${fmt(percentile(changed, 95))} ms`);
    console.log(`  whole open:     median ${fmt(median(opens))} ms (SQLite open, notes, check)`);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
