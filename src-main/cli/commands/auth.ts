/**
 * `rein auth set-key | status [--json] | remove`: the API key every run uses when ANTHROPIC_API_KEY is not
 * set — the CLI, the daemon, the app and launchd jobs, which start without the shell's environment. The
 * key goes to the system's secret store (core/secrets/apiKey.ts): the macOS Keychain, the Secret Service
 * on Linux, else REIN_HOME/secrets/anthropic-api-key (0600, plain text at rest).
 *
 * The key is read from stdin, never from the arguments (which `ps` shows), and never printed.
 * `status --json` prints exactly `{"stored": bool, "store": "keychain"|"libsecret"|"file"|null, "env": bool}`.
 * Exit codes: 0 done, 1 the store could not be read or changed, 2 bad usage (or a key that cannot be one).
 */
import { parseArgs } from 'node:util';
import { reinHome } from '../../core/config/paths.js';
import { errorMessage, isReinError } from '../../core/errors.js';
import { apiKeyStatus, checkApiKey, removeStoredApiKey, storeApiKey, storeName } from '../../core/secrets/apiKey.js';
import { UsageError, type CliIo } from '../io.js';

export const AUTH_HELP = `Usage:
  rein auth set-key        read the API key from stdin and store it (a terminal asks for it, hidden)
  rein auth status [--json]   is a key stored, where, and is ANTHROPIC_API_KEY set here
  rein auth remove         remove the stored key (from every store that holds one)

The stored key is what every run uses when ANTHROPIC_API_KEY is not set: \`rein run\`, the daemon, the
desktop app and schedules started by launchd, which do not see your shell's environment. It is kept in
the macOS Keychain; on Linux in the Secret Service (GNOME Keyring, KeePassXC…) when one is running,
else in $REIN_HOME/secrets/anthropic-api-key (readable only by you, but plain text on disk).

  printenv ANTHROPIC_API_KEY | rein auth set-key
  rein auth set-key < key.txt

status --json: {"stored": true|false, "store": "keychain"|"libsecret"|"file"|null, "env": true|false}
Exit code: 0 done, 1 the store could not be read or changed, 2 bad usage.
`;

/** More than any key: stdin past this is not a key. */
const MAX_INPUT = 64 * 1024;

export async function authCommand(argv: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help') {
    io.stdout.write(AUTH_HELP);
    return sub === undefined ? 2 : 0;
  }
  let values: { json?: boolean; help?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: rest,
      options: { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
    }));
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  if (values.help) {
    io.stdout.write(AUTH_HELP);
    return 0;
  }
  const home = reinHome(io.env);
  const fail = (code: number, message: string): number => {
    io.stderr.write(`rein: ${message}\n`);
    return code;
  };

  if (sub === 'set-key') {
    if (positionals.length > 0)
      throw new UsageError(
        'rein auth set-key reads the key from stdin, not from its arguments (other programs can see arguments): `printenv ANTHROPIC_API_KEY | rein auth set-key`',
      );
    if (values.json) throw new UsageError('rein auth set-key has no --json');
    let text: string;
    try {
      text = io.stdin.isTTY ? await promptHidden(io, 'Anthropic API key (hidden): ') : await readLimited(io.stdin);
    } catch (e) {
      return fail(2, errorMessage(e));
    }
    try {
      checkApiKey(text);
    } catch (e) {
      return fail(2, errorMessage(e));
    }
    try {
      const r = await storeApiKey(io.env, home, text);
      const plain = r.store.encrypted
        ? ''
        : ` — readable only by you, but plain text on disk${r.fallbackReason ? ` (${r.fallbackReason})` : ''}`;
      io.stdout.write(`Stored the API key in ${r.store.where}${plain}.\n`);
      if (r.removedFrom.length > 0)
        io.stdout.write(`Removed the older copy from ${r.removedFrom.map(storeName).join(', ')}.\n`);
      for (const p of r.problems) io.stderr.write(`rein: an older copy could not be removed: ${p}\n`);
      if (io.env.ANTHROPIC_API_KEY?.trim() || io.env.ANTHROPIC_AUTH_TOKEN?.trim()) {
        io.stdout.write(
          'Note: ANTHROPIC_API_KEY is set in this environment; runs started from here use it instead of the stored key.\n',
        );
      }
      return 0;
    } catch (e) {
      return fail(isReinError(e, 'invalid_input') ? 2 : 1, errorMessage(e));
    }
  }

  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);

  if (sub === 'status') {
    let r;
    try {
      r = await apiKeyStatus(io.env, home);
    } catch (e) {
      return fail(1, errorMessage(e));
    }
    // A store that could not answer (the Keychain locked…) while no key was found elsewhere: the answer is unknown.
    if (!r.status.stored && r.problems.length > 0) return fail(1, r.problems.join('; '));
    if (values.json) {
      io.stdout.write(`${JSON.stringify({ stored: r.status.stored, store: r.status.store, env: r.status.env })}\n`);
      return 0;
    }
    io.stdout.write(
      r.status.stored ? `API key: stored in ${r.where}.\n` : 'API key: none stored (`rein auth set-key` stores one).\n',
    );
    if (r.status.env) {
      io.stdout.write(
        r.status.stored
          ? 'ANTHROPIC_API_KEY is set in this environment: runs started from here use it instead of the stored key.\n'
          : 'ANTHROPIC_API_KEY is set in this environment: runs started from here use it, but launchd jobs and the app do not see it.\n',
      );
    }
    return 0;
  }

  if (sub === 'remove') {
    if (values.json) throw new UsageError('rein auth remove has no --json');
    try {
      const removed = await removeStoredApiKey(io.env, home);
      io.stdout.write(
        removed.length > 0
          ? `Removed the stored API key from ${removed.map((s) => s.where).join(' and ')}.\n`
          : 'No API key was stored; nothing to remove.\n',
      );
      return 0;
    } catch (e) {
      return fail(1, errorMessage(e));
    }
  }

  throw new UsageError(`unknown auth command "${sub}" (set-key, status, remove)`);
}

async function readLimited(stream: CliIo['stdin']): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of stream) {
    const b = typeof c === 'string' ? Buffer.from(c) : (c as Buffer);
    size += b.length;
    if (size > MAX_INPUT) throw new Error('key: stdin holds far more than an API key');
    chunks.push(b);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** One line from a terminal, not echoed. Ctrl-C or Ctrl-D gives up. */
function promptHidden(io: CliIo, prompt: string): Promise<string> {
  const stdin = io.stdin as NodeJS.ReadStream;
  return new Promise((resolve, reject) => {
    let line = '';
    const wasRaw = stdin.isRaw;
    // Echo goes off before the prompt shows: what is typed after it is never on the screen.
    stdin.setRawMode?.(true);
    stdin.setEncoding('utf8');
    io.stderr.write(prompt);
    const done = (err?: Error) => {
      stdin.off('data', onData);
      stdin.setRawMode?.(wasRaw ?? false);
      stdin.pause();
      io.stderr.write('\n');
      if (err) reject(err);
      else resolve(line);
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') return done();
        if (ch === '\u0003' || ch === '\u0004') return done(new Error('no key was given'));
        if (ch === '\u007f' || ch === '\b') line = line.slice(0, -1);
        else line += ch;
      }
    };
    stdin.on('data', onData);
    stdin.resume();
  });
}
