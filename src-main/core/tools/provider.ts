/**
 * A tool provider is one source of tools: the built-ins, one MCP server, the cloud, the GUI bridge.
 * A ToolSet assembles a registry from its providers; a provider only answers "what tools do you have
 * now" and says when the answer changed.
 */
import { toDisposable, type Disposable } from '../base/lifecycle.js';
import type { Tool, ToolSource } from './tool.js';

export interface ToolProvider extends Disposable {
  /** Unique within a ToolSet (`local`, `mcp:github`); names the provider in problems. */
  readonly id: string;
  /** Every tool it gives must have this source: the source decides the tool's place in the list. */
  readonly source: ToolSource;
  /**
   * The tools it has now. A provider still starting (a server connecting) answers with what it has,
   * possibly nothing, and fires onDidChange when more arrive; it never waits for them, or the runs
   * that assemble a registry would wait with it.
   */
  tools(): Promise<readonly Tool[]>;
  /** Fired when `tools()` would answer differently (never from inside `tools()`: the set would ask again at once). */
  readonly onDidChange: (listener: () => void) => Disposable;
}

/** A fixed list of tools: the built-ins are one. It never changes and holds nothing to tear down. */
export class StaticToolProvider implements ToolProvider {
  readonly #tools: readonly Tool[];

  constructor(
    readonly id: string,
    readonly source: ToolSource,
    tools: readonly Tool[],
  ) {
    this.#tools = Object.freeze([...tools]);
  }

  tools(): Promise<readonly Tool[]> {
    return Promise.resolve(this.#tools);
  }

  readonly onDidChange = (): Disposable => toDisposable(() => undefined);

  dispose(): void {}
}

/**
 * A provider someone else owns, as a ToolSet may hold it: it answers and announces as the provider does,
 * and disposing it disposes nothing. A long-lived process keeps its providers (MCP connections) across
 * the ToolSets it builds for one agent after another.
 */
export function borrowedProvider(provider: ToolProvider): ToolProvider {
  return {
    id: provider.id,
    source: provider.source,
    tools: () => provider.tools(),
    onDidChange: (listener) => provider.onDidChange(listener),
    dispose: () => undefined,
  };
}
