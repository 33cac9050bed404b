/**
 * Settings: how Rein reaches a model (API key, or the base URL of a compatible server), tested with one
 * small request; models; the permission mode; the global hotkey; and on macOS the privacy permissions
 * with buttons to the right System Settings pane. The first run shows the connection part alone as
 * onboarding.
 */
import { useEffect, useRef, useState } from 'react';
import type {
  MacPermissionName,
  ReinApi,
  ReinSettings,
  SaveSettingsInput,
  TestConnectionResult,
} from '../../../../src-main/core/api/index.js';
import type { ReinDesktopApi } from '../../../../src-main/core/api/desktopApi.js';
import { errorText, isUnsupported, toApiError } from '../../api/apiError.js';
import { formatDuration } from '../../util/format.js';
import type { AsyncState } from '../../util/useAsync.js';
import { DesktopSettingsSection } from './DesktopSettingsSection.js';
import { McpServersPanel } from '../mcp/McpServersPanel.js';

const MODES: { value: ReinSettings['permission_mode']; text: string }[] = [
  { value: 'default', text: 'Ask before risky actions' },
  { value: 'acceptEdits', text: 'Allow file edits, ask for the rest' },
  { value: 'plan', text: 'Plan only: read, never change' },
  { value: 'dontAsk', text: 'Never ask: deny what would need a question' },
  { value: 'bypassPermissions', text: 'Allow everything (hard blocks still hold)' },
];

const PERMISSIONS: { id: MacPermissionName; label: string; why: string }[] = [
  { id: 'accessibility', label: 'Accessibility', why: 'lets agents read and operate other apps' },
  {
    id: 'automation',
    label: 'Automation',
    why: 'lets agents script other apps (System Events; macOS asks once for each other app)',
  },
  { id: 'screen_recording', label: 'Screen Recording', why: 'lets agents take screenshots' },
];

/** A status as a person reads it. */
const STATE_TEXT: Record<string, string> = {
  authorized: 'allowed',
  denied: 'not allowed',
  restricted: 'blocked by a profile',
  'not determined': 'not asked yet',
  unavailable: 'cannot be read',
  unknown: 'unknown',
};

export interface SettingsViewProps {
  api: ReinApi;
  /** Present inside the desktop app. */
  desktop?: ReinDesktopApi;
  settings: AsyncState<ReinSettings>;
  onSaved(s: ReinSettings): void;
  onRefresh(): void;
}

export function SettingsView({ api, desktop, settings, onSaved, onRefresh }: SettingsViewProps) {
  // Kept here: the form below is rebuilt from the saved settings after each save, and must still say "Saved.".
  const [status, setStatus] = useState<FormStatus | undefined>();
  if (settings.status === 'failed' && !settings.value) {
    return (
      <div className="view settings-view">
        <header className="view-head">
          <h1>Settings</h1>
        </header>
        <p className="settings-note" role="status">
          {isUnsupported(settings.error)
            ? 'This connection does not offer settings (the daemon has no /settings endpoint). Edit ~/.rein/config.yaml, or use the desktop app.'
            : `Settings could not be read: ${settings.error.message}`}
        </p>
        {desktop && <DesktopSettingsSection desktop={desktop} onKeyRemoved={onRefresh} />}
      </div>
    );
  }
  if (!settings.value) return <p className="muted">Loading settings…</p>;
  return (
    <SettingsForm
      key={JSON.stringify(settings.value)}
      api={api}
      {...(desktop ? { desktop } : {})}
      settings={settings.value}
      onSaved={onSaved}
      onRefresh={onRefresh}
      status={status}
      setStatus={setStatus}
    />
  );
}

type FormStatus = { ok: boolean; text: string };

