/**
 * The folders a person trusts, in `$REIN_HOME/trusted-folders.json`: each folder's real path with the
 * sha256 of the `.rein/config.yaml` they saw when they said yes (config/folderTrust.ts). An overlay whose
 * bytes changed since is not trusted any more, so a repository cannot slip a hook in after the fact.
 *
 * The file is Rein's own (written atomically, 0600, under a lock so two `rein trust` calls do not lose
 * each other's entry). A damaged file means "nothing is trusted" and one warning, never a crash: the
 * overlays' raising settings are then ignored until the person trusts their folders again.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { errorMessage } from '../errors.js';
import { atomicWriteFile } from '../util/atomicWrite.js';
import { withFileLock } from '../util/fileLock.js';
import { realpathLoose } from '../util/realpath.js';
import { describeIssues } from '../util/zodIssues.js';
import type { OverlayCandidate } from './load.js';
import { paths } from './paths.js';

const TrustEntry = z.strictObject({
  /** sha256 (hex) of the overlay's bytes when the person trusted it. */
  sha256: z.string().regex(/^[0-9a-f]{64}$/, 'a sha256 in hex'),
  trusted_at: z.string(),
});

const TrustFile = z.strictObject({
  version: z.literal(1),
  folders: z.record(
    z.string().refine((p) => isAbsolute(p), 'an absolute folder path'),
    TrustEntry,
  ),
});
type TrustFile = z.infer<typeof TrustFile>;

export interface TrustedFolder {
  folder: string;
  sha256: string;
  trusted_at: string;
}

/** The key a folder is remembered by: its real path (a symlink to a trusted folder is that folder). */
export function trustKey(folder: string): string {
  return realpathLoose(resolve(folder));
}

/** What the trust file says, as loaded once; `decide` answers loadConfig's question (`trust:` option). */
export class TrustedFolders {
  readonly #entries: ReadonlyMap<string, TrustedFolder>;

  private constructor(entries: Map<string, TrustedFolder>) {
    this.#entries = entries;
  }

  /** Reads the trust file; absent is "nothing trusted", damaged too (with a warning). */
  static async load(home: string, warn?: (message: string) => void): Promise<TrustedFolders> {
    return new TrustedFolders(await readEntries(home, warn));
  }

  static empty(): TrustedFolders {
    return new TrustedFolders(new Map());
  }

  isTrusted(folder: string, sha256: string): boolean {
    return this.#entries.get(trustKey(folder))?.sha256 === sha256;
  }

  decide(overlay: Pick<OverlayCandidate, 'folder' | 'hash'>): boolean {
    return this.isTrusted(overlay.folder, overlay.hash);
  }

  get(folder: string): TrustedFolder | undefined {
    return this.#entries.get(trustKey(folder));
  }

  list(): TrustedFolder[] {
    return [...this.#entries.values()].sort((a, b) => a.folder.localeCompare(b.folder));
  }
}

/** Remembers that the person trusts `folder`'s overlay with these bytes (replacing an older hash). */
export async function trustFolder(
  home: string,
  folder: string,
  sha256: string,
  warn?: (message: string) => void,
): Promise<TrustedFolder> {
  const key = trustKey(folder);
  const entry: TrustedFolder = { folder: key, sha256, trusted_at: new Date().toISOString() };
  await update(home, warn, (entries) => void entries.set(key, entry));
  return entry;
}

/** Forgets `folder`; false when it was not trusted. */
export async function revokeFolder(home: string, folder: string, warn?: (message: string) => void): Promise<boolean> {
  const key = trustKey(folder);
  let removed = false;
  await update(home, warn, (entries) => void (removed = entries.delete(key)));
  return removed;
}

async function update(
  home: string,
  warn: ((message: string) => void) | undefined,
  change: (entries: Map<string, TrustedFolder>) => void,
): Promise<void> {
  const file = paths.trustedFolders(home);
  await mkdir(home, { recursive: true, mode: 0o700 });
  await withFileLock(file, async () => {
    const entries = await readEntries(home, warn);
    change(entries);
    const out: TrustFile = { version: 1, folders: {} };
    for (const [folder, e] of [...entries].sort(([a], [b]) => a.localeCompare(b))) {
      Object.defineProperty(out.folders, folder, {
        value: { sha256: e.sha256, trusted_at: e.trusted_at },
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    await atomicWriteFile(file, `${JSON.stringify(out, null, 2)}\n`, { mode: 0o600 });
  });
}

async function readEntries(home: string, warn?: (message: string) => void): Promise<Map<string, TrustedFolder>> {
  const file = paths.trustedFolders(home);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR')
      warn?.(`${file}: cannot read (${errorMessage(e)}); no folder is trusted`);
    return new Map();
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    warn?.(`${file}: not valid JSON (${errorMessage(e)}); no folder is trusted until it is fixed or removed`);
    return new Map();
  }
  const parsed = TrustFile.safeParse(raw);
  if (!parsed.success) {
    const first = describeIssues(parsed.error.issues, raw)[0];
    warn?.(
      `${file}: ${first ? `${first.field}: ${first.message}` : 'not a trust file'}; no folder is trusted until it is fixed or removed`,
    );
    return new Map();
  }
  const out = new Map<string, TrustedFolder>();
  for (const [folder, e] of Object.entries(parsed.data.folders)) out.set(folder, { folder, ...e });
  return out;
}
