/**
 * The token of `rein mcp serve --http`: 32 random bytes as hex in `$REIN_HOME/secrets/mcp-serve.token`
 * (0600, in a 0700 folder), made on first use and kept across restarts, so an MCP client configured
 * with the URL once keeps working. `--new-token` replaces it. The secrets folder is one of Rein's own
 * secrets: no tool may read it (core/secrets/reinSecrets.ts).
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { atomicWriteFile } from '../util/atomicWrite.js';
import { REIN_SECRETS_DIR } from '../secrets/reinSecrets.js';

export const mcpServeTokenFile = (home: string): string => join(home, REIN_SECRETS_DIR, 'mcp-serve.token');

const TOKEN_RE = /^[0-9a-f]{64}$/;

/** The kept token, or a new one written there (also when the file is damaged, or when `renew`). */
export async function mcpServeToken(home: string, opts: { renew?: boolean } = {}): Promise<string> {
  const file = mcpServeTokenFile(home);
  if (!opts.renew) {
    try {
      const t = (await readFile(file, 'utf8')).trim();
      if (TOKEN_RE.test(t)) return t;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
  }
  const token = randomBytes(32).toString('hex');
  await mkdir(join(home, REIN_SECRETS_DIR), { recursive: true, mode: 0o700 });
  await atomicWriteFile(file, `${token}\n`, { mode: 0o600 });
  return token;
}