function SettingsForm({
  api,
  desktop,
  settings,
  onSaved,
  onRefresh,
  status,
  setStatus,
}: {
  api: ReinApi;
  desktop?: ReinDesktopApi;
  settings: ReinSettings;
  onSaved(s: ReinSettings): void;
  onRefresh(): void;
  status: FormStatus | undefined;
  setStatus(s: FormStatus | undefined): void;
}) {
  const [model, setModel] = useState(settings.model);
  const [smallModel, setSmallModel] = useState(settings.small_model);
  const [mode, setMode] = useState(settings.permission_mode);
  const [busy, setBusy] = useState(false);

  async function save(patch: SaveSettingsInput) {
    setBusy(true);
    setStatus(undefined);
    try {
      const next = await api.saveSettings(patch);
      setStatus({ ok: true, text: 'Saved.' });
      onSaved(next);
    } catch (e) {
      setStatus({ ok: false, text: errorText(e) });
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="view settings-view">
      <header className="view-head">
        <h1>Settings</h1>
      </header>
      <ConnectionSettings api={api} settings={settings} onSaved={onSaved} />
      <form
        className="settings-section"
        onSubmit={(e) => {
          e.preventDefault();
          void save({ model, small_model: smallModel, permission_mode: mode });
        }}
      >
        <h2>Models and permissions</h2>
        <datalist id="known-models">
          {(settings.models ?? []).map((m) => (
            <option key={m} value={m} />
          ))}
        </datalist>
        <div className="field">
          <label htmlFor="set-model" className="field-label">
            Model
          </label>
          <input id="set-model" list="known-models" value={model} onChange={(e) => setModel(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="set-small-model" className="field-label">
            Small model
          </label>
          <input
            id="set-small-model"
            list="known-models"
            value={smallModel}
            onChange={(e) => setSmallModel(e.target.value)}
            aria-describedby="set-small-help"
          />
          <p className="field-help" id="set-small-help">
            Used for summaries and heartbeats.
          </p>
        </div>
        <fieldset className="field">
          <legend className="field-label">Permission mode</legend>
          {MODES.map((m) => (
            <label key={m.value} className="check-row">
              <input type="radio" name="mode" checked={mode === m.value} onChange={() => setMode(m.value)} />
              <span>
                <code>{m.value}</code> <span className="muted">{m.text}</span>
              </span>
            </label>
          ))}
        </fieldset>
        <div className="form-actions">
          <button type="submit" className="primary" disabled={busy}>
            {busy ? 'Saving…' : 'Save'}
          </button>
          {status && (
            <span className={status.ok ? 'form-ok' : 'form-error'} role={status.ok ? 'status' : 'alert'}>
              {status.text}
            </span>
          )}
        </div>
      </form>
      <section className="settings-section" aria-labelledby="mcp-title">
        <h2 id="mcp-title">MCP servers</h2>
        <McpServersPanel api={api} agent="default" scope="global" />
      </section>
      {desktop && <DesktopSettingsSection desktop={desktop} onKeyRemoved={onRefresh} />}
      {settings.platform === 'darwin' && (
        <MacPermissions api={api} {...(desktop ? { desktop } : {})} settings={settings} onRefresh={onRefresh} />
      )}
    </div>
  );
}

/** API key or base URL, a test with one small request, and save. Also the whole onboarding screen. */
export function ConnectionSettings({
  api,
  settings,
  onSaved,
  onboarding,
}: {
  api: ReinApi;
  settings: ReinSettings;
  onSaved(s: ReinSettings): void;
  onboarding?: boolean;
}) {
  const [key, setKey] = useState('');
  const [baseUrl, setBaseUrl] = useState(settings.base_url ?? '');
  const [test, setTest] = useState<TestConnectionResult | { ok: false; message: string } | undefined>();
  const [testing, setTesting] = useState(false);
  const [saving, setSaving] = useState(false);
  const [problem, setProblem] = useState<string | undefined>();
  // Another base URL raises permissions (the key and every conversation go there): over the daemon it
  // waits for a person, in a shell on its machine (or the desktop app). The page follows the answer.
  const [waiting, setWaiting] = useState<{ change_id: string; command?: string; message: string } | undefined>();
  const saved = useRef(onSaved);
  saved.current = onSaved;

  useEffect(() => {
    if (!waiting) return;
    return api.subscribe((e) => {
      if (e.type !== 'change_response' || e.change_id !== waiting.change_id) return;
      setWaiting(undefined);
      if (e.outcome === 'applied') {
        api.getSettings().then(
          (next) => saved.current(next),
          (err: unknown) => setProblem(errorText(err)),
        );
      } else {
        setProblem(
          e.outcome === 'rejected'
            ? 'The change was rejected: nothing was saved.'
            : e.outcome === 'expired'
              ? 'Nobody confirmed the change within 30 minutes: nothing was saved. Save again to ask again.'
              : `The change was confirmed but could not be made${e.error ? `: ${e.error}` : ''}.`,
        );
      }
    });
  }, [api, waiting]);

  // In a browser the daemon keeps no key (it says so in `note`); only the desktop app stores one.
  const keyWritable = settings.api_key.writable !== false;
  const typedKey = keyWritable ? key.trim() : '';
  const values = () => ({
    ...(typedKey ? { api_key: typedKey } : {}),
    ...(baseUrl.trim() ? { base_url: baseUrl.trim() } : {}),
  });

  async function runTest() {
    setTesting(true);
    setTest(undefined);
    try {
      setTest(await api.testConnection(values()));
    } catch (e) {
      setTest({ ok: false, message: errorText(e) });
    } finally {
      setTesting(false);
    }
  }

  async function save() {
    setSaving(true);
    setProblem(undefined);
    setWaiting(undefined);
    try {
      const next = await api.saveSettings({
        ...(typedKey ? { api_key: typedKey } : {}),
        base_url: baseUrl.trim() || null,
      });
      setKey('');
      onSaved(next);
    } catch (e) {
      const err = toApiError(e);
      if (err.code === 'confirmation_pending' && err.pending) {
        setWaiting({
          change_id: err.pending.change_id,
          ...(err.pending.accept_command ? { command: err.pending.accept_command } : {}),
          message: err.message,
        });
      } else setProblem(err.message);
    } finally {
      setSaving(false);
    }
  }

  return (
    <form
      className="settings-section"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <h2>{onboarding ? 'Connect Rein to a model' : 'Connection'}</h2>
      <p className="muted">
        {settings.api_key.present
          ? `An API key is set${keySourceText(settings.api_key.source)}${settings.api_key.hint ? `: ${settings.api_key.hint}` : ''}.`
          : keyWritable
            ? 'No API key yet. Paste an Anthropic API key, or give the address of a compatible server.'
            : 'No API key yet. Give the address of a compatible server, or an Anthropic API key as described below.'}
      </p>
      {keyWritable ? (
        <div className="field">
          <label htmlFor="set-key" className="field-label">
            {settings.api_key.present ? 'Replace API key' : 'API key'}
          </label>
          <input
            id="set-key"
            type="password"
            autoComplete="off"
            spellCheck={false}
            value={key}
            placeholder="sk-ant-…"
            onChange={(e) => setKey(e.target.value)}
            aria-describedby="set-key-help"
          />
          <p className="field-help" id="set-key-help">
            {settings.api_key.note ?? 'Kept in the system keychain.'}
          </p>
        </div>
      ) : (
        settings.api_key.note && <p className="field-help key-note">{settings.api_key.note}</p>
      )}
      <div className="field">
        <label htmlFor="set-base-url" className="field-label">
          Base URL (optional)
        </label>
        <input
          id="set-base-url"
          type="url"
          value={baseUrl}
          placeholder="https://api.anthropic.com"
          onChange={(e) => setBaseUrl(e.target.value)}
        />
      </div>
      <div className="form-actions">
        <button type="button" onClick={() => void runTest()} disabled={testing}>
          {testing ? 'Testing…' : 'Test connection'}
        </button>
        <button
          type="submit"
          className="primary"
          disabled={saving || (!typedKey && baseUrl.trim() === (settings.base_url ?? ''))}
        >
          {saving ? 'Saving…' : onboarding ? 'Save and start' : 'Save'}
        </button>
      </div>
      {test && (
        <p className={test.ok ? 'form-ok' : 'form-error'} role={test.ok ? 'status' : 'alert'}>
          {test.ok ? '✓ ' : '✗ '}
          {test.message}
          {'latency_ms' in test && test.latency_ms !== undefined ? ` (${formatDuration(test.latency_ms)})` : ''}
        </p>
      )}
      {waiting && <ChangeWaiting waiting={waiting} />}
      {problem && (
        <p className="form-error" role="alert">
          {problem}
        </p>
      )}
    </form>
  );
}

/** A saved change that waits for a person: the exact command that confirms it, in a shell on the daemon's machine. */
function ChangeWaiting({ waiting }: { waiting: { change_id: string; command?: string; message: string } }) {
  if (!waiting.command) {
    return (
      <p className="change-waiting" role="status" data-change-id={waiting.change_id}>
        {waiting.message}
      </p>
    );
  }
  return (
    <div className="change-waiting" role="status" data-change-id={waiting.change_id}>
      <p>
        Another base URL raises permissions (the API key and every conversation go there), so nothing is saved until you
        confirm it. In a shell on the machine Rein runs on, run:
      </p>
      <pre className="change-command">
        <code>{waiting.command}</code>
      </pre>
      <p className="muted">Or confirm it in the Rein desktop app. This page goes on by itself once it is confirmed.</p>
    </div>
  );
}

/** Where the key comes from, as a person would say it. */
function keySourceText(source: string | null | undefined): string {
  if (source === 'env') return ' (from ANTHROPIC_API_KEY)';
  if (source === 'keychain') return ' (in the macOS Keychain)';
  if (source === 'libsecret') return ' (in the system keyring)';
  if (source === 'file') return ' (in a file only you can read)';
  return source ? ` (${source})` : '';
}

/** Each macOS privacy permission with its state, a button that asks macOS, and one that opens its System Settings pane. */
export function MacPermissions({
  api,
  desktop,
  settings,
  onRefresh,
}: {
  api: ReinApi;
  desktop?: ReinDesktopApi;
  settings: ReinSettings;
  onRefresh(): void;
}) {
  const [problem, setProblem] = useState<string | undefined>();
  return (
    <section className="settings-section" aria-labelledby="mac-perm-title">
      <h2 id="mac-perm-title">macOS permissions</h2>
      <ul className="perm-list">
        {PERMISSIONS.map((p) => {
          const state = settings.mac_permissions?.[p.id] ?? 'unknown';
          return (
            <li key={p.id}>
              <span>
                <strong>{p.label}</strong> <span className="muted">{p.why}</span>
              </span>
              <span className={`badge ${state === 'authorized' ? 'ok' : 'warn'}`} data-state={state}>
                {STATE_TEXT[state] ?? state}
              </span>
              {desktop && state !== 'authorized' && (
                <button
                  type="button"
                  onClick={() => {
                    setProblem(undefined);
                    desktop
                      .requestMacPermission({ permission: p.id })
                      .then(onRefresh, (e: unknown) => setProblem(errorText(e)));
                  }}
                >
                  Ask macOS
                </button>
              )}
              <button
                type="button"
                onClick={() => {
                  setProblem(undefined);
                  api.openPermissionSettings({ permission: p.id }).catch((e: unknown) => setProblem(errorText(e)));
                }}
              >
                Open System Settings
              </button>
            </li>
          );
        })}
      </ul>
      <button type="button" className="link" onClick={onRefresh}>
        Check again
      </button>
      {problem && (
        <p className="form-error" role="alert">
          {problem}
        </p>
      )}
    </section>
  );
}
