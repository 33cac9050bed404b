/**
 * An agent's MCP servers (the agent editor's tab) or the global config's (Settings: the built-in
 * agent's servers, which every agent without a list of its own uses too): each server's state, how it
 * is reached, its tools (a list that opens), what went wrong last, and the one action that helps —
 * Connect (not started yet), Reconnect (lost or given up), Sign in (a remote server, http or sse, that asks for it).
 *
 * The list is asked for again when the daemon says one of the agent's servers changed state
 * (`mcp_status`: connected, lost, stopped when idle, a sign-in failed), after each run of any agent,
 * and when the page becomes visible; every second while something is under way (a connection, a
 * sign-in in the browser), and every 30 s to keep the times of the next attempts fresh. Asking starts
 * nothing; only the buttons do.
 */
import { useEffect, useState } from 'react';
import type { McpServerStatus, ReinApi } from '../../../../src-main/core/api/index.js';
import { errorText } from '../../api/apiError.js';
import { formatWhen } from '../../util/format.js';
import { useAsync } from '../../util/useAsync.js';

const SLOW_POLL_MS = 30_000;
const FAST_POLL_MS = 1_000;

export interface McpServersPanelProps {
  api: ReinApi;
  /** Whose servers: a named agent's, or `default` for the global config's. */
  agent: string;
  scope: 'agent' | 'global';
}

