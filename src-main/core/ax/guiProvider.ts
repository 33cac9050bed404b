/**
 * The GUI tool provider (source `gui`): accessibility, wait_for, screenshot, computer, and applescript on
 * macOS. It owns one AXClient in its DisposableStore; the helper starts at the first GUI call, not when the
 * provider is made, and stops after two idle minutes. Its list of tools never changes.
 *
 * Whether a runtime gets it at all is `guiAvailability`: `gui.enabled` true/false decides; `auto` (the
 * default) means on macOS always (the helper app ships inside Rein; missing permissions are reported by the
 * tools), on Linux when an X display is set and the helper with its AT-SPI bindings is installed.
 */
import { DisposableStore, toDisposable, type Disposable } from '../base/lifecycle.js';
import type { ToolProvider } from '../tools/provider.js';
import type { Tool } from '../tools/tool.js';
import { AXClient, type AXClientOptions } from './axClient.js';
import { locateHelper } from './helperProcess.js';
import { GuiGuard, type GuiGuardOptions } from './guiGuard.js';
import { accessibilityTool, applescriptTool, computerTool, screenshotTool, waitForTool } from './guiTools.js';
import type { GuiProviderPool } from './guiProviderPool.js';

export type GuiEnabled = boolean | 'auto';

export type GuiAvailability = { available: true } | { available: false; reason: string };

export function guiAvailability(
  enabled: GuiEnabled,
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): GuiAvailability {
  if (enabled === false) return { available: false, reason: 'gui.enabled is false' };
  if (platform === 'darwin') return { available: true };
  if (platform !== 'linux') return { available: false, reason: `no accessibility helper for ${platform}` };
  if (!env.DISPLAY) return { available: false, reason: 'no X display (DISPLAY is not set)' };
  const found = locateHelper({ env, platform });
  if (!found.ok) return { available: false, reason: found.reason };
  return { available: true };
}

export interface GuiProviderOptions {
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  /** A client to use instead of one of our own (tests); the provider does not dispose it. */
  client?: AXClient;
  clientOptions?: AXClientOptions;
  /** How the tools tell Rein's own processes and the home folder (tests); default: this process's. */
  guard?: GuiGuardOptions;
}

export class GuiToolProvider implements ToolProvider {
  readonly id = 'gui';
  readonly source = 'gui' as const;
  readonly client: AXClient;
  readonly #store = new DisposableStore();
  readonly #tools: readonly Tool[];

  constructor(opts: GuiProviderOptions = {}) {
    const platform = opts.platform ?? process.platform;
    this.client =
      opts.client ??
      this.#store.add(
        new AXClient(
          { clientName: 'rein-gui-tools', ...opts.clientOptions },
          { env: opts.env ?? process.env, platform },
        ),
      );
    const guard = new GuiGuard(this.client, opts.guard);
    const tools: Tool[] = [
      accessibilityTool(this.client, guard),
      computerTool(this.client, guard),
      screenshotTool(this.client, guard),
      waitForTool(this.client, guard),
    ];
    if (platform === 'darwin') tools.push(applescriptTool());
    this.#tools = Object.freeze(tools);
  }

  tools(): Promise<readonly Tool[]> {
    return Promise.resolve(this.#tools);
  }

  readonly onDidChange = (): Disposable => toDisposable(() => undefined);

  dispose(): void {
    this.#store.dispose();
  }

  /** Stops the helper (waiting for it to end), then lets go of the rest. */
  async disposeAsync(): Promise<void> {
    await this.client.disposeAsync();
    this.dispose();
  }
}

const poolKey = (env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string =>
  [
    platform,
    env.DISPLAY,
    env.DBUS_SESSION_BUS_ADDRESS,
    env.REIN_AX_HELPER,
    env.REIN_AX_PYTHON,
    env.REIN_AX_HELPER_BUNDLE,
  ].join('\0');

/**
 * For runtimes without an owner (a one-shot `rein run`, no RuntimeCache): one provider per process, keyed
 * by platform and helper environment. It is torn down when the process exits (and the helper also ends on
 * its own when its parent is gone). A runtime with a RuntimeCache takes the cache's pool instead, which its
 * owner disposes.
 */
const shared = new Map<string, GuiToolProvider>();
let exitHook = false;

export function sharedGuiProvider(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): GuiToolProvider {
  const key = poolKey(env, platform);
  let p = shared.get(key);
  if (!p) {
    p = new GuiToolProvider({ env, platform });
    shared.set(key, p);
    if (!exitHook) {
      exitHook = true;
      process.once('exit', () => {
        for (const provider of shared.values()) provider.client.killNow();
      });
    }
  }
  return p;
}

/**
 * The GUI provider a runtime adds, or none: none when the caller brought its own `gui` provider, when
 * `gui.enabled` is false, or (auto) when guiAvailability says no. `true` adds it even without a helper: its
 * tools then say why they cannot run.
 */
export function guiProviderFor(
  enabled: GuiEnabled,
  env: NodeJS.ProcessEnv,
  given: readonly ToolProvider[] = [],
  platform: NodeJS.Platform = process.platform,
  pool?: GuiProviderPool,
): ToolProvider | undefined {
  if (given.some((p) => p.source === 'gui')) return undefined;
  if (enabled === false) return undefined;
  if (enabled === 'auto' && !guiAvailability(enabled, env, platform).available) return undefined;
  return pool
    ? pool.get(poolKey(env, platform), () => new GuiToolProvider({ env, platform }))
    : sharedGuiProvider(env, platform);
}

/** Stops every shared provider's helper (tests; a process that wants them gone before it exits). */
export async function disposeSharedGuiProviders(): Promise<void> {
  const all = [...shared.values()];
  shared.clear();
  await Promise.all(all.map((p) => p.disposeAsync()));
}
