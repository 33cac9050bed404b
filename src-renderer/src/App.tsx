/**
 * The page: a sidebar of views (Chat, Approvals with its count, Agents, Sessions, Schedules, Settings) around one
 * event stream. Conversations and the approvals queue live here, fed by `subscribe`, so every view
 * sees the same state and switching views loses nothing.
 */
import { lazy, Suspense, useCallback, useEffect, useReducer, useState } from 'react';
import type { ReinDesktopApi } from '../../src-main/core/api/desktopApi.js';
import type {
  ApprovalDecisionKind,
  FormValues,
  ReinApi,
  ReinSettings,
  SessionRecord,
} from '../../src-main/core/api/index.js';
import type { DaemonApi } from './api/daemonApi.js';
import type { ConnectionState } from './api/eventSocket.js';
import type { ApiChoice } from './api/pickApi.js';
import { approvalsReducer, emptyApprovals } from './state/approvals.js';
import { changesReducer, emptyChanges } from './state/changes.js';
import { emptyChat } from './state/chat.js';
import { chatsReducer } from './state/chats.js';
import { chatRoute, DEFAULT_AGENT } from './state/routes.js';
import { useAsync } from './util/useAsync.js';
import { ApprovalsView } from './views/approvals/ApprovalsView.js';
import { ChatView } from './views/chat/ChatView.js';
import { useRememberedConversations } from './views/chat/useRememberedConversations.js';
import { ICONS } from './views/nav/icons.js';
import { Sidebar, type SidebarItem } from './views/nav/Sidebar.js';

// The chat is what opens first; the other views load when first shown, so the first paint does not
// wait for their code (the agent form generator, above all).
const AgentsView = lazy(() => import('./views/agents/AgentsView.js').then((m) => ({ default: m.AgentsView })));
const SessionsView = lazy(() => import('./views/sessions/SessionsView.js').then((m) => ({ default: m.SessionsView })));
const SchedulesView = lazy(() =>
  import('./views/schedules/SchedulesView.js').then((m) => ({ default: m.SchedulesView })),
);
const SettingsView = lazy(() => import('./views/settings/SettingsView.js').then((m) => ({ default: m.SettingsView })));
const ConnectionSettings = lazy(() =>
  import('./views/settings/SettingsView.js').then((m) => ({ default: m.ConnectionSettings })),
);
const FirstLaunchSteps = lazy(() =>
  import('./views/settings/FirstLaunchSteps.js').then((m) => ({ default: m.FirstLaunchSteps })),
);

export type ViewId = 'chat' | 'approvals' | 'agents' | 'sessions' | 'schedules' | 'settings';

export const VIEWS: { id: ViewId; label: string; key: string }[] = [
  { id: 'chat', label: 'Chat', key: '1' },
  { id: 'approvals', label: 'Approvals', key: '2' },
  { id: 'agents', label: 'Agents', key: '3' },
  { id: 'sessions', label: 'Sessions', key: '4' },
  { id: 'schedules', label: 'Schedules', key: '5' },
  { id: 'settings', label: 'Settings', key: '6' },
];

const NAV_ITEMS: SidebarItem<ViewId>[] = VIEWS.map((v) => ({ ...v, icon: ICONS[v.id] }));

export function App({ choice }: { choice: ApiChoice }) {
  const [current, setCurrent] = useState(choice);
  if (current.kind === 'needs-token')
    return <TokenGate onToken={(t) => setCurrent({ kind: 'daemon', api: current.connect(t) })} />;
  return (
    <Workspace
      api={current.api}
      {...(current.kind === 'daemon' ? { daemon: current.api } : {})}
      {...(current.kind === 'ipc' && current.desktop ? { desktop: current.desktop } : {})}
    />
  );
}