export function McpServersPanel({ api, agent, scope }: McpServersPanelProps) {
  const [loaded, reload] = useAsync(() => api.mcpServers({ agent }), [api, agent]);
  const [busy, setBusy] = useState<Record<string, string>>({});
  const [problems, setProblems] = useState<Record<string, string>>({});
  const servers = loaded.value?.agents.find((a) => a.agent === agent)?.servers;
  const underWay =
    (servers ?? []).some((s) => s.state === 'connecting' || s.sign_in?.state === 'waiting') ||
    Object.keys(busy).length > 0;

  // Poll while the panel is on screen and the page is visible.
  useEffect(() => {
    const timer = setInterval(
      () => {
        if (!document.hidden) reload();
      },
      underWay ? FAST_POLL_MS : SLOW_POLL_MS,
    );
    const onVisible = () => !document.hidden && reload();
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      clearInterval(timer);
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, [reload, underWay]);

  // A server of this agent changed state; a run starts the agent's servers, its end is a good moment too.
  useEffect(
    () =>
      api.subscribe((e) => {
        if (e.type === 'session_start' || e.type === 'session_end' || (e.type === 'mcp_status' && e.agent === agent))
          reload();
      }),
    [api, reload, agent],
  );

  async function act(server: string, what: string, fn: () => Promise<unknown>) {
    setBusy((b) => ({ ...b, [server]: what }));
    setProblems(({ [server]: _gone, ...rest }) => rest);
    try {
      await fn();
    } catch (e) {
      setProblems((p) => ({ ...p, [server]: errorText(e) }));
    } finally {
      setBusy(({ [server]: _done, ...rest }) => rest);
      reload();
    }
  }

  if (loaded.status === 'failed' && !servers) {
    return (
      <p className="form-error" role="alert">
        The MCP servers could not be listed: {errorText(loaded.error)}
      </p>
    );
  }
  if (!servers) return <p className="muted">Loading MCP servers…</p>;
  return (
    <McpServerList
      agent={agent}
      scope={scope}
      servers={servers}
      busy={busy}
      problems={problems}
      onConnect={(name) => void act(name, 'Connecting…', () => api.mcpReconnect({ agent, name }))}
      onSignIn={(name) => void act(name, 'Opening the sign-in…', () => api.mcpLogin({ agent, name }))}
    />
  );
}

/** What a person reads for a state: `needs sign-in` rather than `disconnected` when that is why. */
export function stateLabel(s: McpServerStatus): string {
  if (s.sign_in_required) return 'needs sign-in';
  if (s.state === 'idle') return 'not started';
  return s.state;
}

const badgeOf = (s: McpServerStatus): string => {
  if (s.sign_in_required) return 'warn';
  if (s.state === 'healthy') return 'ok';
  if (s.state === 'degraded' || s.state === 'connecting') return 'warn';
  if (s.state === 'disconnected' || s.state === 'dormant') return 'bad';
  return '';
};

/** How a server is reached, as its facts line says; the remote kinds (http, sse) are the ones that can ask for a sign-in. */
export function transportOf(type: McpServerStatus['type']): { label: string; remote: boolean } {
  switch (type) {
    case 'stdio':
      return { label: 'stdio', remote: false };
    case 'http':
      return { label: 'HTTP', remote: true };
    case 'sse':
      return { label: 'HTTP+SSE', remote: true };
  }
}

/** The one action that helps, if any. */
export function actionOf(s: McpServerStatus): { kind: 'signIn' | 'connect' | 'reconnect'; label: string } | undefined {
  if (s.state === 'disabled' || s.state === 'connecting') return undefined;
  if (transportOf(s.type).remote && (s.sign_in_required || s.sign_in?.state === 'failed'))
    return { kind: 'signIn', label: 'Sign in' };
  if (s.state === 'idle') return { kind: 'connect', label: 'Connect' };
  if (s.state === 'disconnected' || s.state === 'dormant') return { kind: 'reconnect', label: 'Reconnect' };
  return undefined;
}

export interface McpServerListProps {
  agent: string;
  scope: 'agent' | 'global';
  servers: readonly McpServerStatus[];
  /** Servers with an action under way, and what it is. */
  busy?: Readonly<Record<string, string>>;
  /** What the last action on a server was refused with. */
  problems?: Readonly<Record<string, string>>;
  onConnect(name: string): void;
  onSignIn(name: string): void;
}

export function McpServerList({
  agent,
  scope,
  servers,
  busy = {},
  problems = {},
  onConnect,
  onSignIn,
}: McpServerListProps) {
  const addHint =
    scope === 'global' ? (
      <>
        <code>rein mcp add NAME --command … | --url …</code>, or under <code>mcp_servers:</code> in{' '}
        <code>~/.rein/config.yaml</code>
      </>
    ) : (
      <>
        <code>rein mcp add NAME --agent {agent} --command … | --url …</code>, or under MCP servers in the Config tab
      </>
    );
  if (servers.length === 0) {
    return (
      <div className="mcp-panel">
        <p className="mcp-empty">
          {scope === 'global' ? 'No MCP servers in the global config.' : `${agent} has no MCP servers.`} Add one with{' '}
          {addHint}.
        </p>
        {scope === 'global' && <p className="field-help">Agents without MCP servers of their own use these.</p>}
      </div>
    );
  }
  return (
    <div className="mcp-panel">
      <p className="field-help">
        {scope === 'global'
          ? 'The servers in the global config.yaml: the built-in agent’s, and every agent’s that has none of its own (or marks them _inherit).'
          : `The servers ${agent}’s runs use: its own, or the global ones when it has none.`}{' '}
        A server starts with the first run that needs it. Add more with {addHint}.
      </p>
      <ul className="mcp-server-list" aria-label={`MCP servers of ${agent}`}>
        {servers.map((s) => (
          <McpServerItem
            key={s.name}
            s={s}
            busy={busy[s.name]}
            problem={problems[s.name]}
            onConnect={onConnect}
            onSignIn={onSignIn}
          />
        ))}
      </ul>
    </div>
  );
}

function McpServerItem({
  s,
  busy,
  problem,
  onConnect,
  onSignIn,
}: {
  s: McpServerStatus;
  busy: string | undefined;
  problem: string | undefined;
  onConnect(name: string): void;
  onSignIn(name: string): void;
}) {
  const action = actionOf(s);
  const label = stateLabel(s);
  const names = s.tool_names ?? [];
  const connected = s.state === 'healthy' || s.state === 'degraded';
  const times = timesOf(s);
  return (
    <li className={`mcp-server state-${s.state}${s.sign_in_required ? ' needs-sign-in' : ''}`} data-server={s.name}>
      <div className="mcp-server-head">
        <strong className="mcp-server-name">{s.name}</strong>
        <span className={['badge', 'mcp-state', badgeOf(s)].filter(Boolean).join(' ')}>{label}</span>
        <span className="muted mcp-server-facts">
          {transportOf(s.type).label}
          {s.state !== 'disabled' && ` · ${s.tools} tool${s.tools === 1 ? '' : 's'}`}
          {s.server && ` · ${s.server.name} ${s.server.version}`}
          {transportOf(s.type).remote &&
            s.signed_in &&
            !s.sign_in_required &&
            s.sign_in === undefined &&
            ' · signed in'}
        </span>
        {action && (
          <button
            type="button"
            className={action.kind === 'signIn' ? 'primary' : undefined}
            aria-label={`${action.label} ${s.name}`}
            disabled={busy !== undefined}
            onClick={() => (action.kind === 'signIn' ? onSignIn(s.name) : onConnect(s.name))}
          >
            {busy ?? action.label}
          </button>
        )}
      </div>
      {s.last_error && s.state !== 'healthy' && (
        <p className="mcp-error">
          <span className="mcp-error-label">Last error:</span> {s.last_error}
        </p>
      )}
      {s.sign_in?.state === 'waiting' && (
        <p className="mcp-sign-in" role="status">
          Waiting for the sign-in in your browser.{' '}
          {s.sign_in.authorization_url && (
            <a href={s.sign_in.authorization_url} target="_blank" rel="noreferrer noopener">
              Open the sign-in page
            </a>
          )}
        </p>
      )}
      {s.sign_in?.state === 'failed' && (
        <p className="form-error" role="alert">
          Sign-in failed: {s.sign_in.error}
        </p>
      )}
      {problem && (
        <p className="form-error" role="alert">
          {problem}
        </p>
      )}
      {names.length > 0 && (
        <details className="mcp-tools">
          <summary>
            {names.length} tool{names.length === 1 ? '' : 's'}
            {!connected && ' (as last listed)'}
          </summary>
          <ul className="mcp-tool-list">
            {names.map((n) => (
              <li key={n}>
                <code>{n}</code>
              </li>
            ))}
          </ul>
        </details>
      )}
      {times && <p className="muted mcp-times">{times}</p>}
    </li>
  );
}

/** Since when, the last answer, the next attempt: what says whether it is coming back. */
function timesOf(s: McpServerStatus): string {
  const parts: string[] = [];
  if (s.state !== 'idle' && s.state !== 'disabled' && !s.since.startsWith('1970-'))
    parts.push(`${s.state} since ${formatWhen(s.since)}`);
  if (s.last_ok_at && s.state !== 'healthy') parts.push(`last answered ${formatWhen(s.last_ok_at)}`);
  if (s.next_attempt_at && (s.state === 'disconnected' || s.state === 'degraded'))
    parts.push(`next try ${formatWhen(s.next_attempt_at)}`);
  if (s.state === 'dormant') parts.push('no more tries in the background; a call or Reconnect tries again');
  if (s.state === 'disabled') parts.push('disabled: true in the config');
  return parts.join(' · ');
}
