/**
 * Raises confirmed where a person is (issue 25): a headless `rein daemon` (no desktop app) keeps a
 * permission-raising change asked over its API pending (202), prints it with the command that accepts
 * it, and `rein changes list|accept|reject` in a shell on the same machine answer it. The daemon's
 * endpoint for that refuses the token alone, a wrong confirm secret and anything a browser sends (the
 * web page's credentials). Real child processes: the built CLI and `rein daemon`, the fake Messages API.
 */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanEnv, rein, startRein, tempHome } from '../../support/cli.js';
import { startFakeAnthropic, type FakeAnthropic } from '../../support/fakeAnthropic.js';
import { useLeakCheck } from '../../support/leaks.js';
import { eventually, http } from './support.js';

useLeakCheck();

let fake: FakeAnthropic | undefined;
const children: ReturnType<typeof startRein>[] = [];

afterEach(async () => {
  for (const c of children.splice(0)) {
    if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill('SIGTERM');
    await c.done;
  }
  await fake?.close();
  fake = undefined;
});

async function startDaemon() {
  fake ??= await startFakeAnthropic();
  const { home, cwd } = await tempHome();
  const env = cleanEnv({ REIN_HOME: home, ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: 'test-key' });
  const proc = startRein(['daemon', '--port', '0', '--cwd', cwd], { env, cwd });
  children.push(proc);
  let out = '';
  proc.child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    const check = () => {
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    };
    proc.child.stdout!.on('data', check);
    void proc.done.then((r) => reject(new Error(`daemon exited early (${r.code}): ${r.stderr}`)));
  });
  const info = JSON.parse(await readFile(join(home, 'daemon.json'), 'utf8')) as { token: string };
  return { home, cwd, env, port, token: info.token, proc, stdout: () => out };
}

const cli = (d: { env: NodeJS.ProcessEnv; cwd: string }, ...args: string[]) =>
  rein(['changes', ...args], { env: d.env, cwd: d.cwd });

