/**
 * The desktop app's part of the first launch, under the connection step: whether Rein starts at login
 * (asked, never assumed: off until the person answers, and applied only then), and on macOS the privacy
 * permissions its GUI tools need, each with its state and the right System Settings pane. Shown only
 * inside the app (`window.reinDesktop`).
 */
import { useState } from 'react';
import type { ReinApi, ReinSettings } from '../../../../src-main/core/api/index.js';
import type { ReinDesktopApi } from '../../../../src-main/core/api/desktopApi.js';
import { errorText } from '../../api/apiError.js';
import { useAsync } from '../../util/useAsync.js';
import { MacPermissions } from './SettingsView.js';

export function FirstLaunchSteps({
  api,
  desktop,
  settings,
  onRefresh,
}: {
  api: ReinApi;
  desktop: ReinDesktopApi;
  settings: ReinSettings;
  onRefresh(): void;
}) {
  const [loaded, reload] = useAsync(() => desktop.desktopSettings(), [desktop]);
  const [problem, setProblem] = useState<string | undefined>();
  const [answered, setAnswered] = useState<boolean | undefined>();
  const login = loaded.value?.login_item;

  async function choose(openAtLogin: boolean) {
    setProblem(undefined);
    try {
      const view = await desktop.updateDesktopSettings({ open_at_login: openAtLogin });
      if (view.login_item?.problem) setProblem(view.login_item.problem);
      setAnswered(openAtLogin);
      reload();
    } catch (e) {
      setProblem(errorText(e));
    }
  }

  return (
    <>
      {login?.available && (!login.chosen || answered !== undefined) && (
        <section className="settings-section" aria-labelledby="login-step-title">
          <h2 id="login-step-title">Start Rein when you log in?</h2>
          <p className="muted">
            Rein then waits in the menu bar, without opening its window, so heartbeats, folder watchers and schedules
            handed to the app keep running. You can change this in Settings.
          </p>
          {answered === undefined ? (
            <div className="form-actions">
              <button type="button" className="primary" onClick={() => void choose(true)}>
                Open at login
              </button>
              <button type="button" onClick={() => void choose(false)}>
                Not now
              </button>
            </div>
          ) : (
            <p className="form-ok" role="status">
              {answered ? 'Rein will start when you log in.' : 'Rein will not start at login.'}
            </p>
          )}
          {problem && (
            <p className="form-error" role="alert">
              {problem}
            </p>
          )}
        </section>
      )}
      {settings.platform === 'darwin' && (
        <MacPermissions api={api} desktop={desktop} settings={settings} onRefresh={onRefresh} />
      )}
    </>
  );
}
