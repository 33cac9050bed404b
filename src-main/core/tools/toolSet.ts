/**
 * The tools of one agent, assembled from its providers into a ToolRegistry. The order is fixed by
 * source (local, MCP, cloud, GUI) and by name within each, whatever order the providers were added in
 * or answered in, so the tool list at the head of every request stays byte-identical: a GUI bridge that
 * connects late adds its tools at the end and leaves the cached prefix alone.
 *
 * While nothing changed the set hands out the very same registry object (and so the same cached
 * definition objects). A provider's change event re-assembles it; a new registry is announced only
 * when the list of tools really differs. A provider that fails to answer contributes nothing this time
 * and is named in `problems`; the others are assembled as usual.
 */
import { DisposableStore, Emitter, type Disposable } from '../base/lifecycle.js';
import { errorMessage } from '../errors.js';
import type { ToolProvider } from './provider.js';
import { compareTools, isValidToolName, SOURCE_ORDER, ToolRegistry } from './registry.js';
import type { Tool } from './tool.js';

export interface ToolSetOptions {
  /** Only these tool names (the agent's `tools.allowed`); every tool when empty. */
  allowed?: readonly string[];
  /** Never these (the agent's `tools.denied`); denied wins over allowed. */
  denied?: readonly string[];
  /** Names the two lists do not govern: machinery rather than a capability (tool_search). */
  unfiltered?: readonly string[];
}

/** Something the last assembly left out, and why. */
export interface ToolSetProblem {
  provider: string;
  message: string;
}

type Answer = { ok: true; tools: readonly Tool[] } | { ok: false; error: unknown };

const ask = async (p: ToolProvider): Promise<Answer> => {
  try {
    return { ok: true, tools: await p.tools() };
  } catch (error) {
    return { ok: false, error };
  }
};

// Among providers of one source the id decides who keeps a contested name, so that does not hang on
// which provider happened to be added first.
const byPlace = (a: ToolProvider, b: ToolProvider): number =>
  SOURCE_ORDER[a.source] - SOURCE_ORDER[b.source] || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

const sameList = (a: readonly Tool[], b: readonly Tool[]): boolean =>
  a.length === b.length && a.every((t, i) => t === b[i]);

export class ToolSet implements Disposable {
  readonly #providers: ToolProvider[] = [];
  readonly #store = new DisposableStore();
  readonly #changed = new Emitter<ToolRegistry>();
  readonly #allowed: ReadonlySet<string>;
  readonly #denied: ReadonlySet<string>;
  readonly #unfiltered: ReadonlySet<string>;
  #current = new ToolRegistry();
  #problems: readonly ToolSetProblem[] = [];
  #assembled = false;
  #stale = false;
  #pending: Promise<ToolRegistry> | undefined;
  #disposed = false;

  /** Fired with the new registry after an assembly whose tool list differs from the last one. */
  readonly onDidChange = this.#changed.event;

  constructor(providers: Iterable<ToolProvider> = [], opts: ToolSetOptions = {}) {
    this.#allowed = new Set(opts.allowed ?? []);
    this.#denied = new Set(opts.denied ?? []);
    this.#unfiltered = new Set(opts.unfiltered ?? []);
    for (const p of providers) this.add(p);
  }

  /** Takes the provider in (the set disposes it); assembles again if a registry was already handed out. */
  add(provider: ToolProvider): void {
    if (this.#disposed) {
      provider.dispose();
      return;
    }
    if (this.#providers.some((p) => p.id === provider.id))
      throw new Error(`tool provider ${provider.id} was added twice`);
    this.#providers.push(provider);
    this.#store.add(provider);
    this.#store.add(provider.onDidChange(() => this.#invalidate()));
    this.#invalidate();
  }

  /** The registry as of the latest answers of every provider; the same object while nothing changed. */
  registry(): Promise<ToolRegistry> {
    if (!this.#pending && !this.#disposed && (this.#stale || !this.#assembled)) {
      this.#pending = this.#assemble().finally(() => {
        this.#pending = undefined;
        // A change that came in while the last round was being committed.
        if (this.#stale && !this.#disposed) void this.registry();
      });
    }
    return this.#pending ?? Promise.resolve(this.#current);
  }

  /** The last registry assembled (empty before the first); for code that cannot wait, like a tool's call. */
  get current(): ToolRegistry {
    return this.#current;
  }

  /** What the last assembly left out: failed providers, clashing or invalid tools. */
  get problems(): readonly ToolSetProblem[] {
    return this.#problems;
  }

  /** Stops listening and disposes every provider, the last added first. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#changed.dispose();
    this.#store.dispose();
  }

  #invalidate(): void {
    this.#stale = true;
    // Nobody has asked for a registry yet: the first `registry()` call assembles it.
    if (this.#assembled) void this.registry();
  }

  async #assemble(): Promise<ToolRegistry> {
    do {
      this.#stale = false;
      const providers = [...this.#providers];
      const answers = await Promise.all(providers.map(ask));
      if (this.#disposed) break;
      this.#commit(providers, answers);
    } while (this.#stale);
    return this.#current;
  }

  #commit(providers: readonly ToolProvider[], answers: readonly Answer[]): void {
    const problems: ToolSetProblem[] = [];
    const owner = new Map<string, string>();
    const tools: Tool[] = [];
    const answered = new Map(providers.map((p, i) => [p, answers[i]!]));
    for (const p of [...providers].sort(byPlace)) {
      const answer = answered.get(p)!;
      if (!answer.ok) {
        problems.push({
          provider: p.id,
          message: `tool provider ${p.id} could not list its tools: ${errorMessage(answer.error)}`,
        });
        continue;
      }
      for (const tool of answer.tools) {
        const left = (why: string) => problems.push({ provider: p.id, message: `tool provider ${p.id}: ${why}` });
        if (!isValidToolName(tool.name)) left(`left out a tool with an invalid name ${JSON.stringify(tool.name)}`);
        else if (tool.source !== p.source)
          left(`left out ${tool.name}: its source is ${tool.source}, the provider's is ${p.source}`);
        else if (owner.has(tool.name))
          left(`left out ${tool.name}: ${owner.get(tool.name)} already provides a tool of that name`);
        else {
          owner.set(tool.name, p.id);
          if (this.#admits(tool.name)) tools.push(tool);
        }
      }
    }
    tools.sort(compareTools);
    this.#problems = problems;
    const first = !this.#assembled;
    this.#assembled = true;
    if (sameList(tools, this.#current.list())) return;
    this.#current = new ToolRegistry(tools);
    if (!first) this.#changed.fire(this.#current);
  }

  #admits(name: string): boolean {
    if (this.#unfiltered.has(name)) return true;
    return (this.#allowed.size === 0 || this.#allowed.has(name)) && !this.#denied.has(name);
  }
}
