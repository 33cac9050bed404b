/**
 * The doctor's look at the agents' watched folders: each one must be a folder the watching process can
 * read, or the watcher sees nothing and says nothing. When a daemon (or the app) runs, its own view is
 * asked (`GET /agents/{name}/activity`): on macOS the privacy settings are per app, so only the process
 * that watches knows whether it may read Downloads. Otherwise the folders are opened from here, which
 * says what this process may read (on macOS: the terminal's access, not the app's).
 */
import { listAgents, resolveAgentRuntimeConfig } from '../agents/index.js';
import type { GlobalConfig } from '../config/schema.js';
import { daemonRequest } from '../daemon/client.js';
import { runningDaemon, type DaemonInfo } from '../daemon/daemonFile.js';
import { folderAccess, unreadableHint } from '../util/folderAccess.js';
import type { Check } from './doctor.js';

interface Seen {
  agent: string;
  path: string;
  state: string;
  reason?: string;
}

export interface WatchCheckOptions {
  home: string;
  platform: NodeJS.Platform;
  /** Reads a folder far enough to know it can be watched (tests); default: open it and read an entry. */
  probe?: (dir: string) => Promise<void>;
}

export async function watchCheck(o: WatchCheckOptions, config: GlobalConfig): Promise<Check> {
  const name = 'watchers';
  const entries: Array<{ agent: string; path: string }> = [];
  for (const agent of await listAgents(o.home).catch(() => [] as string[])) {
    // An agent whose config does not load is the agents check's to report.
    const rc = await resolveAgentRuntimeConfig(o.home, config, agent).catch(() => undefined);
    for (const w of rc?.watch ?? []) entries.push({ agent, path: w.path });
  }
  if (entries.length === 0) return { name, status: 'ok', message: 'no watched folders' };

  const daemon = await runningDaemon(o.home).catch(() => undefined);
  const seen: Seen[] = [];
  let fromDaemon = daemon !== undefined;
  for (const agent of [...new Set(entries.map((e) => e.agent))]) {
    const own = entries.filter((e) => e.agent === agent);
    const told = daemon ? await daemonView(daemon, agent) : [];
    for (const e of own) {
      const t = told.find((x) => x.path === e.path);
      if (t) {
        seen.push(t);
        continue;
      }
      // Not said by the daemon (none runs, it does not run the watchers, it has not looked yet): from here.
      fromDaemon = false;
      const a = await folderAccess(e.path, o.probe);
      seen.push(a.ok ? { ...e, state: 'watching' } : { ...e, state: a.kind, reason: a.reason });
    }
  }
  const where = fromDaemon ? `as the running daemon (pid ${daemon!.pid}) sees them` : 'as this process sees them';
  const unreadable = seen.filter((s) => s.state === 'unreadable');
  if (unreadable.length > 0) {
    return {
      name,
      status: 'fail',
      message: `${unreadable.map(line).join('; ')} — not watched, ${where}`,
      hint:
        o.platform === 'darwin' && !fromDaemon
          ? `${unreadableHint(o.platform)} (checked from this terminal; start the app or rein daemon and run rein doctor again for its own view)`
          : unreadableHint(o.platform),
    };
  }
  const absent = seen.filter((s) => s.state === 'missing' || s.state === 'not_a_folder');
  if (absent.length > 0) {
    return {
      name,
      status: 'warn',
      message: `${absent.map(line).join('; ')} — not watched, ${where}`,
      hint: "make the folder, or change the watch entry in the agent's config.yaml; it is watched as soon as it is there",
    };
  }
  const count = seen.length;
  return { name, status: 'ok', message: `${count} watched folder${count === 1 ? '' : 's'} readable, ${where}` };
}

function line(s: Seen): string {
  return `${s.agent}: ${s.reason ?? `${s.path} (${s.state})`}`;
}

/** The watch states the daemon knows for one agent's folders (none when it does not answer). */
async function daemonView(daemon: DaemonInfo, agent: string): Promise<Seen[]> {
  try {
    const res = await daemonRequest(daemon, 'GET', `/agents/${encodeURIComponent(agent)}/activity`, undefined, {
      timeoutMs: 5_000,
    });
    const watchers = res.status === 200 ? (res.json as { watchers?: unknown } | null)?.watchers : undefined;
    if (!Array.isArray(watchers)) return [];
    const out: Seen[] = [];
    for (const w of watchers as Array<Record<string, unknown>>) {
      // Only a state the watchers decided counts (a daemon older than watch states sends none).
      if (typeof w.path !== 'string' || typeof w.state !== 'string') continue;
      out.push({ agent, path: w.path, state: w.state, ...(typeof w.reason === 'string' ? { reason: w.reason } : {}) });
    }
    return out;
  } catch {
    return [];
  }
}
