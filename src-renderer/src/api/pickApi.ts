/**
 * Which ReinApi the page uses: the preload's bridge inside the desktop app, else the daemon that
 * served the page (same origin, so its Host and Origin checks pass).
 */
import type { ReinDesktopApi } from '../../../src-main/core/api/desktopApi.js';
import type { ReinApi } from '../../../src-main/core/api/index.js';
import { createDaemonApi, type DaemonApi } from './daemonApi.js';
import { createDesktopApi, createIpcApi } from './ipcApi.js';
import { takeLaunchToken } from './launchToken.js';

export type ApiChoice =
  | { kind: 'ipc'; api: ReinApi; desktop?: ReinDesktopApi }
  | { kind: 'daemon'; api: DaemonApi }
  /** In a browser without a token: the page asks for one (or for the printed link). */
  | { kind: 'needs-token'; connect(token: string): DaemonApi };

export function chooseApi(win: Pick<Window, 'rein' | 'reinDesktop' | 'location' | 'history'>): ApiChoice {
  if (win.rein)
    return {
      kind: 'ipc',
      api: createIpcApi(win.rein),
      ...(win.reinDesktop ? { desktop: createDesktopApi(win.reinDesktop) } : {}),
    };
  const { token } = takeLaunchToken(win.location, win.history);
  const connect = (t: string) => createDaemonApi({ baseUrl: win.location.origin, token: t });
  if (token) return { kind: 'daemon', api: connect(token) };
  return { kind: 'needs-token', connect };
}