describe('rein changes against a headless rein daemon', () => {
  it('keeps a raise pending, prints the command, lists it, refuses a wrong or missing id and a missing terminal, and applies it with accept', async () => {
    const d = await startDaemon();
    // The confirm secret: made at start, only this user may read it.
    expect((await stat(join(d.home, 'secrets', 'confirm.token'))).mode & 0o777).toBe(0o600);

    // The web onboarding's "Save and start": another base URL raises permissions.
    const asked = await http(d, 'PUT', '/settings', { body: { base_url: 'http://127.0.0.1:9/v1' } });
    expect(asked.status, asked.text).toBe(202);
    const id = asked.json.change_id as string;
    const accept = `REIN_HOME=${d.home} rein changes accept ${id}`;
    expect(asked.json.accept_command).toBe(accept);
    expect(asked.json.message).toContain(`run \`${accept}\` in a shell on this machine`);
    // `rein daemon` says it where its person looks.
    const printed = await eventually(() =>
      d
        .stdout()
        .split('\n')
        .find((l) => l.startsWith(`change ${id} waits:`)),
    );
    expect(printed).toBe(
      `change ${id} waits: Change the global settings: base_url (the default) → http://127.0.0.1:9/v1: the API key and every conversation go there — accept with: ${accept}`,
    );

    const json = await cli(d, 'list', '--json');
    expect(json.code, json.stderr).toBe(0);
    const rows = JSON.parse(json.stdout);
    expect(rows).toEqual([
      expect.objectContaining({
        id,
        kind: 'save_settings',
        summary:
          'Change the global settings: base_url (the default) → http://127.0.0.1:9/v1: the API key and every conversation go there',
        raises: [{ field: 'base_url', change: expect.stringContaining('http://127.0.0.1:9/v1') }],
        requested_by: 'daemon',
        requested_at: expect.any(String),
        expires_at: expect.any(String),
        request: { base_url: 'http://127.0.0.1:9/v1' },
      }),
    ]);
    const text = await cli(d, 'list');
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`${id}  Change the global settings`);
    expect(text.stdout).toContain(`accept: rein changes accept ${id}`);

    const unknown = await cli(d, 'accept', 'chg_00000000000000ff', '--yes');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain(
      'no change chg_00000000000000ff waits (it was answered, it expired, or the daemon restarted)',
    );
    const garbage = await cli(d, 'reject', 'not-an-id');
    expect(garbage.code).toBe(1);
    expect(garbage.stderr).toContain('no change not-an-id waits');

    // No terminal and no --yes (a pipe, a tool's shell): nothing is accepted.
    const noTty = await cli(d, 'accept', id);
    expect(noTty.code).toBe(1);
    expect(noTty.stdout).toContain(`${id}: Change the global settings`);
    expect(noTty.stderr).toContain(`no terminal to ask on: run \`rein changes accept ${id} --yes\``);
    expect((await http(d, 'GET', '/changes')).json.changes).toHaveLength(1);
    await expect(readFile(join(d.home, 'config.yaml'), 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });

    const yes = await cli(d, 'accept', id, '--yes');
    expect(yes.code, yes.stderr).toBe(0);
    expect(yes.stdout).toContain(`Applied ${id}: Change the global settings`);
    expect(await readFile(join(d.home, 'config.yaml'), 'utf8')).toContain('base_url: http://127.0.0.1:9/v1');
    expect((await http(d, 'GET', '/settings')).json.base_url).toBe('http://127.0.0.1:9/v1');
    expect((await http(d, 'GET', '/changes')).json.changes).toEqual([]);
    await eventually(() => d.stdout().includes(`change ${id} applied (by shell)`));
    // Answered: a second accept finds nothing.
    expect((await cli(d, 'accept', id, '--yes')).code).toBe(1);
  });

  it('rejects without applying; refuses the token alone, a wrong secret and a browser; says when no daemon runs', async () => {
    const d = await startDaemon();
    const asked = await http(d, 'POST', '/agents', {
      body: { name: 'ops', prompt: 'x', config: { mode: 'bypassPermissions' } },
    });
    expect(asked.status, asked.text).toBe(202);
    const id = asked.json.change_id as string;
    const secret = (await readFile(join(d.home, 'secrets', 'confirm.token'), 'utf8')).trim();
    const answer = (headers: Record<string, string>) =>
      http(d, 'POST', `/changes/${id}/answer`, { body: { decision: 'apply' }, headers });

    // What the web page holds: the token, sent from its origin. And guesses.
    for (const [what, headers] of [
      ['the token alone', {}],
      ['the web page', { origin: `http://127.0.0.1:${d.port}` }],
      ['a wrong secret', { 'x-rein-confirm': 'f'.repeat(64) }],
      ['the secret from a browser', { 'x-rein-confirm': secret, origin: `http://127.0.0.1:${d.port}` }],
    ] as const) {
      const refused = await answer(headers);
      expect(refused.status, what).toBe(403);
      expect(refused.json.code, what).toBe('confirm_refused');
      expect(refused.json.error, what).toContain('rein changes accept ID');
    }
    // Without the token the request never gets that far.
    expect(
      (
        await http(d, 'POST', `/changes/${id}/answer`, {
          body: { decision: 'apply' },
          headers: { 'x-rein-confirm': secret },
          token: null,
        })
      ).status,
    ).toBe(401);
    await expect(stat(join(d.home, 'agents', 'ops'))).rejects.toMatchObject({ code: 'ENOENT' });

    const rejected = await cli(d, 'reject', id);
    expect(rejected.code, rejected.stderr).toBe(0);
    expect(rejected.stdout).toContain(`Rejected ${id}: nothing was changed`);
    await expect(stat(join(d.home, 'agents', 'ops'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect((await cli(d, 'list')).stdout).toBe('No change waits for confirmation.\n');
    expect(JSON.parse((await cli(d, 'list', '--json')).stdout)).toEqual([]);

    // Bad usage is 2.
    expect((await cli(d)).code).toBe(2);
    expect((await cli(d, 'accept')).code).toBe(2);
    expect((await cli(d, 'reject', id, '--yes')).code).toBe(2);
    expect((await cli(d, 'list', '--help')).code).toBe(0);

    const stop = await rein(['daemon', 'stop'], { env: d.env, cwd: d.cwd });
    expect(stop.code).toBe(0);
    const none = await cli(d, 'list');
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('no Rein daemon is running');
  });
});