export function Workspace({ api, daemon, desktop }: { api: ReinApi; daemon?: DaemonApi; desktop?: ReinDesktopApi }) {
  const [view, setView] = useState<ViewId>('chat');
  const [agent, setAgent] = useState(DEFAULT_AGENT);
  const [chats, dispatchChats] = useReducer(chatsReducer, undefined, () => ({
    [chatRoute(DEFAULT_AGENT)]: emptyChat(DEFAULT_AGENT, chatRoute(DEFAULT_AGENT)),
  }));
  const [approvals, dispatchApprovals] = useReducer(approvalsReducer, undefined, emptyApprovals);
  const [changes, dispatchChanges] = useReducer(changesReducer, undefined, emptyChanges);
  const [agentsVersion, setAgentsVersion] = useState(0);
  const [connection, setConnection] = useState<ConnectionState>('open');
  const [focusKey, setFocusKey] = useState(0);
  const [onboardingDone, setOnboardingDone] = useState(false);
  const [savedSettings, setSavedSettings] = useState<ReinSettings | undefined>();

  const [agentList] = useAsync(() => api.listAgents(), [api, agentsVersion]);
  const agents = [DEFAULT_AGENT, ...(agentList.value?.agents ?? []).filter((a) => !a.problem).map((a) => a.name)];
  const [settingsLoad, reloadSettings] = useAsync(() => api.getSettings(), [api]);
  const settings = savedSettings ? { status: 'ready' as const, value: savedSettings } : settingsLoad;

  const loadApprovals = useCallback(() => {
    api.listApprovals().then(
      (r) => dispatchApprovals({ type: 'loaded', approvals: r.approvals }),
      () => undefined, // the stream still brings new ones; the badge catches up on the next load
    );
    api.listChanges().then(
      (r) => dispatchChanges({ type: 'loaded', changes: r.changes }),
      () => undefined, // an older daemon has no GET /changes
    );
  }, [api]);

  useEffect(() => {
    // Subscribe first, then load: an approval asked in between arrives as an event and is not lost.
    const stop = api.subscribe((event) => {
      dispatchChats({ type: 'event', event });
      dispatchApprovals({ type: 'event', event });
      dispatchChanges({ type: 'event', event });
      if (event.type === 'agent_changed') {
        setAgentsVersion((v) => v + 1);
        // Another window (or the tray) switched agents: follow it.
        if (event.change === 'activated') {
          setAgent(event.agent);
          dispatchChats({ type: 'open', agent: event.agent });
        }
      }
    });
    loadApprovals();
    // Start with the agent the daemon says is active (the desktop, the tray and browsers share it).
    api.status().then(
      (s) => {
        if (s.active_agent && s.active_agent !== DEFAULT_AGENT) {
          setAgent(s.active_agent);
          dispatchChats({ type: 'open', agent: s.active_agent });
        }
      },
      () => undefined,
    );
    return stop;
  }, [api, loadApprovals]);

  useEffect(() => {
    if (!daemon) return;
    let previous: ConnectionState | undefined;
    return daemon.onConnection((state) => {
      setConnection(state);
      // Back after a drop: what was pending may have been answered meanwhile.
      if (state === 'open' && previous && previous !== 'open') loadApprovals();
      previous = state;
    });
  }, [daemon, loadApprovals]);

  // The tray menu and notifications ask the page to open a view.
  useEffect(() => {
    if (!desktop) return;
    return desktop.onNavigate((target) => {
      setView(target);
      if (target === 'chat') setFocusKey((k) => k + 1);
    });
  }, [desktop]);

  const pendingCount = approvals.pending.length + changes.pending.length;
  useEffect(() => {
    document.title = pendingCount > 0 ? `(${pendingCount}) Rein` : 'Rein';
  }, [pendingCount]);

  const answer = useCallback(
    async (request_id: string, decision: ApprovalDecisionKind, values?: FormValues) => {
      await api.answerApproval({ request_id: request_id, decision, ...(values ? { values } : {}) });
      dispatchApprovals({ type: 'answered', request_id });
    },
    [api],
  );

  const openChat = useCallback((name: string, session?: SessionRecord) => {
    setAgent(name);
    dispatchChats({ type: 'open', agent: name });
    if (session) dispatchChats({ type: 'chat', agent: name, action: { type: 'load_session', session } });
    setView('chat');
    setFocusKey((k) => k + 1);
  }, []);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!e.altKey || e.ctrlKey || e.metaKey) return;
      // e.code, not e.key: on a Mac, Option+1 types "¡".
      const target = VIEWS.find((v) => e.code === `Digit${v.key}`);
      if (target) {
        e.preventDefault();
        setView(target.id);
        if (target.id === 'chat') setFocusKey((k) => k + 1);
      } else if (e.code === 'KeyN') {
        e.preventDefault();
        dispatchChats({ type: 'chat', agent, action: { type: 'reset' } });
        setView('chat');
        setFocusKey((k) => k + 1);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [agent]);

  // A reload continues the conversation each agent's chat showed.
  useRememberedConversations(api, agent, chats, dispatchChats);

  const chat = chats[chatRoute(agent)] ?? emptyChat(agent, chatRoute(agent));
  const needsOnboarding =
    !onboardingDone && settings.status === 'ready' && !settings.value.api_key.present && !settings.value.base_url;

  return (
    <div className="app">
      <Sidebar<ViewId>
        items={NAV_ITEMS}
        current={view}
        onPick={setView}
        counts={{ approvals: pendingCount }}
        toggleIcon={ICONS.menu}
      />
      <main className="main">
        <ConnectionBanner state={connection} />
        <Suspense fallback={<p className="muted view-loading">Loading…</p>}>
          {needsOnboarding && view === 'chat' ? (
            <div className="onboarding">
              <h1>Welcome to Rein</h1>
              <ConnectionSettings
                api={api}
                settings={settings.value}
                onboarding
                onSaved={(s) => {
                  setSavedSettings(s);
                  setOnboardingDone(true);
                }}
              />
              {/* In the app: start at login (asked, off until answered) and the macOS permissions. */}
              {desktop && (
                <FirstLaunchSteps api={api} desktop={desktop} settings={settings.value} onRefresh={reloadSettings} />
              )}
              <button type="button" className="link" onClick={() => setOnboardingDone(true)}>
                Later
              </button>
            </div>
          ) : view === 'chat' ? (
            <ChatView
              api={api}
              agents={agents}
              agent={agent}
              chat={chat}
              onPickAgent={(a) => {
                openChat(a);
                // switchAgent: the daemon remembers the choice for every window of this user.
                api.switchAgent({ name: a }).catch(() => undefined);
              }}
              dispatch={(action) => dispatchChats({ type: 'chat', agent, action })}
              onAnswer={answer}
              focusKey={focusKey}
              errorContext={{ baseUrl: settings.value?.base_url ?? null }}
            />
          ) : view === 'approvals' ? (
            <ApprovalsView
              pending={approvals.pending}
              onAnswer={answer}
              changes={changes.pending}
              {...(desktop
                ? {
                    onChange: async (change_id: string, decision: 'apply' | 'reject') => {
                      await desktop.answerChange({ change_id, decision });
                      dispatchChanges({ type: 'answered', change_id });
                    },
                  }
                : {})}
            />
          ) : view === 'agents' ? (
            <AgentsView
              api={api}
              version={agentsVersion}
              onChanged={() => setAgentsVersion((v) => v + 1)}
              onChat={(a) => openChat(a)}
            />
          ) : view === 'sessions' ? (
            <SessionsView api={api} agents={agents} onContinue={(a, s) => openChat(a, s)} />
          ) : view === 'schedules' ? (
            <SchedulesView api={api} agents={agents} />
          ) : (
            <SettingsView
              api={api}
              {...(desktop ? { desktop } : {})}
              settings={settings}
              onSaved={setSavedSettings}
              onRefresh={() => {
                setSavedSettings(undefined);
                reloadSettings();
              }}
            />
          )}
        </Suspense>
      </main>
    </div>
  );
}

