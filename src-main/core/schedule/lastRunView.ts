/**
 * A schedule's last run as programs read it (`rein schedule show --json`, the daemon's API, the app):
 * the stored record's fields as they were (`at`, `status`, `session_id`, `log`, `message`, `trigger`)
 * plus `started_at`, `ended_at` (null while it runs), `error` (why it failed or was interrupted) and
 * `session` (its session id).
 *
 * The stored `started` is a claim by a process: it reads `running` while that process lives and
 * `interrupted` once it is gone — a run killed outright (SIGKILL, a crash, power lost) had no chance to
 * record its end, and must not read as running forever.
 */
import { isProcessAlive } from '../util/processAlive.js';
import type { LastRun } from './store.js';

export type LastRunStatus = 'running' | 'finished' | 'failed' | 'interrupted' | 'skipped';

// A type, not an interface: it must fit the API's loose objects (an index signature).
export type LastRunView = {
  status: LastRunStatus;
  started_at: string;
  ended_at: string | null;
  error?: string;
  session?: string;
  /** Kept as they were stored: `at` is `started_at`, `session_id` is `session`. */
  at: string;
  session_id?: string;
  log?: string;
  message?: string;
  trigger?: string;
};

export function lastRunView(run: LastRun, isAlive: (pid: number) => boolean = isProcessAlive): LastRunView {
  const { pid, ended_at, status: stored, ...kept } = run;
  let status: LastRunStatus;
  let error: string | undefined;
  if (stored === 'started') {
    if (pid !== undefined && isAlive(pid)) status = 'running';
    else {
      status = 'interrupted';
      error = `its process${pid !== undefined ? ` (pid ${pid})` : ''} ended without recording how the run went (killed, or the computer shut down)`;
    }
  } else {
    status = stored;
    if (stored === 'failed' || stored === 'interrupted') error = run.message ?? stored;
  }
  return {
    ...kept,
    status,
    started_at: run.at,
    ended_at: status === 'running' ? null : (ended_at ?? (stored === 'skipped' ? run.at : null)),
    ...(error !== undefined ? { error } : {}),
    ...(run.session_id !== undefined ? { session: run.session_id } : {}),
  };
}
