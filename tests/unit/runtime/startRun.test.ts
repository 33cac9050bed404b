import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GlobalConfig } from '../../../src-main/core/config/schema.js';
import { createRuntime, startRun } from '../../../src-main/core/runtime/runtime.js';
import type { LlmClient, LlmEvent, ModelRequest, ModelResponse } from '../../../src-main/core/llm/client.js';
import { writeAutoFiles } from '../memory/tempMemory.js';
import { drainRun } from '../../support/drainRun.js';
import { tempRuntimeDirs } from './tempRuntimeDirs.js';
import { useLeakCheck } from '../../support/leaks.js';

useLeakCheck();

const d = tempRuntimeDirs('rein-startrun-');

const reply = (text: string): ModelResponse => ({
  content: [{ type: 'text', text }],
  stopReason: 'end_turn',
  model: 'm',
  usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheCreationTokens: 0 },
});

/**
 * A model whose memory-consolidation call waits until `release()`; every other call answers at once.
 * Consolidation is told apart by its system prompt, which speaks of long-term memory.
 */
function gatedModel() {
  let release!: () => void;
  const gate = new Promise<void>((ok) => (release = ok));
  const requests: ModelRequest[] = [];
  let consolidationAsked = false;
  const llm: LlmClient = {
    async *turn(req: ModelRequest): AsyncGenerator<LlmEvent, ModelResponse> {
      requests.push(req);
      if (JSON.stringify(req.system).includes('long-term memory')) {
        consolidationAsked = true;
        await gate;
        return reply('- consolidated fact: the user ships on Fridays');
      }
      yield { type: 'text_delta', text: 'done' };
      return reply('done');
    },
  };
  return { llm, release, requests, consolidationAsked: () => consolidationAsked };
}

describe('startRun', () => {
  it('announces the session before memory consolidation (a model call) runs, and uses the consolidated memory', async () => {
    const model = gatedModel();
    const rt = await createRuntime({
      home: d.home,
      cwd: d.cwd,
      env: {},
      config: GlobalConfig.parse({}),
      origin: 'attended',
      faces: [],
      llm: model.llm,
      bundledSkillsDir: join(d.root, 'none'),
    });
    const memoryDir = rt.agentConfig.memoryDir;
    await mkdir(memoryDir, { recursive: true });
    await writeFile(join(memoryDir, 'MEMORY.md'), '# About me\n\n- likes tea\n');
    await writeAutoFiles(memoryDir, 12);

    const { events } = await startRun(rt, {
      prompt: 'hello',
      cwd: d.cwd,
      home: d.home,
      signal: new AbortController().signal,
    });
    const first = await events.next();
    expect(first.done).toBe(false);
    expect(first.value).toMatchObject({ type: 'session_start' });
    // Nothing has asked the model yet: the session was announced first.
    expect(model.requests).toHaveLength(0);

    const second = events.next();
    // The loop now consolidates and waits for the (gated) model before anything else (polled: a busy
    // machine may take longer than any fixed wait to get there).
    await expect.poll(() => model.consolidationAsked(), { timeout: 10_000 }).toBe(true);
    model.release();
    await second;
    for await (const _ of events) void _;

    expect(await readFile(join(memoryDir, 'MEMORY.md'), 'utf8')).toContain('the user ships on Fridays');
    const main = model.requests.find((r) => !JSON.stringify(r.system).includes('long-term memory'))!;
    expect(JSON.stringify(main.messages)).toContain('the user ships on Fridays');
  });

  it('reports a bad instruction file as a warning once the session is announced, and still answers', async () => {
    const model = gatedModel();
    const rt = await createRuntime({
      home: d.home,
      cwd: d.cwd,
      env: {},
      config: GlobalConfig.parse({}),
      origin: 'attended',
      faces: [],
      llm: model.llm,
      bundledSkillsDir: join(d.root, 'none'),
    });
    // Not UTF-8: ignored, with a warning naming the file.
    await writeFile(join(d.cwd, 'AGENTS.md'), Buffer.from([0x55, 0x73, 0xc3, 0x28]));
    const { events } = await startRun(rt, {
      prompt: 'hello',
      cwd: d.cwd,
      home: d.home,
      signal: new AbortController().signal,
    });
    const run = await drainRun(events);
    const seen = run.events.map((e) => (e.type === 'notice' ? `notice:${e.message}` : e.type));
    expect(run.outcome.stopReason).toBe('final');
    expect(seen[0]).toBe('session_start');
    expect(seen.some((s) => s.startsWith('notice:') && s.includes('AGENTS.md'))).toBe(true);
  });
});
