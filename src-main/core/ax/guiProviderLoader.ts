/**
 * The GUI provider for a runtime, with the accessibility code loaded only where it can be used: on
 * macOS, on Linux with an X display, or when `gui.enabled` is true. Everywhere else (`auto` on a server
 * without a display, `false`) a run never compiles the AX client, its protocol or the GUI tools
 * (docs/architecture.md, *Startup*). The decision itself is `guiProviderFor` in guiProvider.ts.
 */
import type { ToolProvider } from '../tools/provider.js';
import type { GuiEnabled } from './guiProvider.js';
import type { GuiProviderPool } from './guiProviderPool.js';

export async function loadGuiProvider(
  enabled: GuiEnabled,
  env: NodeJS.ProcessEnv,
  given: readonly ToolProvider[] = [],
  platform: NodeJS.Platform = process.platform,
  /** The owner's pool (a RuntimeCache's); without one, the process-wide provider. */
  pool?: GuiProviderPool,
): Promise<ToolProvider | undefined> {
  if (enabled === false || given.some((p) => p.source === 'gui')) return undefined;
  // guiAvailability says no without looking further in these cases: no need to load it to hear that.
  if (enabled === 'auto' && platform !== 'darwin' && !(platform === 'linux' && env.DISPLAY)) return undefined;
  const { guiProviderFor } = await import('./guiProvider.js');
  return guiProviderFor(enabled, env, given, platform, pool);
}
