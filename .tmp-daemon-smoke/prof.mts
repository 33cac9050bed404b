import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeAnthropic, text } from '/work/main/tests/support/fakeAnthropic.ts';
import { createRuntime, startRun } from '/work/main/src-main/core/runtime/runtime.ts';
import { GlobalConfig } from '/work/main/src-main/core/config/schema.ts';
const fake = await startFakeAnthropic();
const home = await mkdtemp(join(tmpdir(), 'rein-p-'));
const env = { ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: 'k' };
const config = GlobalConfig.parse({});
for (let round = 0; round < 3; round++) {
  let tRt = 0, tStart = 0, tFirst = 0, tAll = 0;
  const N = 30;
  for (let i = 0; i < N; i++) {
    const t0 = performance.now();
    const rt = await createRuntime({ home, cwd: home, env, config, source: 'x', faces: [] });
    const t1 = performance.now();
    const { events } = await startRun(rt, { prompt: 'hi', cwd: home, home, signal: new AbortController().signal });
    const t2 = performance.now();
    await events.next();
    const t3 = performance.now();
    for (;;) { const s = await events.next(); if (s.done) break; }
    const t4 = performance.now();
    tRt += t1 - t0; tStart += t2 - t1; tFirst += t3 - t2; tAll += t4 - t3;
  }
  console.log(`createRuntime ${(tRt/N).toFixed(1)} startRun ${(tStart/N).toFixed(1)} first event ${(tFirst/N).toFixed(1)} rest ${(tAll/N).toFixed(1)} ms`);
}
await fake.close();