/** The line over the page when the daemon is away or refuses the token: a wrong token and a rotated one are told apart. */
export function ConnectionBanner({ state }: { state: ConnectionState }) {
  if (state === 'open' || state === 'connecting') return null;
  const text =
    state === 'unauthorized'
      ? 'The daemon did not accept this token: it is not the daemon’s token (mistyped, or from another Rein). Open the address `rein daemon` printed — the token is after #token= — or paste `token` from ~/.rein/daemon.json.'
      : state === 'rotated'
        ? 'The daemon no longer accepts this page’s token: it was rotated (rein daemon rotate-token) or the daemon restarted with a new one. Open the address `rein daemon` printed again.'
        : state === 'reconnecting'
          ? 'Lost the connection to Rein; reconnecting…'
          : 'Not connected to Rein.';
  return (
    <p
      className={`banner ${state === 'unauthorized' || state === 'rotated' ? 'banner-error' : 'banner-warn'}`}
      role="alert"
    >
      {text}
    </p>
  );
}

/** In a browser without a token: explain where the address with the token comes from, or take one pasted. */
export function TokenGate({ onToken }: { onToken(token: string): void }) {
  const [token, setToken] = useState('');
  return (
    <main className="token-gate">
      <h1>Rein</h1>
      <p>
        This page talks to the Rein daemon and needs its access token. Open the address that <code>rein daemon</code>{' '}
        printed (it carries the token after
        <code>#token=</code>), or paste the token from <code>~/.rein/daemon.json</code>:
      </p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (token.trim()) onToken(token.trim());
        }}
      >
        <label htmlFor="token-input" className="field-label">
          Token
        </label>
        <input
          id="token-input"
          type="password"
          autoComplete="off"
          value={token}
          onChange={(e) => setToken(e.target.value)}
          autoFocus
        />
        <button type="submit" className="primary" disabled={!token.trim()}>
          Connect
        </button>
      </form>
    </main>
  );
}
