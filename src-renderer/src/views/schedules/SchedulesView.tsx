/**
 * Schedules: every schedule with its cron, agent, next runs and last result; enable/disable, run now,
 * remove, a form for a new one, and the last run's log. The list follows `schedule_run` events (a run
 * started, finished, failed or was skipped), so a run started here or by launchd shows up as it goes.
 */
import { useEffect, useState } from 'react';
import type { ReinApi, ScheduleInfo } from '../../../../src-main/core/api/index.js';
import { errorText, toApiError } from '../../api/apiError.js';
import { formatWhen } from '../../util/format.js';
import { useAsync } from '../../util/useAsync.js';

export interface SchedulesViewProps {
  api: ReinApi;
  agents: string[];
}

export function SchedulesView({ api, agents }: SchedulesViewProps) {
  const [list, reload] = useAsync(() => api.listSchedules(), [api]);
  const [open, setOpen] = useState<string | undefined>();
  const [problem, setProblem] = useState<string | undefined>();

  useEffect(
    () =>
      api.subscribe((e) => {
        if (e.type === 'schedule_run') reload();
      }),
    [api, reload],
  );

  const act = async (fn: () => Promise<unknown>) => {
    setProblem(undefined);
    try {
      await fn();
      reload();
    } catch (e) {
      setProblem(errorText(toApiError(e)));
    }
  };

  const schedules = list.value?.schedules ?? [];
  return (
    <div className="view schedules-view">
      <header className="view-head">
        <h1>Schedules</h1>
        <p className="muted">
          {list.value ? (list.value.backend === 'launchd' ? 'Each schedule is a launchd job: it runs while the app is closed and after the Mac wakes.' : 'Schedules run inside Rein’s daemon while it is running.') : ''}
          {' '}Runs are unattended: a tool call that needs approval is refused.
        </p>
      </header>
      {list.status === 'failed' && (
        <p className="form-error" role="alert">
          {errorText(list.error)}
        </p>
      )}
      {problem && (
        <p className="form-error" role="alert">
          {problem}
        </p>
      )}
      <NewSchedule api={api} agents={agents} onCreated={reload} />
      {list.value && schedules.length === 0 && <p className="muted">No schedules yet.</p>}
      <ul className="schedule-list">
        {schedules.map((s) => (
          <li key={s.id} className={`schedule-item${s.enabled ? '' : ' disabled'}`} data-schedule-id={s.id}>
            <div className="schedule-head">
              <code className="schedule-cron">{s.cron}</code>
              <span className="schedule-agent">{s.agent}</span>
              <span className="muted">{s.enabled ? (s.next[0] ? `next ${formatWhen(s.next[0])}` : 'no upcoming time') : 'disabled'}</span>
              {s.catch_up && s.catch_up !== 'once' && <span className="muted schedule-catch-up">missed runs: {s.catch_up === 'skip' ? 'skipped' : `caught up ${s.catch_up}`}</span>}
            </div>
            <p className="schedule-prompt">{s.prompt}</p>
            {s.last_run && (
              <p className={`schedule-last status-${s.last_run.status}`}>
                Last run {formatWhen(s.last_run.at)}: {s.last_run.status}
                {(s.last_run.error ?? s.last_run.message) ? ` — ${s.last_run.error ?? s.last_run.message}` : ''}
              </p>
            )}
            <div className="schedule-actions">
              <button type="button" onClick={() => void act(() => api.updateSchedule({ id: s.id, enabled: !s.enabled }))}>
                {s.enabled ? 'Disable' : 'Enable'}
              </button>
              <button type="button" onClick={() => void act(() => api.runSchedule({ id: s.id }))}>
                Run now
              </button>
              <button type="button" onClick={() => setOpen(open === s.id ? undefined : s.id)} aria-expanded={open === s.id}>
                {open === s.id ? 'Hide log' : 'Last log'}
              </button>
              <button type="button" className="danger" onClick={() => void act(() => api.removeSchedule({ id: s.id }))}>
                Remove
              </button>
            </div>
            {open === s.id && <ScheduleLog api={api} schedule={s} />}
          </li>
        ))}
      </ul>
    </div>
  );
}

function ScheduleLog({ api, schedule }: { api: ReinApi; schedule: ScheduleInfo }) {
  const [log] = useAsync(() => api.readScheduleLog({ id: schedule.id }), [api, schedule.id, schedule.last_run?.at]);
  if (log.status === 'failed') return <p className="muted">{log.error.code === 'not_found' ? 'No runs yet.' : errorText(log.error)}</p>;
  if (!log.value) return <p className="muted">Loading…</p>;
  return (
    <section className="schedule-log" aria-label={`Log ${log.value.name}`}>
      <p className="muted">
        {log.value.name}
        {log.value.truncated ? ' (the end of it)' : ''}
      </p>
      <pre>{log.value.text}</pre>
    </section>
  );
}

/** The catch_up values the form offers (the API takes any `within <duration>`). */
const CATCH_UP_CHOICES: ReadonlyArray<readonly [string, string]> = [
  ['once', 'runs once, when it wakes'],
  ['within 1h', 'runs if missed by at most 1 hour'],
  ['within 4h', 'runs if missed by at most 4 hours'],
  ['within 12h', 'runs if missed by at most 12 hours'],
  ['skip', 'is skipped'],
];

function NewSchedule({ api, agents, onCreated }: { api: ReinApi; agents: string[]; onCreated(): void }) {
  const [cron, setCron] = useState('0 9 * * 1-5');
  const [prompt, setPrompt] = useState('');
  const [agent, setAgent] = useState('default');
  const [catchUp, setCatchUp] = useState('once');
  const [problem, setProblem] = useState<{ field?: string; text: string } | undefined>();
  const [busy, setBusy] = useState(false);
  return (
    <form
      className="new-schedule"
      aria-label="New schedule"
      onSubmit={(e) => {
        e.preventDefault();
        setBusy(true);
        setProblem(undefined);
        api
          .createSchedule({ cron: cron.trim(), prompt, agent, catch_up: catchUp })
          .then(() => {
            setPrompt('');
            onCreated();
          })
          .catch((err: unknown) => {
            const a = toApiError(err);
            setProblem({ ...(a.field ? { field: a.field } : {}), text: errorText(a) });
          })
          .finally(() => setBusy(false));
      }}
    >
      <label>
        <span className="field-label">When (cron, local time)</span>
        <input value={cron} onChange={(e) => setCron(e.target.value)} aria-invalid={problem?.field === 'cron'} spellCheck={false} />
      </label>
      <label>
        <span className="field-label">Agent</span>
        <select value={agent} onChange={(e) => setAgent(e.target.value)}>
          {agents.map((a) => (
            <option key={a}>{a}</option>
          ))}
        </select>
      </label>
      <label>
        <span className="field-label">A time missed while the Mac was off or asleep</span>
        <select value={catchUp} onChange={(e) => setCatchUp(e.target.value)} aria-invalid={problem?.field === 'catch_up'}>
          {CATCH_UP_CHOICES.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <label className="grow">
        <span className="field-label">Prompt</span>
        <input value={prompt} onChange={(e) => setPrompt(e.target.value)} placeholder="Check CI and summarise the failures" aria-invalid={problem?.field === 'prompt'} />
      </label>
      <button type="submit" className="primary" disabled={busy || !prompt.trim() || !cron.trim()}>
        {busy ? 'Adding…' : 'Add schedule'}
      </button>
      {problem && (
        <p className="form-error" role="alert">
          {problem.text}
        </p>
      )}
    </form>
  );
}
