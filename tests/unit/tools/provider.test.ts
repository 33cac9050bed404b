// The tool list at the head of every request is assembled from providers: its order and bytes must not
// depend on which provider was added or answered first, and a late or failing provider must not disturb
// what came before it.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Emitter, type Disposable } from '../../../src-main/core/base/lifecycle.js';
import { borrowedProvider, StaticToolProvider, type ToolProvider } from '../../../src-main/core/tools/provider.js';
import { ToolSet } from '../../../src-main/core/tools/toolSet.js';
import type { ToolRegistry } from '../../../src-main/core/tools/registry.js';
import { okResult, type Tool, type ToolSource } from '../../../src-main/core/tools/tool.js';

const tool = (name: string, source: ToolSource): Tool => ({
  name,
  description: `The ${name} tool.`,
  source,
  input: z.object({ q: z.string().optional() }),
  isReadOnly: () => true,
  isDestructive: () => false,
  call: async () => okResult(name),
});

/** A provider whose tools, answers and failures the test controls. */
class TestProvider implements ToolProvider {
  readonly #changed = new Emitter<void>();
  readonly onDidChange = (listener: () => void): Disposable => this.#changed.event(listener);
  #tools: Tool[];
  #failure: Error | undefined;
  #gate: Promise<void> | undefined;
  disposed = false;

  constructor(
    readonly id: string,
    readonly source: ToolSource,
    names: string[],
    private readonly log: string[] = [],
  ) {
    this.#tools = names.map((n) => tool(n, source));
  }

  get listeners(): number {
    return this.#changed.listenerCount;
  }

