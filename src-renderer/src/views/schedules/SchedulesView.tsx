/**
 * Schedules: every schedule with its cron (and the cron in words), agent, next time and last run;
 * enable/disable, run now, remove, a form for a new one, and the last run's log. The form reads the
 * expression as it is typed — in words, with its next fire times, or the parser's message naming the
 * wrong field — with the same parser and fire times as the backends (core/api/cron.ts). The list
 * follows `schedule_run` events (a run started, finished, failed or was skipped), so a run started here
 * or by launchd shows up as it goes.
 */
import { useEffect, useMemo, useState } from 'react';
import { previewCron } from '../../../../src-main/core/api/cronWords.js';
import type { ReinApi, ScheduleInfo } from '../../../../src-main/core/api/index.js';
import { errorText, toApiError } from '../../api/apiError.js';
import { useAsync } from '../../util/useAsync.js';
import { catchUpWords, cronWords, lastRunWords, nextWords, upcomingWords } from './scheduleWords.js';

/** The current time, renewed every half minute, so "next …" and "2 h ago" stay true while the view is open. */
function useNow(everyMs = 30_000): Date {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    const timer = setInterval(() => setNow(new Date()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}

export interface SchedulesViewProps {
  api: ReinApi;
  agents: string[];
}

export function SchedulesView({ api, agents }: SchedulesViewProps) {
  const [list, reload] = useAsync(() => api.listSchedules(), [api]);
  const [open, setOpen] = useState<string | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  const now = useNow();

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
          {list.value
            ? list.value.backend === 'launchd'
              ? 'Each schedule is a launchd job: it runs while the app is closed and after the Mac wakes.'
              : 'Schedules run inside Rein’s daemon while it is running.'
            : ''}{' '}
          Runs are unattended: a tool call that needs approval is refused.
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
      <NewSchedule api={api} agents={agents} onCreated={reload} now={now} />
      {list.value && schedules.length === 0 && <p className="muted">No schedules yet.</p>}
      <ul className="schedule-list">
        {schedules.map((s) => (
          <li key={s.id} className={`schedule-item${s.enabled ? '' : ' disabled'}`} data-schedule-id={s.id}>
            <ScheduleSummary schedule={s} now={now} />
            <div className="schedule-actions">
              <button
                type="button"
                onClick={() => void act(() => api.updateSchedule({ id: s.id, enabled: !s.enabled }))}
              >
                {s.enabled ? 'Disable' : 'Enable'}
              </button>
              <button type="button" onClick={() => void act(() => api.runSchedule({ id: s.id }))}>
                Run now
              </button>
              <button
                type="button"
                onClick={() => setOpen(open === s.id ? undefined : s.id)}
                aria-expanded={open === s.id}
              >
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

function ScheduleSummary({ schedule: s, now }: { schedule: ScheduleInfo; now: Date }) {
  const words = cronWords(s.cron);
  const catchUp = catchUpWords(s.catch_up);
  return (
    <>
      <div className="schedule-head">
        <code className="schedule-cron">{s.cron}</code>
        {words && <span className="schedule-words">{words}</span>}
        <span className="schedule-agent">{s.agent}</span>
      </div>
      <p className="schedule-prompt">{s.prompt}</p>
      <p className="schedule-when">
        <span
          className="schedule-next"
          title={s.enabled && s.next.length > 1 ? `Next times: ${upcomingWords(s, { now })}` : undefined}
        >
          {nextWords(s, { now })}
        </span>
        <span className={`schedule-last status-${s.last_run?.status ?? 'none'}`}>
          Last run: {s.last_run ? lastRunWords(s.last_run, { now }) : 'none yet'}
        </span>
        {catchUp && <span className="schedule-catch-up">{catchUp}</span>}
      </p>
    </>
  );
}

function ScheduleLog({ api, schedule }: { api: ReinApi; schedule: ScheduleInfo }) {
  const [log] = useAsync(() => api.readScheduleLog({ id: schedule.id }), [api, schedule.id, schedule.last_run?.at]);
  if (log.status === 'failed')
    return <p className="muted">{log.error.code === 'not_found' ? 'No runs yet.' : errorText(log.error)}</p>;
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

function NewSchedule({
  api,
  agents,
  onCreated,
  now,
}: {
  api: ReinApi;
  agents: string[];
  onCreated(): void;
  now: Date;
}) {
  const [cron, setCron] = useState('0 9 * * 1-5');
  const [prompt, setPrompt] = useState('');
  const [agent, setAgent] = useState('default');
  const [catchUp, setCatchUp] = useState('once');
  const [problem, setProblem] = useState<{ field?: string; text: string } | undefined>();
  const [busy, setBusy] = useState(false);
  const preview = useMemo(() => (cron.trim() ? previewCron(cron, { now }) : undefined), [cron, now]);
  // The server's refusal of the expression says what the live reading already says: show it once.
  const shownProblem = problem && !(problem.field === 'cron' && preview && !preview.ok) ? problem : undefined;
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
        <input
          className="cron-input"
          value={cron}
          onChange={(e) => {
            setCron(e.target.value);
            // A refusal of the old expression no longer applies; the reading below judges the new one.
            if (problem?.field === 'cron') setProblem(undefined);
          }}
          aria-invalid={problem?.field === 'cron' || preview?.ok === false}
          aria-describedby="new-schedule-cron-reading"
          spellCheck={false}
        />
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
        <select
          value={catchUp}
          onChange={(e) => setCatchUp(e.target.value)}
          aria-invalid={problem?.field === 'catch_up'}
        >
          {CATCH_UP_CHOICES.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <label className="grow">
        <span className="field-label">Prompt</span>
        <input
          value={prompt}
          onChange={(e) => setPrompt(e.target.value)}
          placeholder="Check CI and summarise the failures"
          aria-invalid={problem?.field === 'prompt'}
        />
      </label>
      <button type="submit" className="primary" disabled={busy || !prompt.trim() || !cron.trim()}>
        {busy ? 'Adding…' : 'Add schedule'}
      </button>
      <p className="cron-reading" id="new-schedule-cron-reading" aria-live="polite">
        {preview?.ok === true && (
          <>
            <span className="cron-words">{preview.words}</span>
            <span className="cron-next">
              {preview.next.length > 0 ? `next ${preview.nextText}` : 'no upcoming time'}
            </span>
          </>
        )}
        {preview?.ok === false && <span className="form-error cron-problem">{preview.message}</span>}
      </p>
      {shownProblem && (
        <p className="form-error" role="alert">
          {shownProblem.text}
        </p>
      )}
    </form>
  );
}
