import { describe, expect, it } from 'vitest';
import { DesktopSettings, DesktopSettingsView } from '../../../src-main/core/api/desktopApi.js';
import { apiKeySettings, desktopSettingsView } from '../../../src-main/core/desktop/settingsView.js';
import type { WriteTarget } from '../../../src-main/core/secrets/apiKey.js';
import type { KeyStore } from '../../../src-main/core/secrets/keyStore.js';

const store = (encrypted: boolean): KeyStore =>
  ({
    kind: encrypted ? 'keychain' : 'file',
    where: encrypted ? 'the macOS Keychain' : '/home/me/.rein/secrets/anthropic-api-key',
    encrypted,
  }) as unknown as KeyStore;

describe('the API key as Settings shows it', () => {
  it('shows a hint, never the key, and where it is kept', () => {
    const key = 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz';
    const shown = apiKeySettings({ key, source: 'keychain' }, { store: store(true) }, undefined);
    expect(shown).toEqual({
      present: true,
      source: 'keychain',
      hint: 'sk-ant-…wxyz',
      note: 'Kept in the macOS Keychain, where the CLI and scheduled runs find it too.',
    });
    expect(JSON.stringify(shown)).not.toContain(key);
  });

  it('says a plain-text store is not encrypted, and why, and names a problem', () => {
    const target: WriteTarget = { store: store(false), fallbackReason: 'no Secret Service' };
    expect(apiKeySettings({}, target, 'the old key could not be moved')).toEqual({
      present: false,
      source: null,
      problem: 'the old key could not be moved',
      note: 'Kept in /home/me/.rein/secrets/anthropic-api-key, readable only by you but not encrypted (no system keychain: no Secret Service).',
    });
  });
});

describe('the desktop settings view', () => {
  it('is a valid DesktopSettingsView with the key storage and the login item', () => {
    const view = desktopSettingsView({
      settings: DesktopSettings.parse({}),
      hotkey: { accelerator: '', registered: false, problem: 'turned off' },
      target: { store: store(false), fallbackReason: 'no Secret Service' },
      file: '/home/me/.rein/desktop-settings.json',
      loginItem: { available: false, enabled: false, chosen: false, problem: 'not supported' },
    });
    expect(DesktopSettingsView.parse(view)).toEqual(view);
    expect(view.key_storage).toEqual({
      available: true,
      store: 'file',
      location: '/home/me/.rein/secrets/anthropic-api-key',
      plain_text: true,
      problem: 'no Secret Service',
    });
  });
});
