/**
 * The GUI tool providers one owner keeps (a RuntimeCache: the daemon, the desktop app, `rein mcp serve`),
 * one per platform and helper environment: the helper is a machine resource like a connection pool, and
 * the owner's runs share it while their refs stay in their own session slots. The owner disposes the pool
 * when it is done, which stops the helpers. Only types are imported here, so holding a pool does not load
 * the GUI code (it is loaded when a runtime first wants GUI tools, guiProviderLoader.ts).
 */
import type { ToolProvider } from '../tools/provider.js';

/** A pooled provider: it stops its helper on disposeAsync. */
export interface PooledGuiProvider extends ToolProvider {
  disposeAsync(): Promise<void>;
}

export class GuiProviderPool {
  readonly #providers = new Map<string, PooledGuiProvider>();

  /** The provider for this key, made by `make` the first time. */
  get(key: string, make: () => PooledGuiProvider): PooledGuiProvider {
    let p = this.#providers.get(key);
    if (!p) this.#providers.set(key, (p = make()));
    return p;
  }

  /** Stops every provider's helper and forgets them (a later `get` makes a new one). */
  async disposeAsync(): Promise<void> {
    const all = [...this.#providers.values()];
    this.#providers.clear();
    await Promise.all(all.map((p) => p.disposeAsync()));
  }
}
