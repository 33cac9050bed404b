/**
 * Runs nobody starts by hand (ring 3): heartbeats and file watchers. Both go through the service like
 * every other face (`submit` with origin `unattended`), follow the agents' configs without a restart,
 * and are owned: `startTriggers` hands back one AsyncDisposable for the daemon's store.
 */
import type { AsyncDisposable } from '../base/lifecycle.js';
import { errorMessage } from '../errors.js';
import { HeartbeatManager, type HeartbeatManagerOptions } from './heartbeatManager.js';
import type { TriggerHost } from './host.js';
import { WatcherManager, type WatcherManagerOptions } from './fileWatcher.js';

export { appendAlert, DEFAULT_APPEND_WAIT_MS, type AppendResult } from './appendAlert.js';
export {
  MAX_WATCHED_DIRS,
  SKIPPED_DIRS,
  WATCHER_SOURCE,
  WatcherManager,
  type WatcherManagerOptions,
  type WatchState,
  type WatchStatus,
} from './fileWatcher.js';
export { DEFAULT_RESCAN_MS, followAgents } from './followAgents.js';
export {
  appendBeat,
  heartbeatLogFile,
  heartbeatStateFile,
  localDay,
  MAX_RECORDS,
  readBeats,
  readHeartbeatState,
  spentOn,
  type BeatOutcome,
  type BeatRecord,
  type BeatTrigger,
  type HeartbeatState,
  type SkipReason,
} from './heartbeatLog.js';
export { HeartbeatManager, inActiveHours, nextBeatAt, type HeartbeatManagerOptions } from './heartbeatManager.js';
export {
  conversationTail,
  HEARTBEAT_OK,
  heartbeatBrief,
  heartbeatPrompt,
  isHeartbeatOk,
  latestConversation,
  MAX_GOALS_CHARS,
  readGoals,
  TAIL_MAX_CHARS,
} from './heartbeatPrompt.js';
export {
  beatSettings,
  DEFAULT_MAX_USD_PER_DAY,
  HEARTBEAT_SOURCE,
  heartbeatCacheTtl,
  runHeartbeat,
  type BeatOptions,
  type BeatSettings,
} from './heartbeatRunner.js';
export { agentConfigOf, type TriggerHost } from './host.js';
export { agentActivity, type AgentActivity } from './activity.js';
export { changeList, mergeChange, watchPrompt, type ChangeType } from './watchPrompt.js';

export interface Triggers extends AsyncDisposable {
  heartbeats: HeartbeatManager;
  watchers: WatcherManager;
  /** Resolves once both have read every agent (and the watchers finished their first scan). */
  ready: Promise<void>;
}

export interface TriggerOptions {
  warn?: (message: string) => void;
  heartbeats?: Omit<HeartbeatManagerOptions, 'warn'>;
  watchers?: Omit<WatcherManagerOptions, 'warn'>;
}

/**
 * Starts the heartbeat timers and file watchers of every agent on `host` (the daemon's service). It
 * does not wait for them: the daemon answers at once and they come up beside it (`ready`). Never throws;
 * problems are warnings.
 */
export function startTriggers(host: TriggerHost, opts: TriggerOptions = {}): Triggers {
  const warn = opts.warn ?? (() => undefined);
  const heartbeats = new HeartbeatManager(host, { ...opts.heartbeats, warn });
  const watchers = new WatcherManager(host, { ...opts.watchers, warn });
  const ready = Promise.all([
    heartbeats.start().catch((e: unknown) => warn(`heartbeats did not start: ${errorMessage(e)}`)),
    watchers
      .start()
      .then(() => watchers.ready())
      .catch((e: unknown) => warn(`file watchers did not start: ${errorMessage(e)}`)),
  ]).then(() => undefined);
  let disposing: Promise<void> | undefined;
  return {
    heartbeats,
    watchers,
    ready,
    dispose: () =>
      (disposing ??= (async () => {
        await Promise.allSettled([watchers.dispose(), heartbeats.dispose()]);
      })()),
  };
}
