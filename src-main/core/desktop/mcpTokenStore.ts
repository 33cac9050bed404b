/**
 * MCP servers' OAuth sign-ins in the desktop app: sealed by the system keychain (Electron's
 * safeStorage behind the StringCipher the API key store uses too) and kept in
 * `<REIN_HOME>/secrets/mcp-oauth/<server>.enc`, 0600 in a 0700 folder, written atomically. The CLI,
 * which has no keychain, keeps the same entry as plain JSON beside it (`<server>.json`, core/mcpClient/oauth.ts).
 *
 * A sign-in made with `rein mcp login` is picked up: the newer of the two entries is read. A save writes
 * the sealed file, and updates the CLI's plain file too when there is one — the person chose to sign in
 * from the terminal, which keeps plain files, and a refresh that rotated the tokens would otherwise
 * leave the CLI with dead ones. No plain file is ever made here. An entry the keychain cannot open
 * (another user's, a damaged file) counts as none: the next sign-in writes a new one.
 *
 * When the system offers no real encryption (see keychain.ts: none at all, or Linux's basic_text),
 * the app keeps the plain files as the CLI does, and says so in its log.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { errorMessage } from '../errors.js';
import {
  fileTokenStore,
  oauthDir,
  oauthFile,
  oauthFileName,
  type StoredOAuth,
  type TokenStore,
} from '../mcpClient/oauth.js';
import { atomicWriteFile } from '../util/atomicWrite.js';
import type { StringCipher } from './apiKeyStore.js';

export const sealedOAuthFile = (home: string, server: string): string =>
  join(oauthDir(home), oauthFileName(server).replace(/\.json$/, '.enc'));

export const NO_TOKEN_ENCRYPTION_MESSAGE =
  'this system offers no keychain encryption, so MCP sign-ins are kept as plain 0600 files in secrets/mcp-oauth/ (as the CLI keeps them)';

const isEntry = (v: unknown): v is StoredOAuth =>
  !!v && typeof v === 'object' && (v as StoredOAuth).version === 1 && typeof (v as StoredOAuth).server_url === 'string';

export function sealedTokenStore(
  home: string,
  server: string,
  cipher: StringCipher,
  warn: (message: string) => void = () => undefined,
): TokenStore {
  const file = sealedOAuthFile(home, server);
  const plain = fileTokenStore(home, server);

  async function readSealed(): Promise<StoredOAuth | undefined> {
    let sealed: Buffer;
    try {
      sealed = await readFile(file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw e;
    }
    try {
      const v: unknown = JSON.parse(await cipher.decrypt(sealed));
      return isEntry(v) ? v : undefined;
    } catch (e) {
      warn(
        `${file} cannot be opened with this user's keychain (${errorMessage(e)}); sign in to MCP server ${server} again`,
      );
      return undefined;
    }
  }

  return {
    where: `${file} (sealed by the system keychain)`,
    async read() {
      const [sealed, fromCli] = await Promise.all([readSealed(), plain.read().catch(() => undefined)]);
      if (!sealed || !fromCli) return sealed ?? fromCli;
      return (fromCli.saved_at ?? '') > (sealed.saved_at ?? '') ? fromCli : sealed;
    },
    async write(value) {
      const sealed = await cipher.encrypt(JSON.stringify(value));
      await mkdir(join(home, 'secrets'), { recursive: true, mode: 0o700 });
      await mkdir(oauthDir(home), { recursive: true, mode: 0o700 });
      await atomicWriteFile(file, sealed, { mode: 0o600, followSymlinks: false });
      if (existsSync(oauthFile(home, server))) await plain.write(value);
    },
    async remove() {
      await Promise.all([rm(file, { force: true }), plain.remove()]);
    },
    exists: () => existsSync(file) || existsSync(oauthFile(home, server)),
  };
}

/**
 * The app's MCP token stores, chosen once at start: sealed when the keychain can encrypt, else the
 * plain files (said in the log).
 */
export async function desktopMcpTokenStores(
  cipher: StringCipher,
  warn: (message: string) => void,
): Promise<{ encrypted: boolean; stores: (home: string, server: string) => TokenStore }> {
  let encrypted = false;
  try {
    encrypted = await cipher.canEncrypt();
  } catch (e) {
    warn(`the keychain cannot be asked whether it encrypts (${errorMessage(e)})`);
  }
  if (!encrypted) {
    warn(NO_TOKEN_ENCRYPTION_MESSAGE);
    return { encrypted, stores: (home, server) => fileTokenStore(home, server) };
  }
  return { encrypted, stores: (home, server) => sealedTokenStore(home, server, cipher, warn) };
}
