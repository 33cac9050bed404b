import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempRuntimeDirs } from './tempRuntimeDirs.js';
import { GlobalConfig } from '../../../src-main/core/config/schema.js';
import { createAgent } from '../../../src-main/core/agents/index.js';
import { RuntimeCache } from '../../../src-main/core/runtime/runtimeCache.js';
import { createRuntime, startRun } from '../../../src-main/core/runtime/runtime.js';
import type { LlmClient, LlmEvent, ModelResponse } from '../../../src-main/core/llm/client.js';
import { useLeakCheck } from '../../support/leaks.js';

useLeakCheck();

const d = tempRuntimeDirs('rein-rtcache-');

const nextTurn = () => new Promise<void>((ok) => setImmediate(ok));

async function writeSkill(name: string, description: string): Promise<void> {
  const dir = join(d.home, 'skills', name);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'SKILL.md'), `---\nname: ${name}\ndescription: ${description}\n---\nDo the thing.\n`);
}

describe('RuntimeCache', () => {
  it('serves the skills until a SKILL.md is edited, added or removed', async () => {
    const cache = new RuntimeCache();
    await writeSkill('deploy', 'Ship the app');
    const first = await cache.skills(d.home, 'default', undefined);
    expect(first.skills.map((s) => s.description)).toEqual(['Ship the app']);
    await nextTurn();
    expect(await cache.skills(d.home, 'default', undefined)).toBe(first);

    await writeSkill('deploy', 'Ship the app to production');
    await nextTurn();
    expect((await cache.skills(d.home, 'default', undefined)).skills.map((s) => s.description)).toEqual([
      'Ship the app to production',
    ]);

    await writeSkill('review', 'Review a change');
    await nextTurn();
    expect((await cache.skills(d.home, 'default', undefined)).skills.map((s) => s.name)).toEqual(['deploy', 'review']);

    await rm(join(d.home, 'skills', 'deploy'), { recursive: true });
    await nextTurn();
    expect((await cache.skills(d.home, 'default', undefined)).skills.map((s) => s.name)).toEqual(['review']);
  });

  it('sees an instruction file created or edited in the working folder or above it', async () => {
    const cache = new RuntimeCache();
    expect((await cache.instructions(d.home, d.cwd)).text).toBe('');
    await writeFile(join(d.cwd, 'AGENTS.md'), 'Use tabs.\n');
    await nextTurn();
    expect((await cache.instructions(d.home, d.cwd)).text).toContain('Use tabs.');
    await writeFile(join(d.root, 'CLAUDE.md'), 'Parent rule.\n');
    await mkdir(join(d.root, '.git'));
    await nextTurn();
    const both = (await cache.instructions(d.home, d.cwd)).text;
    expect(both).toContain('Parent rule.');
    expect(both).toContain('Use tabs.');
  });

  it('reloads an agent when its AGENT.md changes, and for every new global config', async () => {
    const cache = new RuntimeCache();
    await createAgent(d.home, 'ops', { persona: 'You keep servers running.' });
    const config = GlobalConfig.parse({});
    const first = await cache.agentConfig(d.home, config, 'ops');
    expect(first.persona).toContain('You keep servers running.');
    await nextTurn();
    expect(await cache.agentConfig(d.home, config, 'ops')).toBe(first);

    await writeFile(join(d.home, 'agents', 'ops', 'AGENT.md'), 'You watch the backups.\n');
    await nextTurn();
    expect((await cache.agentConfig(d.home, config, 'ops')).persona).toContain('You watch the backups.');

    const changed = GlobalConfig.parse({ model: 'claude-haiku-5-5' });
    expect((await cache.agentConfig(d.home, changed, 'ops')).effective.model).toBe('claude-haiku-5-5');
  });

  it('follows MEMORY.md and the count of overflow files', async () => {
    const cache = new RuntimeCache();
    const dir = join(d.home, 'memory');
    expect(await cache.memory(dir)).toBe('');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'MEMORY.md'), '- likes short answers\n');
    await nextTurn();
    expect(await cache.memory(dir)).toContain('likes short answers');
    expect((await cache.consolidation(dir)).autoFiles).toBe(0);
    await writeFile(join(dir, 'auto-2026-11-30-abcdef.md'), '- a fact\n');
    await nextTurn();
    expect((await cache.consolidation(dir)).autoFiles).toBe(1);
  });

  it('lets runtimes built with it share model clients and tool registries, and still see a new skill', async () => {
    const cache = new RuntimeCache();
    const config = GlobalConfig.parse({});
    const env = { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' };
    const make = () =>
      createRuntime({
        home: d.home,
        cwd: d.cwd,
        env,
        config,
        origin: 'attended',
        faces: [],
        cache,
        bundledSkillsDir: join(d.root, 'no-bundled'),
      });
    const a = await make();
    await nextTurn();
    const b = await make();
    expect(b.llm).toBe(a.llm);
    expect(b.registry).toBe(a.registry);
    expect(a.registry.has('use_skill')).toBe(false);

    await writeSkill('deploy', 'Ship the app');
    await nextTurn();
    const c = await make();
    expect(c.registry).not.toBe(a.registry);
    expect(c.registry.has('use_skill')).toBe(true);
  });

  it('continues a session saved by an earlier run without reading the file, and reads it when something else wrote it', async () => {
    const cache = new RuntimeCache();
    const config = GlobalConfig.parse({});
    const llm: LlmClient = {
      async *turn(): AsyncGenerator<LlmEvent, ModelResponse> {
        yield { type: 'text_delta', text: 'ok' };
        return {
          content: [{ type: 'text', text: 'ok' }],
          stopReason: 'end_turn',
          model: 'm',
          usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheCreationTokens: 0 },
        };
      },
    };
    const rt = await createRuntime({
      home: d.home,
      cwd: d.cwd,
      env: {},
      config,
      origin: 'attended',
      faces: [],
      cache,
      llm,
      bundledSkillsDir: join(d.root, 'none'),
    });
    const { session, events } = await startRun(rt, {
      prompt: 'hello',
      cwd: d.cwd,
      home: d.home,
      signal: new AbortController().signal,
    });
    for await (const _ of events) void _;
    const file = join(rt.store.dir, `${session.id}.json`);
    const again = await rt.store.load(session.id);
    expect(again.messages.length).toBeGreaterThan(0);

    // Another writer (a CLI run) changes the file: the next load reads it.
    const edited = { ...again, title: 'Renamed elsewhere' };
    await writeFile(file, `${JSON.stringify(edited, null, 2)}\n`);
    expect((await rt.store.load(session.id)).title).toBe('Renamed elsewhere');
  });
});
