/**
 * What the desktop window's Settings read: the API key part of ReinSettings (whether there is one, where
 * it is kept, a hint to recognise it by) and the desktop settings view (hotkey, key storage, login item).
 * Pure: the shell gathers the facts (the key found, where a key would be written, the hotkey's status).
 */
import type { DesktopSettings, DesktopSettingsView, HotkeyStatus, LoginItemStatus } from '../api/desktopApi.js';
import type { ReinSettings } from '../api/reinApi.js';
import type { ResolvedKey, WriteTarget } from '../secrets/apiKey.js';
import { keyHint } from '../service/settings.js';

/** The key as Settings shows it; `problem`: why the key could not be moved or read, when one could not. */
export function apiKeySettings(
  found: ResolvedKey,
  target: WriteTarget,
  problem: string | undefined,
): ReinSettings['api_key'] {
  return {
    present: Boolean(found.key),
    source: found.source ?? null,
    ...(found.key ? { hint: keyHint(found.key) } : {}),
    ...(problem ? { problem } : {}),
    note: target.store.encrypted
      ? `Kept in ${target.store.where}, where the CLI and scheduled runs find it too.`
      : `Kept in ${target.store.where}, readable only by you but not encrypted (no system keychain${target.fallbackReason ? `: ${target.fallbackReason}` : ''}).`,
  };
}

export function desktopSettingsView(o: {
  settings: DesktopSettings;
  hotkey: HotkeyStatus;
  target: WriteTarget;
  file: string;
  loginItem: LoginItemStatus;
}): DesktopSettingsView {
  const { target } = o;
  return {
    settings: o.settings,
    hotkey: o.hotkey,
    key_storage: {
      available: true,
      store: target.store.kind,
      location: target.store.where,
      plain_text: !target.store.encrypted,
      ...(target.fallbackReason ? { problem: target.fallbackReason } : {}),
    },
    file: o.file,
    login_item: o.loginItem,
  };
}
