/**
 * The settings view: `GET /settings`, `PUT /settings`, `POST /settings/test` (shapes in
 * core/api/reinApi.ts). Model, small model, permission mode and base URL live in the global
 * config.yaml (globalConfigEdit.ts); the hotkey lives with the desktop's own settings in desktop.json
 * (core/desktop/desktopSettings.ts, the one place for it). Everything in a request is checked before
 * anything is written, and a change applies to the next run without a restart.
 *
 * The API key is never stored through the daemon's API: on a daemon bound beyond loopback it would cross
 * the network in clear text, and any token holder could replace the key every run sends. It is stored on
 * this machine by `rein auth set-key` or the desktop app's Settings (core/secrets/apiKey.ts), and the
 * daemon's runs read it from there when ANTHROPIC_API_KEY is not set. `POST /settings/test` may still
 * use a key given in its body for that one request, so a key can be tried before it is put anywhere.
 */
import { DesktopSettingsPatch } from '../api/desktopApi.js';
import type { ChangePending, ReinSettings, SaveSettingsInput } from '../api/reinApi.js';
import { paths } from '../config/paths.js';
import { GlobalConfig } from '../config/schema.js';
import { loadDesktopSettings, updateDesktopSettings } from '../config/desktopSettings.js';
import { ReinError, errorMessage, fieldError, isReinError } from '../errors.js';
import { testModelConnection, type ConnectionTestInput, type ConnectionTestResult } from './connectionTest.js';
import { prepareGlobalSettingsEdit, type GlobalSettingsPatch } from './globalConfigEdit.js';
import { permissionRaises } from '../permissions/raises.js';
import { agentPosture } from './agents.js';
import { resolveApiKey } from '../secrets/apiKey.js';
import type { ChangeSource, ProposedChange } from './changeDesk.js';

export interface SettingsDeps {
  home: string;
  env: NodeJS.ProcessEnv;
  /** The global config runs start with now, as the files say; throws `config_invalid` while they do not load. */
  config(): Promise<GlobalConfig>;
  /**
   * For the view: the config as the files say now, or — while they do not load — the last one that
   * did, with the problem (no message runs until it is fixed).
   */
  configState?(): Promise<{ config: GlobalConfig; problem?: ReinError }>;
  /** A saved change: the runs that start from now on use it. */
  setConfig(config: GlobalConfig): void;
  /** A remote change that raises permissions: kept for a person (a shell on the daemon's machine, the desktop app), or refused (changeDesk.ts). */
  confirm(change: ProposedChange): ChangePending;
}

export const API_KEY_NOT_STORED =
  'The daemon does not store API keys sent to it. Set ANTHROPIC_API_KEY where the daemon starts, or run `rein auth set-key` on its machine (or save the key in the desktop app): that keeps it in the system keychain, where the daemon finds it.';

/**
 * Saves the daemon's part of the settings: model, small model, permission mode and base URL in
 * config.yaml, the hotkey in desktop.json. The API key is refused (see API_KEY_NOT_STORED); the desktop
 * app stores it itself before it calls this with the rest.
 */
export async function saveSettings(
  deps: SettingsDeps,
  body: SaveSettingsInput,
  from: ChangeSource,
): Promise<ReinSettings | ChangePending> {
  if (body.api_key !== undefined) throw fieldError('api_key_not_stored', API_KEY_NOT_STORED, 'api_key');
  // A more permissive mode for every agent that sets none is a person's decision (docs/permissions.md, Threat model).
  // So is another server for the API key and every conversation (base_url).
  if (from === 'remote' && (body.permission_mode !== undefined || typeof body.base_url === 'string')) {
    const current = await deps.config();
    const next: GlobalConfig = {
      ...current,
      ...(typeof body.base_url === 'string' ? { base_url: body.base_url } : {}),
      permissions: {
        ...current.permissions,
        ...(body.permission_mode !== undefined ? { mode: body.permission_mode } : {}),
      },
    };
    const raises = permissionRaises(agentPosture(current, {}), agentPosture(next, {}));
    if (raises.length > 0) {
      if (body.hotkey !== undefined) {
        const parsed = DesktopSettingsPatch.safeParse({ hotkey: body.hotkey ?? '' });
        if (!parsed.success)
          throw fieldError('invalid_request', `hotkey: ${parsed.error.issues[0]?.message ?? 'invalid'}`, 'hotkey');
      }
      return deps.confirm({
        kind: 'save_settings',
        raises,
        request: body,
        apply: () => saveSettings(deps, body, 'person'),
      });
    }
  }

  // Check every part first.
  let hotkeyPatch: DesktopSettingsPatch | undefined;
  if (body.hotkey !== undefined) {
    const parsed = DesktopSettingsPatch.safeParse({ hotkey: body.hotkey ?? '' });
    if (!parsed.success)
      throw fieldError('invalid_request', `hotkey: ${parsed.error.issues[0]?.message ?? 'invalid'}`, 'hotkey');
    await desktopSettingsOrRefuse(deps.home);
    hotkeyPatch = parsed.data;
  }
  const patch: GlobalSettingsPatch = {};
  if (body.model !== undefined) patch.model = body.model;
  if (body.small_model !== undefined) patch.small_model = body.small_model;
  if (body.permission_mode !== undefined) patch.permission_mode = body.permission_mode;
  if (body.base_url !== undefined) patch.base_url = body.base_url;
  const configEdit = Object.keys(patch).length > 0 ? await prepareGlobalSettingsEdit(deps.home, patch) : undefined;

  // Then write: config.yaml, then desktop.json; if the second fails the first is put back.
  const written = configEdit ? await configEdit.commit() : undefined;
  if (hotkeyPatch) {
    try {
      await updateDesktopSettings(deps.home, hotkeyPatch);
    } catch (e) {
      if (configEdit && written) await configEdit.restore(written.previous).catch(() => undefined);
      throw new ReinError(
        'settings_write_failed',
        `could not save the hotkey (nothing was changed): ${errorMessage(e)}`,
      );
    }
  }
  if (configEdit) await applyToRunningConfig(deps, patch);
  return settingsView(deps);
}

