/**
 * `rein changes list [--json]`, `rein changes accept ID [--yes]`, `rein changes reject ID`: the
 * permission-raising changes asked for over the daemon's API (an agent in bypassPermissions, another
 * base_url, more allowed commands…), waiting for a person — confirmed here, in a shell on the daemon's
 * machine. The command proves it is such a shell with the daemon's confirm secret
 * (`$REIN_HOME/secrets/confirm.token`, which only a local process of this user can read and no tool
 * may); a run's bash tool that tries `rein changes accept` is a protected call that asks a person in
 * every mode. Accepting asks on the terminal first, unless `--yes` (a script of the person's own).
 * Exit codes: 0 done, 1 not done (no daemon, no such change, answered no, no terminal to ask on, the
 * daemon refused), 2 bad usage.
 */
import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import type { PendingChange } from '../../core/api/events.js';
import { visibleText } from '../../core/api/visibleText.js';
import { reinHome } from '../../core/config/paths.js';
import { daemonRequest, type DaemonAnswer } from '../../core/daemon/client.js';
import { CONFIRM_HEADER, readConfirmSecret } from '../../core/daemon/confirmSecret.js';
import { runningDaemon, type DaemonInfo } from '../../core/daemon/daemonFile.js';
import { errorMessage } from '../../core/errors.js';
import { UsageError, type CliIo } from '../io.js';

export const CHANGES_HELP = `rein changes — permission changes waiting for you to confirm them

Usage:
  rein changes list [--json]        what waits: id, what it is, what it raises
  rein changes accept ID [--yes]    make the change (asks on the terminal first; --yes does not ask)
  rein changes reject ID            drop it; nothing is changed

A change asked for over the daemon's API that gives an agent more power (bypassPermissions,
auto_approve, more allowed commands, an MCP server, another base_url…) is not made on the word of a
token holder: the web page, a script or a relay. It waits, for 30 minutes, for a person — here, in a
shell on the daemon's machine, or in the Rein desktop app. \`rein daemon\` prints each one with the
command that accepts it.

Only this machine's user can confirm: the command proves itself with a secret the daemon writes to
$REIN_HOME/secrets/confirm.token at start, which the web page never gets and no tool may read. An
agent's own \`rein changes accept\` is a protected call: it asks you first, in every mode, --yes or not.
`;

export async function changesCommand(argv: string[], io: CliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        json: { type: 'boolean' },
        yes: { type: 'boolean', short: 'y' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    throw new UsageError(`changes: ${(err as Error).message}`);
  }
  const { values, positionals } = parsed;
  const [sub, ...rest] = positionals;
  if (values.help || sub === 'help') {
    io.stdout.write(CHANGES_HELP);
    return 0;
  }
  if (sub === undefined) throw new UsageError('changes: say list, accept ID or reject ID');
  if (sub !== 'list' && sub !== 'accept' && sub !== 'reject')
    throw new UsageError(`unknown changes command "${sub}" (use list, accept or reject)`);
  if (sub === 'list' && rest.length > 0) throw new UsageError('changes list takes no arguments');
  if (sub !== 'list' && rest.length !== 1)
    throw new UsageError(`changes ${sub} takes one ID (see \`rein changes list\`)`);
  if (values.json && sub !== 'list') throw new UsageError('changes: --json goes with list');
  if (values.yes && sub !== 'accept') throw new UsageError('changes: --yes goes with accept');

  const home = reinHome(io.env);
  const info = await runningDaemon(home);
  if (!info) {
    io.stderr.write(
      `rein: no Rein daemon is running for ${home}: changes wait in a running daemon (\`rein daemon\`, or the desktop app), and none does now\n`,
    );
    return 1;
  }
  let listed: PendingChange[];
  try {
    listed = await listChanges(info);
  } catch (e) {
    io.stderr.write(`rein: ${errorMessage(e)}\n`);
    return 1;
  }
  if (sub === 'list') return list(io, listed, values.json ?? false);

  const id = rest[0]!;
  const change = listed.find((c) => c.change_id === id);
  if (!change) {
    io.stderr.write(
      `rein: no change ${visibleText(id)} waits (it was answered, it expired, or the daemon restarted); \`rein changes list\` shows what waits\n`,
    );
    return 1;
  }
  io.stdout.write(describe(change));
  if (sub === 'accept' && !values.yes) {
    if (!io.stdin.isTTY) {
      io.stderr.write(
        `rein: no terminal to ask on: run \`rein changes accept ${id} --yes\` to accept it without being asked\n`,
      );
      return 1;
    }
    const answer = await ask(io, 'Accept this change? [y]es / [N]o: ');
    if (answer !== 'yes') {
      io.stderr.write(`rein: not accepted; it still waits (\`rein changes reject ${id}\` drops it)\n`);
      return answer === 'interrupted' ? 130 : 1;
    }
  }

  let secret: string;
  try {
    secret = await readConfirmSecret(home);
  } catch (e) {
    io.stderr.write(`rein: ${errorMessage(e)}\n`);
    return 1;
  }
  let answer: DaemonAnswer;
  try {
    answer = await daemonRequest(
      info,
      'POST',
      `/changes/${encodeURIComponent(id)}/answer`,
      { decision: sub === 'accept' ? 'apply' : 'reject' },
      { headers: { [CONFIRM_HEADER]: secret } },
    );
  } catch (e) {
    io.stderr.write(`rein: the daemon did not answer: ${errorMessage(e)}\n`);
    return 1;
  }
  if (answer.status === 200) {
    io.stdout.write(
      sub === 'accept' ? `Applied ${id}: ${visibleText(change.summary)}\n` : `Rejected ${id}: nothing was changed\n`,
    );
    return 0;
  }
  const said = (answer.json ?? {}) as { error?: unknown; code?: unknown };
  const why = typeof said.error === 'string' ? said.error : `HTTP ${answer.status}`;
  if (said.code === 'change_not_found')
    io.stderr.write(`rein: no change ${id} waits any more (answered meanwhile, or expired)\n`);
  else io.stderr.write(`rein: ${sub === 'accept' ? 'not applied' : 'not rejected'}: ${visibleText(why)}\n`);
  return 1;
}