  async tools(): Promise<readonly Tool[]> {
    await this.#gate;
    if (this.#failure) throw this.#failure;
    return this.#tools;
  }

  /** Answers only once the returned function is called. */
  hold(): () => void {
    let release!: () => void;
    this.#gate = new Promise<void>((ok) => (release = ok));
    return () => {
      this.#gate = undefined;
      release();
    };
  }

  set(names: string[]): void {
    this.#tools = names.map((n) => this.#tools.find((t) => t.name === n) ?? tool(n, this.source));
    this.#changed.fire();
  }

  fail(error: Error | undefined): void {
    this.#failure = error;
    this.#changed.fire();
  }

  /** Says it changed without changing anything (an MCP server re-announcing the same list). */
  poke(): void {
    this.#changed.fire();
  }

  dispose(): void {
    this.disposed = true;
    this.log.push(this.id);
  }
}

const names = (r: ToolRegistry) => r.names();
const json = (r: ToolRegistry) => JSON.stringify(r.definitions());
/** Resolves once the set announces a new registry. */
const nextChange = (set: ToolSet) =>
  new Promise<ToolRegistry>((ok) => {
    const sub = set.onDidChange((r) => {
      sub.dispose();
      ok(r);
    });
  });
const settled = () => new Promise<void>((ok) => setImmediate(ok));

describe('ToolSet assembly', () => {
  it('orders tools local, MCP, cloud, GUI and by name within each, whatever the order of adding and answering', async () => {
    const gui = new TestProvider('gui', 'gui', ['screen_read', 'click']);
    const cloud = new TestProvider('cloud', 'cloud', ['research']);
    const mcpB = new TestProvider('mcp:b', 'mcp', ['b_list', 'a_find']);
    const mcpA = new TestProvider('mcp:a', 'mcp', ['calendar']);
    const local = new StaticToolProvider('local', 'local', [tool('think', 'local'), tool('bash', 'local')]);
    const set = new ToolSet([gui, cloud, mcpB, mcpA, local]);
    const releases = [gui.hold(), mcpB.hold(), cloud.hold()];
    const assembled = set.registry();
    for (const release of releases) release();
    expect(names(await assembled)).toEqual([
      'bash',
      'think',
      'a_find',
      'b_list',
      'calendar',
      'research',
      'click',
      'screen_read',
    ]);

    const reversed = new ToolSet([local, mcpA, mcpB, cloud, gui].reverse());
    expect(json(await reversed.registry())).toBe(json(await assembled));
  });

  it('hands out the same registry and the same definition bytes while nothing changed', async () => {
    const mcp = new TestProvider('mcp:x', 'mcp', ['lookup']);
    const set = new ToolSet([new StaticToolProvider('local', 'local', [tool('bash', 'local')]), mcp]);
    const first = await set.registry();
    const bytes = json(first);
    expect(await set.registry()).toBe(first);

    let announced = 0;
    set.onDidChange(() => announced++);
    mcp.poke();
    await settled();
    const after = await set.registry();
    expect(after).toBe(first);
    expect(json(after)).toBe(bytes);
    expect(announced).toBe(0);
  });

  it('keeps the earlier tools byte-identical when a late GUI provider adds its tools at the end', async () => {
    const gui = new TestProvider('gui', 'gui', []);
    const set = new ToolSet([
      new StaticToolProvider('local', 'local', [tool('bash', 'local'), tool('grep', 'local')]),
      new TestProvider('mcp:x', 'mcp', ['lookup']),
      gui,
    ]);
    const before = await set.registry();
    const changed = nextChange(set);
    gui.set(['click', 'accessibility']);
    const after = await changed;
    expect(await set.registry()).toBe(after);
    expect(names(after)).toEqual(['bash', 'grep', 'lookup', 'accessibility', 'click']);
    // The request's tools up to the last earlier tool are the same bytes, so the cached prefix holds.
    expect(json(after).startsWith(json(before).slice(0, -1))).toBe(true);
    after
      .definitions()
      .slice(0, before.size)
      .forEach((d, i) => expect(d).toBe(before.definitions()[i]));
  });

  it('leaves the other sources byte-identical when one provider changes its tools', async () => {
    const mcp = new TestProvider('mcp:x', 'mcp', ['lookup', 'zeta']);
    const gui = new TestProvider('gui', 'gui', ['click']);
    const set = new ToolSet([new StaticToolProvider('local', 'local', [tool('bash', 'local')]), mcp, gui]);
    const before = (await set.registry()).definitions();
    const changed = nextChange(set);
    mcp.set(['lookup']);
    const after = (await changed).definitions();
    expect(after.map((d) => d.name)).toEqual(['bash', 'lookup', 'click']);
    expect(JSON.stringify(after[0])).toBe(JSON.stringify(before[0]));
    expect(JSON.stringify(after[2])).toBe(JSON.stringify(before[3]));
  });

  it('takes a provider added after the first assembly in and announces the new registry', async () => {
    const set = new ToolSet([new StaticToolProvider('local', 'local', [tool('bash', 'local')])]);
    const first = await set.registry();
    const changed = nextChange(set);
    set.add(new TestProvider('cloud', 'cloud', ['research']));
    const next = await changed;
    expect(next).not.toBe(first);
    expect(names(next)).toEqual(['bash', 'research']);
    expect(names(first)).toEqual(['bash']);
  });

  it('assembles the others when a provider fails, names it in problems, and takes it back once it answers', async () => {
    const broken = new TestProvider('mcp:broken', 'mcp', ['fixer']);
    const throwing: ToolProvider = {
      id: 'cloud',
      source: 'cloud',
      tools: () => {
        throw new Error('not signed in');
      },
      onDidChange: () => ({ dispose: () => undefined }),
      dispose: () => undefined,
    };
    broken.fail(new Error('server exited with code 1'));
    const set = new ToolSet([
      new StaticToolProvider('local', 'local', [tool('bash', 'local')]),
      broken,
      throwing,
      new TestProvider('gui', 'gui', ['click']),
    ]);
    expect(names(await set.registry())).toEqual(['bash', 'click']);
    expect(set.problems.map((p) => [p.provider, p.message])).toEqual([
      ['mcp:broken', 'tool provider mcp:broken could not list its tools: server exited with code 1'],
      ['cloud', 'tool provider cloud could not list its tools: not signed in'],
    ]);

    const changed = nextChange(set);
    broken.fail(undefined);
    expect(names(await changed)).toEqual(['bash', 'fixer', 'click']);
    expect(set.problems.map((p) => p.provider)).toEqual(['cloud']);
  });

  it('keeps the earlier source’s tool on a name clash, and within one source the provider whose id sorts first', async () => {
    const local = new StaticToolProvider('local', 'local', [tool('search', 'local')]);
    const mcpZ = new TestProvider('mcp:z', 'mcp', ['search', 'shared']);
    const mcpA = new TestProvider('mcp:a', 'mcp', ['shared']);
    for (const order of [
      [mcpZ, local, mcpA],
      [mcpA, mcpZ, local],
    ]) {
      const set = new ToolSet(order);
      const registry = await set.registry();
      expect(names(registry)).toEqual(['search', 'shared']);
      expect(registry.get('search')!.source).toBe('local');
      expect(registry.get('shared')).toBe((await mcpA.tools())[0]);
      expect(set.problems.map((p) => p.message)).toEqual([
        'tool provider mcp:z: left out search: local already provides a tool of that name',
        'tool provider mcp:z: left out shared: mcp:a already provides a tool of that name',
      ]);
    }
  });

  it('leaves out tools with an invalid name or another source than their provider’s', async () => {
    const odd: ToolProvider = new StaticToolProvider('mcp:odd', 'mcp', [
      tool('has space', 'mcp'),
      tool('sneaky', 'local'),
      tool('fine', 'mcp'),
    ]);
    const set = new ToolSet([odd]);
    expect(names(await set.registry())).toEqual(['fine']);
    expect(set.problems.map((p) => p.message)).toEqual([
      'tool provider mcp:odd: left out a tool with an invalid name "has space"',
      "tool provider mcp:odd: left out sneaky: its source is local, the provider's is mcp",
    ]);
  });

  it('applies the allowed and denied lists on assembly, except to the names they do not govern', async () => {
    const local = new StaticToolProvider(
      'local',
      'local',
      ['bash', 'grep', 'tool_search'].map((n) => tool(n, 'local')),
    );
    const mcp = new TestProvider('mcp:x', 'mcp', ['lookup', 'delete_all']);
    const allowed = new ToolSet([local, mcp], {
      allowed: ['grep', 'lookup', 'delete_all'],
      denied: ['delete_all'],
      unfiltered: ['tool_search'],
    });
    expect(names(await allowed.registry())).toEqual(['grep', 'tool_search', 'lookup']);
    const denied = new ToolSet([local, mcp], { denied: ['bash', 'tool_search'] });
    expect(names(await denied.registry())).toEqual(['grep', 'delete_all', 'lookup']);
  });

  it('does not lose a change that arrives while an assembly is under way', async () => {
    const mcp = new TestProvider('mcp:x', 'mcp', ['old']);
    const set = new ToolSet([mcp]);
    const release = mcp.hold();
    const first = set.registry();
    mcp.set(['new']);
    release();
    expect(names(await first)).toEqual(['new']);

    const releaseAgain = mcp.hold();
    mcp.set(['newer']);
    const pending = set.registry();
    mcp.set(['newest']);
    releaseAgain();
    expect(names(await pending)).toEqual(['newest']);
  });

  it('rejects a second provider with the same id', () => {
    const set = new ToolSet([new TestProvider('mcp:x', 'mcp', [])]);
    expect(() => set.add(new TestProvider('mcp:x', 'mcp', []))).toThrow(/mcp:x was added twice/);
  });
});

describe('ToolSet disposal', () => {
  it('disposes its providers, the last added first, and stops listening', async () => {
    const log: string[] = [];
    const providers = ['local', 'mcp:a', 'gui'].map(
      (id, i) => new TestProvider(id, (['local', 'mcp', 'gui'] as const)[i]!, [`t${i}`], log),
    );
    const set = new ToolSet(providers);
    const registry = await set.registry();
    let announced = 0;
    set.onDidChange(() => announced++);
    set.dispose();
    expect(log).toEqual(['gui', 'mcp:a', 'local']);
    expect(providers.map((p) => p.listeners)).toEqual([0, 0, 0]);
    providers[2]!.set(['late']);
    await settled();
    expect(announced).toBe(0);
    expect(await set.registry()).toBe(registry);
    set.dispose();
    expect(log).toHaveLength(3);
  });

  it('disposes a provider added after it was disposed at once', () => {
    const set = new ToolSet();
    set.dispose();
    const late = new TestProvider('late', 'mcp', []);
    set.add(late);
    expect(late.disposed).toBe(true);
  });

  it('leaves a borrowed provider to its owner, but stops listening to it', async () => {
    const owned = new TestProvider('mcp:shared', 'mcp', ['lookup']);
    const set = new ToolSet([borrowedProvider(owned)]);
    expect(names(await set.registry())).toEqual(['lookup']);
    expect(owned.listeners).toBe(1);
    set.dispose();
    expect(owned.disposed).toBe(false);
    expect(owned.listeners).toBe(0);
  });
});
