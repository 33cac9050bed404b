/**
 * What only the desktop app has: the global hotkey (and whether it could be registered), the Dock
 * icon, native approval dialogs, notifications, and the stored API key. Shown only when the page runs
 * inside the app (`window.reinDesktop`).
 */
import { useState } from 'react';
import type {
  DesktopSettingsPatch,
  DesktopSettingsView,
  ReinDesktopApi,
} from '../../../../src-main/core/api/desktopApi.js';
import { errorText } from '../../api/apiError.js';
import { useAsync } from '../../util/useAsync.js';

const TOGGLES: {
  key: 'show_dock_icon' | 'approval_dialogs' | 'notifications' | 'open_at_login' | 'auto_update';
  label: string;
  help: string;
}[] = [
  {
    key: 'open_at_login',
    label: 'Open at login',
    help: 'Start Rein in the menu bar when you log in, so heartbeats, folder watchers and schedules handed to the app keep running.',
  },
  {
    key: 'approval_dialogs',
    label: 'Ask with a dialog',
    help: 'When the chat window is not in front, approvals pop up as a system dialog.',
  },
  { key: 'notifications', label: 'Notifications', help: 'For finished background runs and approvals waiting.' },
  { key: 'show_dock_icon', label: 'Dock icon', help: 'Rein lives in the menu bar; show it in the Dock too.' },
  {
    key: 'auto_update',
    label: 'Automatic updates',
    help: 'Download new versions in the background and install them when you quit Rein (signed releases only; "Check for Updates…" in the menu bar checks now).',
  },
];

export function DesktopSettingsSection({ desktop, onKeyRemoved }: { desktop: ReinDesktopApi; onKeyRemoved(): void }) {
  const [loaded, reload] = useAsync(() => desktop.desktopSettings(), [desktop]);
  const [view, setView] = useState<DesktopSettingsView | undefined>();
  const [hotkey, setHotkey] = useState<string | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  const current = view ?? loaded.value;

  if (loaded.status === 'failed' && !current)
    return <p className="settings-note">Desktop settings could not be read: {loaded.error.message}</p>;
  if (!current) return null;

  async function update(patch: DesktopSettingsPatch) {
    setProblem(undefined);
    try {
      setView(await desktop.updateDesktopSettings(patch));
    } catch (e) {
      setProblem(errorText(e));
    }
  }

  const hotkeyText = hotkey ?? current.settings.hotkey;
  return (
    <section className="settings-section" aria-labelledby="desktop-title">
      <h2 id="desktop-title">Desktop</h2>
      <form
        className="field"
        onSubmit={(e) => {
          e.preventDefault();
          void update({ hotkey: hotkeyText.trim() });
        }}
      >
        <label htmlFor="set-hotkey" className="field-label">
          Global hotkey
        </label>
        <div className="inline-form">
          <input
            id="set-hotkey"
            value={hotkeyText}
            placeholder="CommandOrControl+Shift+Space"
            onChange={(e) => setHotkey(e.target.value)}
            aria-describedby="set-hotkey-status"
          />
          <button type="submit" disabled={hotkeyText.trim() === current.settings.hotkey}>
            Set
          </button>
        </div>
        <p id="set-hotkey-status" className={current.hotkey.registered ? 'field-help' : 'field-error'} role="status">
          {current.hotkey.registered
            ? `${current.hotkey.accelerator} opens and hides the chat from any app.`
            : (current.hotkey.problem ?? 'The hotkey is off.')}
        </p>
      </form>
      {TOGGLES.map((t) => (
        <label key={t.key} className="check-row">
          <input
            type="checkbox"
            checked={t.key === 'open_at_login' ? openAtLoginShown(current) : current.settings[t.key] === true}
            disabled={t.key === 'open_at_login' && current.login_item?.available === false}
            onChange={(e) => void update({ [t.key]: e.target.checked })}
          />
          <span>
            {t.label}{' '}
            <span className="muted">{t.key === 'open_at_login' ? openAtLoginHelp(current, t.help) : t.help}</span>
          </span>
        </label>
      ))}
      <div className="field">
        <span className="field-label">API key storage</span>
        <p className="field-help">{keyStorageText(current.key_storage)}</p>
        <button
          type="button"
          className="link danger"
          onClick={() =>
            desktop.clearApiKey().then(
              () => {
                onKeyRemoved();
                reload();
              },
              (e: unknown) => setProblem(errorText(e)),
            )
          }
        >
          Remove the stored API key
        </button>
      </div>
      <p className="field-help">Kept in {current.file}.</p>
      {problem && (
        <p className="form-error" role="alert">
          {problem}
        </p>
      )}
    </section>
  );
}

/** What the system has (the person may have removed the login item in System Settings), else the setting; off until chosen. */
function openAtLoginShown(v: DesktopSettingsView): boolean {
  return v.login_item ? v.login_item.enabled : v.settings.open_at_login === true;
}

function openAtLoginHelp(v: DesktopSettingsView, help: string): string {
  const l = v.login_item;
  if (!l) return help;
  if (l.problem) return `${help} ${l.available ? '' : 'Not available: '}${l.problem}.`;
  return l.chosen ? help : `${help} Off until you choose.`;
}

/** Where a saved key goes, said plainly: a file that is plain text at rest is called that. */
function keyStorageText(k: DesktopSettingsView['key_storage']): string {
  if (!k.available)
    return `Keys cannot be stored here${k.problem ? `: ${k.problem}` : ''}. Set ANTHROPIC_API_KEY instead.`;
  const where = k.location ?? 'the system keychain';
  if (k.plain_text) {
    return `Keys are kept in ${where}: readable only by you, but plain text on disk (as gh and aws keep theirs), because this system has no keychain${k.problem ? ` (${k.problem})` : ''}. Start a Secret Service (GNOME Keyring, KeePassXC) and save the key again to keep it encrypted.`;
  }
  return `Keys are kept encrypted in ${where}; the CLI and scheduled runs use the same key.`;
}
