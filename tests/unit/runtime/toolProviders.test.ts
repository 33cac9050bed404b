// The runtime's registry is assembled from providers: the built-ins first, then whatever a caller adds
// (MCP servers, the cloud, the GUI bridge), with the built-ins' bytes untouched by what comes after.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Emitter, type Disposable } from '../../../src-main/core/base/lifecycle.js';
import { GlobalConfig } from '../../../src-main/core/config/schema.js';
import type { LlmClient } from '../../../src-main/core/llm/client.js';
import { createRuntime, type RuntimeOptions } from '../../../src-main/core/runtime/runtime.js';
import { RuntimeCache } from '../../../src-main/core/runtime/runtimeCache.js';
import type { ToolProvider } from '../../../src-main/core/tools/provider.js';
import { okResult, type Tool, type ToolSource } from '../../../src-main/core/tools/tool.js';
import { callTool, makeToolContext } from '../tools/toolTestContext.js';
import { tempRuntimeDirs } from './tempRuntimeDirs.js';

const d = tempRuntimeDirs('rein-providers-');
const noModel: LlmClient = {
  // eslint-disable-next-line require-yield
  async *turn() {
    throw new Error('no model in these tests');
  },
};

class FakeProvider implements ToolProvider {
  readonly #changed = new Emitter<void>();
  readonly onDidChange = (listener: () => void): Disposable => this.#changed.event(listener);
  failure: Error | undefined;
  disposed = false;
  #tools: Tool[] = [];

  constructor(
    readonly id: string,
    readonly source: ToolSource,
    names: string[],
  ) {
    this.set(names, false);
  }

  get listeners(): number {
    return this.#changed.listenerCount;
  }

  async tools(): Promise<readonly Tool[]> {
    if (this.failure) throw this.failure;
    return this.#tools;
  }

  set(names: string[], announce = true): void {
    this.#tools = names.map((name) => ({
      name,
      description: `${name} from ${this.id}.`,
      source: this.source,
      input: z.object({}),
      isReadOnly: () => true,
      isDestructive: () => false,
      call: async () => okResult(`${name} ran`),
    }));
    if (announce) this.#changed.fire();
  }

  dispose(): void {
    this.disposed = true;
  }
}

const settled = () => new Promise<void>((ok) => setImmediate(ok));
const runtime = (over: Partial<RuntimeOptions> = {}) =>
  createRuntime({
    home: d.home,
    cwd: d.cwd,
    env: {},
    config: GlobalConfig.parse({}),
    origin: 'attended',
    faces: [],
    llm: noModel,
    bundledSkillsDir: join(d.root, 'none'),
    ...over,
  });

describe('runtime tool providers', () => {
  it('puts the providers’ tools after the built-ins, by source and name, and leaves the built-ins’ bytes alone', async () => {
    const plain = await runtime();
    const gui = new FakeProvider('gui', 'gui', ['screen_click']);
    const rt = await runtime({
      toolProviders: [gui, new FakeProvider('mcp:notes', 'mcp', ['notes_find', 'notes_add'])],
    });
    expect(rt.registry.names()).toEqual([...plain.registry.names(), 'notes_add', 'notes_find', 'screen_click']);
    const builtins = JSON.stringify(plain.registry.definitions());
    expect(JSON.stringify(rt.registry.definitions()).startsWith(builtins.slice(0, -1))).toBe(true);
    // Without a cache the runtime keeps its registry for its one run and listens to nobody afterwards.
    expect(gui.listeners).toBe(0);
    expect(gui.disposed).toBe(false);
  });

  it('applies the agent’s allowed and denied lists to the providers’ tools too', async () => {
    const config = GlobalConfig.parse({
      tools: { allowed: ['file_read', 'notes_find', 'notes_add'], denied: ['notes_add'] },
    });
    const rt = await runtime({
      config,
      toolProviders: [new FakeProvider('mcp:notes', 'mcp', ['notes_find', 'notes_add', 'notes_wipe'])],
    });
    expect(rt.registry.names()).toEqual(['file_read', 'tool_search', 'notes_find']);
  });

  it('lets tool_search find and load a provider’s tool', async () => {
    const rt = await runtime({ toolProviders: [new FakeProvider('mcp:cal', 'mcp', ['calendar_list'])] });
    const t = await makeToolContext();
    try {
      const result = await callTool(rt.registry.get('tool_search')!, { query: 'calendar' }, t.ctx);
      expect(result.content).toMatch(/^LOADED: calendar_list/);
    } finally {
      await t.cleanup();
    }
  });

  it('reports a provider that cannot list its tools as a warning and keeps the built-ins', async () => {
    const broken = new FakeProvider('mcp:down', 'mcp', ['x']);
    broken.failure = new Error('connection refused');
    const plain = await runtime();
    const rt = await runtime({ toolProviders: [broken] });
    expect(rt.registry.names()).toEqual(plain.registry.names());
    expect(rt.warnings).toContain('tool provider mcp:down could not list its tools: connection refused');
  });

  it('with a cache, keeps one registry until a provider changes, and never disposes the caller’s providers', async () => {
    const cache = new RuntimeCache();
    // One config object: a new one is a settings change, which resolves the agent anew.
    const config = GlobalConfig.parse({});
    const mcp = new FakeProvider('mcp:notes', 'mcp', ['notes_find']);
    const a = await runtime({ cache, config, toolProviders: [mcp] });
    await settled();
    const first = a.registry;
    expect((await runtime({ cache, config, toolProviders: [mcp] })).registry).toBe(first);

    mcp.set(['notes_find', 'notes_add']);
    await settled();
    const c = await runtime({ cache, config, toolProviders: [mcp] });
    expect(c.registry).not.toBe(first);
    expect(c.registry.names().slice(-2)).toEqual(['notes_add', 'notes_find']);
    // A runtime reads the set's latest registry (tools added during its run can be called in it).
    expect(a.registry).toBe(c.registry);
    // Unchanged tools keep their definition objects: the serialised list only grew where the new tool sorts.
    expect(c.registry.definitions()[0]).toBe(first.definitions()[0]);

    // A new skill set builds a new ToolSet; the one it replaces stops listening but leaves the provider alone.
    const skill = join(d.home, 'skills', 'deploy');
    await mkdir(skill, { recursive: true });
    await writeFile(join(skill, 'SKILL.md'), '---\nname: deploy\ndescription: Ship it\n---\nDo it.\n');
    await settled();
    const e = await runtime({ cache, config, toolProviders: [mcp] });
    expect(e.registry.has('use_skill')).toBe(true);
    expect(mcp.listeners).toBe(1);
    expect(mcp.disposed).toBe(false);
  });
});