export async function testConnection(deps: SettingsDeps, body: ConnectionTestInput): Promise<ConnectionTestResult> {
  return testModelConnection(body, { env: deps.env, config: await deps.config(), home: deps.home });
}

/** The next runs use the new values; the runs in flight keep the ones they started with. */
async function applyToRunningConfig(deps: SettingsDeps, patch: GlobalSettingsPatch): Promise<void> {
  let current: GlobalConfig;
  try {
    current = await deps.config();
  } catch (e) {
    // The files do not load as a whole (the project overlay is broken): the view says so, and no run starts.
    if (isReinError(e, 'config_invalid')) return;
    throw e;
  }
  const next: GlobalConfig = {
    ...current,
    ...(patch.model !== undefined ? { model: patch.model } : {}),
    ...(patch.small_model !== undefined ? { small_model: patch.small_model } : {}),
    permissions: {
      ...current.permissions,
      ...(patch.permission_mode !== undefined ? { mode: patch.permission_mode } : {}),
    },
  };
  if (patch.base_url === null) delete next.base_url;
  else if (patch.base_url !== undefined) next.base_url = patch.base_url;
  deps.setConfig(GlobalConfig.parse(next));
}

async function desktopSettingsOrRefuse(home: string) {
  try {
    return await loadDesktopSettings(home);
  } catch (e) {
    throw new ReinError('config_invalid', `${errorMessage(e)} (fix or remove the file; nothing was written)`);
  }
}

/** The settings view as the daemon knows it (the desktop app lays its own part over it). */
export async function settingsView(deps: SettingsDeps): Promise<ReinSettings> {
  const found = await resolveApiKey(deps.env, deps.home);
  const key = found.key;
  let hotkey: string | null = null;
  let hotkeyProblem: string | undefined;
  try {
    const desktop = await loadDesktopSettings(deps.home);
    hotkey = desktop.hotkey === '' ? null : desktop.hotkey;
  } catch (e) {
    hotkeyProblem = errorMessage(e);
  }
  const { config: c, problem } = deps.configState
    ? await deps.configState()
    : { config: await deps.config(), problem: undefined };
  return {
    platform: process.platform,
    api_key: {
      present: key !== undefined,
      source: found.source ?? null,
      ...(key !== undefined ? { hint: keyHint(key) } : {}),
      writable: false,
      note: API_KEY_NOT_STORED,
    },
    base_url: c.base_url ?? null,
    model: c.model,
    small_model: c.small_model,
    permission_mode: c.permissions.mode,
    hotkey,
    ...(hotkeyProblem ? { hotkey_problem: hotkeyProblem } : {}),
    models: suggestedModels(c),
    config_file: paths.globalConfig(deps.home),
    ...(problem ? { config_problem: configProblem(problem) } : {}),
  };
}

/** What the view says about a config that does not load: the message, and the first problem's place. */
function configProblem(e: ReinError): NonNullable<ReinSettings['config_problem']> {
  const d = e.details ?? {};
  return {
    code: e.code,
    message: e.message,
    ...(typeof d.file === 'string' ? { file: d.file } : {}),
    ...(typeof d.line === 'number' ? { line: d.line } : {}),
    ...(typeof d.field === 'string' ? { field: d.field } : {}),
  };
}

/** Enough of a key to recognise it by, never enough to use it. */
export function keyHint(key: string): string {
  return key.length > 16 ? `${key.slice(0, 7)}…${key.slice(-4)}` : `…${key.slice(-2)}`;
}

function suggestedModels(c: GlobalConfig): string[] {
  const defaults = GlobalConfig.parse({});
  return [...new Set([c.model, c.small_model, defaults.model, defaults.small_model, ...Object.keys(c.prices)])];
}
