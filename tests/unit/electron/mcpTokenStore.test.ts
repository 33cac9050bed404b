/**
 * MCP sign-ins in the desktop app's key store: sealed with safeStorage (Electron mocked), 0600 in a
 * 0700 folder, never readable as text; a `rein mcp login` entry picked up and moved into the sealed
 * file; an entry the keychain cannot open counted as none; and without keychain encryption the plain
 * files, said in the log. The desktop app hands this store, and its browser opener, to its daemon.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('electron', () => import('../../support/electronMock.js'));

import { resetElectronMock, safeStorage, shell } from '../../support/electronMock.js';
import {
  desktopMcpTokenStores,
  NO_TOKEN_ENCRYPTION_MESSAGE,
  sealedOAuthFile,
  sealedTokenStore,
} from '../../../src-main/core/desktop/mcpTokenStore.js';
import type { DaemonOptions } from '../../../src-main/core/daemon/daemon.js';
import { fileTokenStore, oauthDir, oauthFile, type StoredOAuth } from '../../../src-main/core/mcpClient/oauth.js';
import { McpManager } from '../../../src-main/core/mcpClient/manager.js';
import { startDesktopApp } from '../../../src-main/electron/desktopApp.js';
import { safeStorageCipher } from '../../../src-main/electron/keychain.js';

const entry = (token: string, savedAt: string): StoredOAuth => ({
  version: 1,
  server_url: 'https://wiki.example.com/mcp',
  client: { client_id: 'rein-client' },
  tokens: { access_token: token, token_type: 'bearer', refresh_token: `rt-${token}` },
  saved_at: savedAt,
});

let home: string;
beforeEach(async () => {
  resetElectronMock();
  home = await mkdtemp(join(tmpdir(), 'rein-mcp-tokens-'));
});

describe('the desktop MCP token store (safeStorage)', () => {
  it('seals the entry with safeStorage into a 0600 file in a 0700 folder, and reads it back', async () => {
    const store = sealedTokenStore(home, 'wiki', safeStorageCipher('darwin'));
    expect(store.exists?.()).toBe(false);
    await expect(store.read()).resolves.toBeUndefined();
    await store.write(entry('at-secret-1', '2026-01-01T00:00:00.000Z'));

    expect(safeStorage.encryptStringAsync).toHaveBeenCalledTimes(1);
    const file = sealedOAuthFile(home, 'wiki');
    expect(file).toBe(join(home, 'secrets', 'mcp-oauth', 'wiki.enc'));
    const raw = await readFile(file, 'utf8');
    expect(raw).not.toContain('at-secret-1');
    expect(raw).not.toContain('rein-client');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(oauthDir(home))).mode & 0o777).toBe(0o700);
    expect((await stat(join(home, 'secrets'))).mode & 0o777).toBe(0o700);
    expect(existsSync(oauthFile(home, 'wiki'))).toBe(false);
    expect(store.exists?.()).toBe(true);
    await expect(store.read()).resolves.toEqual(entry('at-secret-1', '2026-01-01T00:00:00.000Z'));
    expect(store.where).toContain('wiki.enc');

    await store.remove();
    expect(existsSync(file)).toBe(false);
    await expect(store.read()).resolves.toBeUndefined();
  });

  it("picks up a sign-in made with `rein mcp login`, keeps the CLI's copy current, and takes a newer CLI sign-in over an older sealed one", async () => {
    const cli = fileTokenStore(home, 'wiki');
    await cli.write(entry('from-cli', '2026-01-01T00:00:00.000Z'));
    const store = sealedTokenStore(home, 'wiki', safeStorageCipher('darwin'));
    expect(store.exists?.()).toBe(true);
    await expect(store.read()).resolves.toMatchObject({ tokens: { access_token: 'from-cli' } });

    // The app refreshes the tokens: saved sealed, and the CLI's own file gets them too (a rotated
    // refresh token would leave the terminal with dead ones otherwise).
    await store.write(entry('refreshed', '2026-01-02T00:00:00.000Z'));
    await expect(store.read()).resolves.toMatchObject({ tokens: { access_token: 'refreshed' } });
    await expect(cli.read()).resolves.toMatchObject({ tokens: { access_token: 'refreshed' } });

    // Someone signs in again from the terminal: the newer entry wins.
    await cli.write(entry('cli-again', '2026-01-03T00:00:00.000Z'));
    await expect(store.read()).resolves.toMatchObject({ tokens: { access_token: 'cli-again' } });
    await cli.write(entry('cli-older', '2025-12-31T00:00:00.000Z'));
    await expect(store.read()).resolves.toMatchObject({ tokens: { access_token: 'refreshed' } });
  });

  it('never makes a plain copy when the CLI has none', async () => {
    await sealedTokenStore(home, 'docs', safeStorageCipher('darwin')).write(
      entry('app-only', '2026-01-01T00:00:00.000Z'),
    );
    expect(existsSync(sealedOAuthFile(home, 'docs'))).toBe(true);
    expect(existsSync(oauthFile(home, 'docs'))).toBe(false);
  });

  it('counts an entry the keychain cannot open as none, and says so', async () => {
    const warn = vi.fn();
    await sealedTokenStore(home, 'wiki', safeStorageCipher('darwin')).write(entry('x', '2026-01-01T00:00:00.000Z'));
    await writeFile(sealedOAuthFile(home, 'wiki'), 'not sealed by this keychain');
    await expect(sealedTokenStore(home, 'wiki', safeStorageCipher('darwin'), warn).read()).resolves.toBeUndefined();
    expect(warn).toHaveBeenCalledWith(
      expect.stringMatching(/wiki\.enc cannot be opened with this user's keychain .*sign in to MCP server wiki again/),
    );
  });

  it('is chosen when the keychain encrypts; otherwise the plain 0600 files, said in the log', async () => {
    const warn = vi.fn();
    const sealed = await desktopMcpTokenStores(safeStorageCipher('darwin'), warn);
    expect(sealed.encrypted).toBe(true);
    await sealed.stores(home, 'wiki').write(entry('a', '2026-01-01T00:00:00.000Z'));
    expect(existsSync(sealedOAuthFile(home, 'wiki'))).toBe(true);
    expect(warn).not.toHaveBeenCalled();

    safeStorage.backend = 'basic_text';
    const plain = await desktopMcpTokenStores(safeStorageCipher('linux'), warn);
    expect(plain.encrypted).toBe(false);
    expect(warn).toHaveBeenCalledWith(NO_TOKEN_ENCRYPTION_MESSAGE);
    await plain.stores(home, 'docs').write(entry('b', '2026-01-01T00:00:00.000Z'));
    expect((await stat(oauthFile(home, 'docs'))).mode & 0o777).toBe(0o600);
    expect(existsSync(sealedOAuthFile(home, 'docs'))).toBe(false);

    safeStorage.available = false;
    expect((await desktopMcpTokenStores(safeStorageCipher('darwin'), warn)).encrypted).toBe(false);
  });

  it('makes a server signed in for the manager that uses it', async () => {
    const stores = (await desktopMcpTokenStores(safeStorageCipher('darwin'), () => undefined)).stores;
    const servers = {
      wiki: { type: 'http' as const, url: 'https://wiki.example.com/mcp', args: [], env: {}, disabled: false },
    };
    const manager = () => new McpManager({ servers, env: {}, home, tokenStore: (s) => stores(home, s) });
    const before = manager();
    expect(before.status()[0]).toMatchObject({ name: 'wiki', signed_in: false });
    await before.dispose();
    await stores(home, 'wiki').write(entry('a', '2026-01-01T00:00:00.000Z'));
    const after = manager();
    expect(after.status()[0]).toMatchObject({ name: 'wiki', signed_in: true });
    await after.dispose();
  });

  it('is what the desktop app gives its daemon, with shell.openExternal for sign-in pages (web pages only)', async () => {
    let given: DaemonOptions | undefined;
    await expect(
      startDesktopApp({
        home,
        version: '9.9.9',
        headless: true,
        pageUrl: 'file:///app/out/renderer/index.html',
        rendererDir: '/app/out/renderer',
        preloadPath: '/app/out/preload/index.cjs',
        trayIconDir: '/app/resources/tray',
        isQuitting: () => false,
        quit: vi.fn(),
        env: {},
        platform: 'darwin',
        warn: () => undefined,
        cipher: safeStorageCipher('darwin'),
        startDaemon: async (o) => {
          given = o;
          throw new Error('no daemon in this test');
        },
      }),
    ).rejects.toThrow(/no daemon in this test/);
    await given!.mcpTokenStores!(home, 'wiki').write(entry('via-app', '2026-01-01T00:00:00.000Z'));
    expect(existsSync(sealedOAuthFile(home, 'wiki'))).toBe(true);
    expect(existsSync(oauthFile(home, 'wiki'))).toBe(false);

    await given!.openUrl!(new URL('https://auth.example.com/authorize?client_id=x'));
    expect(shell.openExternal).toHaveBeenCalledWith('https://auth.example.com/authorize?client_id=x');
    expect(() => given!.openUrl!(new URL('file:///etc/passwd'))).toThrow(/not a web page/);
    expect(shell.openExternal).toHaveBeenCalledTimes(1);
  });
});
