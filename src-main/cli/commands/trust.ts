/**
 * `rein trust [FOLDER] [--yes]`, `rein trust --list [--json]`, `rein trust --revoke [FOLDER]`: the
 * folders whose project overlay (`.rein/config.yaml`) may run programs, widen permissions or send the
 * API key elsewhere (core/config/folderTrust.ts). Trusting shows what the overlay sets and asks; `--yes`
 * trusts without asking (a person typed it). Exit codes: 0 done, 1 not done (no overlay, answered no, no
 * terminal to ask on), 2 bad usage or a config file that does not load.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { printable, shellWord } from '../../core/config/folderTrust.js';
import { inspectOverlay } from '../../core/config/load.js';
import { reinHome } from '../../core/config/paths.js';
import { revokeFolder, trustFolder, trustKey, TrustedFolders } from '../../core/config/trustedFolders.js';
import { isReinError } from '../../core/errors.js';
import { askTrust, describeOverlay } from '../folderTrust.js';
import { UsageError, type CliIo } from '../io.js';

export const TRUST_HELP = `rein trust — the folders whose .rein/config.yaml may do more than the global config

Usage:
  rein trust [FOLDER] [--yes]    show what FOLDER's .rein/config.yaml sets and trust it (default: this folder)
  rein trust --list [--json]     the trusted folders, and whether their overlay changed since
  rein trust --revoke [FOLDER]   trust FOLDER no more

A project overlay's hooks, MCP servers, base_url, cloud settings and wider permissions apply only in a
folder you trust, for the file exactly as you saw it: when it changes, Rein asks again. The rest of the
overlay (model, a stricter mode, more denied commands…) applies without asking. Trust is kept in
$REIN_HOME/trusted-folders.json.
`;

export async function trustCommand(argv: string[], io: CliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        list: { type: 'boolean' },
        revoke: { type: 'boolean' },
        yes: { type: 'boolean', short: 'y' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout.write(TRUST_HELP);
    return 0;
  }
  if (values.list && values.revoke) throw new UsageError('trust: --list and --revoke cannot be used together');
  if (positionals.length > 1) throw new UsageError('trust: one FOLDER at most');
  if (values.list && positionals.length > 0) throw new UsageError('trust --list takes no FOLDER');
  if (values.json && !values.list) throw new UsageError('trust: --json goes with --list');
  if (values.yes && (values.list || values.revoke)) throw new UsageError('trust: --yes goes with trusting a folder');
  const home = reinHome(io.env);
  const warn = (m: string) => void io.stderr.write(`rein: ${m}\n`);
  const folder = resolve(io.cwd, positionals[0] ?? '.');

  if (values.list) return list(home, io, values.json ?? false, warn);
  if (values.revoke) {
    const removed = await revokeFolder(home, folder, warn);
    if (!removed) {
      io.stderr.write(`rein: ${printable(trustKey(folder))} was not trusted\n`);
      return 1;
    }
    io.stdout.write(
      `${printable(trustKey(folder))} is no longer trusted: its overlay's raising settings are left out from now on\n`,
    );
    return 0;
  }

  let overlay;
  try {
    overlay = await inspectOverlay({ home, cwd: folder });
  } catch (err) {
    if (isReinError(err)) {
      io.stderr.write(`rein: ${err.message}\n`);
      return err.code === 'config_invalid' ? 2 : 1;
    }
    throw err;
  }
  if (!overlay) {
    io.stderr.write(`rein: ${printable(folder)} has no .rein/config.yaml: there is nothing to trust\n`);
    return 1;
  }
  if (overlay.settings.length === 0) {
    io.stdout.write(`${printable(overlay.file)} sets nothing that needs trust: it applies as it is\n`);
    return 0;
  }
  if ((await TrustedFolders.load(home, warn)).decide(overlay)) {
    io.stdout.write(`${printable(overlay.folder)} is already trusted for this ${printable(overlay.file)}\n`);
    return 0;
  }
  if (!values.yes) {
    if (!io.stdin.isTTY) {
      io.stdout.write(describeOverlay(overlay));
      io.stderr.write(
        `rein: no terminal to ask on: run \`rein trust ${shellWord(overlay.folder)} --yes\` to trust it\n`,
      );
      return 1;
    }
    const answer = await askTrust({ input: io.stdin, output: io.stdout }, overlay);
    if (answer !== 'yes') {
      io.stderr.write(`rein: not trusted: ${printable(overlay.file)}'s raising settings stay left out\n`);
      return answer === 'interrupted' ? 130 : 1;
    }
  } else {
    io.stdout.write(describeOverlay(overlay));
  }
  await trustFolder(home, overlay.folder, overlay.hash, warn);
  io.stdout.write(`Trusted ${printable(overlay.folder)} (until ${printable(overlay.file)} changes)\n`);
  return 0;
}

async function list(home: string, io: CliIo, json: boolean, warn: (m: string) => void): Promise<number> {
  const entries = (await TrustedFolders.load(home, warn)).list();
  const rows = await Promise.all(
    entries.map(async (e) => {
      let state: 'trusted' | 'changed' | 'no_overlay' | 'invalid';
      try {
        const now = await inspectOverlay({ home, cwd: e.folder });
        state = !now ? 'no_overlay' : now.hash === e.sha256 ? 'trusted' : 'changed';
      } catch {
        state = 'invalid';
      }
      return { ...e, state };
    }),
  );
  if (json) {
    io.stdout.write(`${JSON.stringify({ folders: rows })}\n`);
    return 0;
  }
  if (rows.length === 0) {
    io.stdout.write('No folder is trusted.\n');
    return 0;
  }
  const says: Record<(typeof rows)[number]['state'], string> = {
    trusted: 'trusted',
    changed: 'changed since: asks again',
    no_overlay: 'no .rein/config.yaml now',
    invalid: '.rein/config.yaml does not load',
  };
  for (const r of rows) io.stdout.write(`${printable(r.folder)}  ${r.trusted_at.slice(0, 10)}  ${says[r.state]}\n`);
  return 0;
}