async function listChanges(info: DaemonInfo): Promise<PendingChange[]> {
  const answer = await daemonRequest(info, 'GET', '/changes');
  const body = answer.json as { changes?: unknown; error?: unknown } | undefined;
  if (answer.status !== 200 || !Array.isArray(body?.changes)) {
    throw new Error(
      `the daemon did not list its changes (HTTP ${answer.status}${typeof body?.error === 'string' ? `: ${body.error}` : ''})`,
    );
  }
  return body.changes as PendingChange[];
}

function list(io: CliIo, changes: PendingChange[], json: boolean): number {
  if (json) {
    const rows = changes.map((c) => ({
      id: c.change_id,
      kind: c.kind,
      summary: c.summary,
      ...(c.agent ? { agent: c.agent } : {}),
      raises: c.raises,
      requested_by: c.requested_by,
      requested_at: c.requested_at,
      expires_at: c.expires_at,
      request: c.request,
      ...(c.accept_command ? { accept_command: c.accept_command } : {}),
    }));
    io.stdout.write(`${JSON.stringify(rows)}\n`);
    return 0;
  }
  if (changes.length === 0) {
    io.stdout.write('No change waits for confirmation.\n');
    return 0;
  }
  for (const c of changes) {
    io.stdout.write(
      `${c.change_id}  ${visibleText(c.summary)}\n` +
        `  asked by ${visibleText(c.requested_by)} at ${c.requested_at}; waits until ${c.expires_at}\n` +
        `  accept: rein changes accept ${c.change_id}    reject: rein changes reject ${c.change_id}\n`,
    );
  }
  return 0;
}

/** What a person is about to confirm: the summary, each raise, and the request itself (credentials masked). */
function describe(c: PendingChange): string {
  const raises = c.raises.map((r) => `  ${visibleText(r.field)}: ${visibleText(r.change)}\n`).join('');
  const request = JSON.stringify(c.request, null, 2) ?? 'null';
  const shown =
    request.length > 4_000 ? `${request.slice(0, 4_000)}\n… (${request.length - 4_000} more characters)` : request;
  return (
    `${c.change_id}: ${visibleText(c.summary)}\n` +
    `It raises:\n${raises}` +
    `Asked by ${visibleText(c.requested_by)} at ${c.requested_at}. The request, as it will be applied:\n` +
    `${visibleText(shown, { keepNewlines: true })
      .split('\n')
      .map((l) => `  ${l}`)
      .join('\n')}\n`
  );
}

async function ask(io: CliIo, question: string): Promise<'yes' | 'no' | 'interrupted'> {
  const rl = createInterface({ input: io.stdin, output: io.stdout, terminal: true });
  const interrupted = new AbortController();
  rl.once('SIGINT', () => interrupted.abort());
  try {
    const a = (await rl.question(question, { signal: interrupted.signal })).trim().toLowerCase();
    return a === 'y' || a === 'yes' ? 'yes' : 'no';
  } catch {
    return interrupted.signal.aborted ? 'interrupted' : 'no';
  } finally {
    rl.close();
  }
}
