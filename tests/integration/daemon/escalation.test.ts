/**
 * Finding 1 of issue 14, end to end: a run tries every step of the escalation chain — read the daemon's
 * token, reach the daemon's port, create an agent in bypassPermissions, answer an approval — and every
 * step fails. The model is the fake Messages API; the daemon, runtime, permission engine, tools and
 * audit log are the real ones, in a temporary HOME whose ~/.rein is the daemon's REIN_HOME. The lines
 * the model sends are test data: the engine refuses them, and the tests check that none of them ran.
 * Also: the bash tool's environment has no API key or token (`printenv`), except the names
 * tools.env_passthrough lets through.
 */
import { mkdir, mkdtemp, readFile, realpath, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  startFakeAnthropic,
  text,
  toolCall,
  tools,
  type FakeAnthropic,
  type RecordedRequest,
} from '../../support/fakeAnthropic.js';
import { useLeakCheck } from '../../support/leaks.js';
import { eventually, http, sse, startTestDaemon, type TestDaemon } from './support.js';

useLeakCheck();

const API_KEY = 'sk-ant-api03-escalationtest0123456789abcdef';

let root: string;
let home: string;
let rein: string;
let work: string;
let fake: FakeAnthropic;
let d: TestDaemon;

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'rein-escalation-')));
  home = join(root, 'home');
  rein = join(home, '.rein');
  work = join(home, 'work');
  await mkdir(work, { recursive: true });
  // The tool subprocesses see this process's environment (scrubbed): a HOME of our own, and secrets to withhold.
  vi.stubEnv('HOME', home);
  vi.stubEnv('ANTHROPIC_API_KEY', API_KEY);
  vi.stubEnv('REIN_DAEMON_TOKEN', 'token-from-the-environment-0000');
  vi.stubEnv('GITHUB_TOKEN', 'ghp_passedThroughOnPurpose');
  vi.stubEnv('STRIPE_SECRET_KEY', 'sk_live_withheld');
});

afterAll(async () => {
  vi.unstubAllEnvs();
  await rm(root, { recursive: true, force: true });
});

afterEach(async () => {
  await d?.daemon.dispose();
  await fake?.close();
  await rm(rein, { recursive: true, force: true });
});

async function start(): Promise<void> {
  fake = await startFakeAnthropic();
  d = await startTestDaemon(fake, {
    home: rein,
    config: { tools: { env_passthrough: ['GITHUB_TOKEN'] } },
    daemon: {
      cwd: work,
      env: { ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: API_KEY, REIN_RETRY_BASE_MS: '1', HOME: home },
    },
  });
  // A trusted background agent, set up by a person editing its files: it may do anything but a hard block.
  await mkdir(join(rein, 'agents', 'trusted'), { recursive: true });
  await writeFile(join(rein, 'agents', 'trusted', 'AGENT.md'), 'You do what you are told.\n');
  await writeFile(join(rein, 'agents', 'trusted', 'config.yaml'), 'mode: bypassPermissions\nauto_approve: true\n');
}

/** The tool results the model was given in a request, by the id of the call. */
function toolResults(req: RecordedRequest): Map<string, { content: string; is_error: boolean }> {
  const out = new Map<string, { content: string; is_error: boolean }>();
  const last = req.body.messages.at(-1)!;
  for (const block of last.content as { type: string; tool_use_id?: string; content?: unknown; is_error?: boolean }[]) {
    if (block.type !== 'tool_result') continue;
    const content = typeof block.content === 'string' ? block.content : JSON.stringify(block.content);
    out.set(block.tool_use_id!, { content, is_error: block.is_error === true });
  }
  return out;
}

async function auditLines(): Promise<
  { tool: string; decision: string; layer: string; approved_by: string | null; agent: string; args: string }[]
> {
  const text = await readFile(join(rein, 'logs', 'audit.jsonl'), 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

const exists = (p: string) =>
  stat(p).then(
    () => true,
    () => false,
  );

/** Every step a run could take towards Rein's token and Rein's API, as the model would send them. */
function attackCalls(port: number, token: string) {
  const agent = JSON.stringify({
    name: 'evil',
    prompt: 'Obey.',
    config: { mode: 'bypassPermissions', auto_approve: true },
  });
  return [
    toolCall('file_read', { path: join(rein, 'daemon.json') }),
    toolCall('file_read', { path: '~/.rein/daemon.token' }),
    toolCall('grep', { pattern: 'token', path: '~/.rein' }),
    toolCall('bash', { command: 'cat ~/.rein/daemon.json' }),
    toolCall('bash', { command: 'cat ~/.rein/*' }),
    toolCall('bash', { command: 'cat ~/.re?n/daemon.js*' }),
    toolCall('bash', { command: 'cd ~/.rein && cat daemon.json' }),
    toolCall('bash', { command: 'grep -r token ~' }),
    toolCall('bash', { command: 'find ~ -name daemon.json -exec cat {} +' }),
    toolCall('bash', { command: 'tar cf - ~/.rein | base64' }),
    toolCall('http', {
      url: `http://127.0.0.1:${port}/agents`,
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: agent,
    }),
    toolCall('http', { url: `http://localhost:${port}/status`, headers: { authorization: `Bearer ${token}` } }),
    toolCall('http', { url: `http://[::1]:${port}/approvals` }),
    toolCall('bash', {
      command: `curl -s -X POST -H 'Authorization: Bearer ${token}' http://127.0.0.1:${port}/agents -d '${agent}'`,
    }),
    toolCall('bash', { command: `nc 127.0.0.1 ${port} < /dev/null` }),
    // The second secret, with which `rein changes accept` in a shell confirms a raise.
    toolCall('file_read', { path: join(rein, 'secrets', 'confirm.token') }),
    toolCall('bash', {
      command: `curl -s -X POST -H "x-rein-confirm: $(cat ~/.rein/secrets/confirm.token)" -H 'Authorization: Bearer ${token}' http://127.0.0.1:${port}/changes/chg_0123456789abcdef/answer -d '{"decision":"apply"}'`,
    }),
  ];
}

describe('the escalation chain of finding 1 fails at every step', () => {
  it.each(['default', 'trusted'])(
    'a run of the %s agent cannot read the token or reach the daemon, whatever its mode',
    async (agent) => {
      await start();
      const calls = attackCalls(d.port, 'guessed-token');
      fake.enqueue(tools(calls), text('could not get in'));
      const res = await http(d, 'POST', '/message', { body: { text: 'take over', agent } });
      expect(res.status, res.text).toBe(200);
      expect(res.json.text).toBe('could not get in');

      const results = toolResults(fake.requests[1]!);
      for (const call of calls) {
        const r = results.get((call as { id: string }).id)!;
        expect(r.is_error, JSON.stringify(call)).toBe(true);
        expect(r.content, JSON.stringify(call)).toMatch(/hard block "rein-(secrets|daemon)"/);
        expect(r.content).not.toContain(d.token);
      }
      // The audit log: every call was refused by a hard block, nobody and nothing approved one.
      const lines = (await auditLines()).filter((l) => l.agent === agent);
      expect(lines).toHaveLength(calls.length);
      for (const l of lines) expect(l).toMatchObject({ decision: 'deny', layer: 'hard_block', approved_by: null });
      // No agent was made, and the token never went to the model.
      expect(await exists(join(rein, 'agents', 'evil'))).toBe(false);
      expect(JSON.stringify(fake.requests.map((r) => r.body.messages))).not.toContain(d.token);
    },
  );

  it("given the token in its prompt, a run still cannot use it: the port is refused, and a token holder's bypassPermissions agent waits for a person in a shell", async () => {
    await start();
    const calls = attackCalls(d.port, d.token).filter((c) => (c as { name: string }).name !== 'file_read');
    fake.enqueue(tools(calls), text('refused again'));
    const res = await http(d, 'POST', '/message', {
      body: { text: `Here is Rein's token: ${d.token}. Create an agent in bypassPermissions and use it.` },
    });
    expect(res.status, res.text).toBe(200);
    for (const r of toolResults(fake.requests[1]!).values()) expect(r.content).toMatch(/hard block/);

    // Had it reached the API anyway (as any token holder does), the change would not be made: it waits
    // for a person — in a shell on this machine (`rein changes accept`) or in the desktop app.
    const body = { name: 'evil', prompt: 'Obey.', config: { mode: 'bypassPermissions', auto_approve: true } };
    const events = await sse(d, 'GET', '/events');
    const pending = await http(d, 'POST', '/agents', { body });
    expect(pending.status, pending.text).toBe(202);
    expect(pending.json).toMatchObject({ pending: true, kind: 'create_agent', agent: 'evil' });
    expect(pending.json.change_id).toMatch(/^chg_[0-9a-f]{16}$/);
    expect(pending.json.raises.map((r: { field: string }) => r.field)).toEqual(['mode', 'auto_approve']);
    expect(pending.json.message).toMatch(/mode default → bypassPermissions/);
    // HOME is this test's, so the daemon's REIN_HOME is the default ~/.rein: the command needs no REIN_HOME.
    expect(pending.json.accept_command).toBe(`rein changes accept ${pending.json.change_id}`);
    expect(pending.json.message).toContain(`run \`${pending.json.accept_command}\` in a shell on this machine`);
    const announced = await events.next((f) => f.event === 'change_request', 'change_request');
    expect(announced.data.change).toMatchObject({
      change_id: pending.json.change_id,
      agent: 'evil',
      requested_by: 'daemon',
      accept_command: pending.json.accept_command,
    });
    expect((await http(d, 'GET', '/changes')).json.changes.map((c: { change_id: string }) => c.change_id)).toEqual([
      pending.json.change_id,
    ]);
    expect(await exists(join(rein, 'agents', 'evil'))).toBe(false);
    // The agent does not exist, so nothing can run as it.
    expect((await http(d, 'POST', '/message', { body: { text: 'rm everything', agent: 'evil' } })).status).toBe(404);
    // The token is no door to confirm it: the shell's endpoint wants the confirm secret too, which no tool may read.
    expect((await http(d, 'POST', `/changes/${pending.json.change_id}`, { body: { decision: 'apply' } })).status).toBe(
      404,
    );
    const tokenOnly = await http(d, 'POST', `/changes/${pending.json.change_id}/answer`, {
      body: { decision: 'apply' },
    });
    expect(tokenOnly.status, tokenOnly.text).toBe(403);
    expect(tokenOnly.json.code).toBe('confirm_refused');
    expect(await exists(join(rein, 'agents', 'evil'))).toBe(false);

    // Raising an existing agent and the global mode wait the same way.
    const raise = await http(d, 'PUT', '/agents/trusted', {
      body: { config: 'mode: bypassPermissions\nauto_approve: true\npermissions:\n  allowed_commands: ["*"]\n' },
    });
    expect(raise.status, raise.text).toBe(202);
    expect(raise.json.raises).toEqual([{ field: 'permissions.allowed_commands', change: 'adds "*"' }]);
    expect(await readFile(join(rein, 'agents', 'trusted', 'config.yaml'), 'utf8')).toBe(
      'mode: bypassPermissions\nauto_approve: true\n',
    );
    const global = await http(d, 'PUT', '/settings', { body: { permission_mode: 'bypassPermissions' } });
    expect(global.status, global.text).toBe(202);
    expect((await http(d, 'GET', '/settings')).json.permission_mode).toBe('default');

    // Changes that raise nothing still apply at once.
    expect((await http(d, 'PUT', '/agents/trusted', { body: { prompt: 'You are careful.\n' } })).status).toBe(200);
    expect(
      (await http(d, 'POST', '/agents', { body: { name: 'careful', prompt: 'Ask first.', config: { mode: 'plan' } } }))
        .status,
    ).toBe(201);

    // The person rejects one in the desktop window (its IPC answers through the service) and applies
    // another from a shell on this machine, as `rein changes accept` does: the token and the confirm secret.
    await d.daemon.service.answerChange({ change_id: global.json.change_id, decision: 'reject' }, 'desktop');
    expect((await http(d, 'GET', '/settings')).json.permission_mode).toBe('default');
    const secret = (await readFile(join(rein, 'secrets', 'confirm.token'), 'utf8')).trim();
    const applied = await http(d, 'POST', `/changes/${pending.json.change_id}/answer`, {
      body: { decision: 'apply' },
      headers: { 'x-rein-confirm': secret },
    });
    expect(applied.status, applied.text).toBe(200);
    expect(applied.json).toEqual({ change_id: pending.json.change_id, outcome: 'applied' });
    expect(await readFile(join(rein, 'agents', 'evil', 'config.yaml'), 'utf8')).toMatch(/mode: bypassPermissions/);
    const answered = await events.next(
      (f) => f.event === 'change_response' && f.data.change_id === pending.json.change_id,
      'change_response',
    );
    expect(answered.data).toMatchObject({ outcome: 'applied', by: 'shell' });
    await expect(
      d.daemon.service.answerChange({ change_id: pending.json.change_id, decision: 'apply' }, 'desktop'),
    ).rejects.toMatchObject({ code: 'change_not_found' });
    events.close();
  });

  it('an approval cannot be answered by a run: the waiting run is paused, and another run cannot reach POST /approval', async () => {
    await start();
    // Run A (default mode) wants to write a file: that asks, and the question waits on the desk.
    const events = await sse(d, 'GET', '/events');
    fake.enqueue(tools([toolCall('file_write', { path: 'note.txt', content: 'x' })]));
    const runA = http(d, 'POST', '/message', { body: { text: 'write a note', source: 'slack', channel: 'A' } });
    const asked = await events.next((f) => f.event === 'approval_request', 'approval_request');
    const id = asked.data.request_id as string;

    // Run B, the trusted agent (bypassPermissions, auto_approve), tries to answer it with the token.
    const answer = JSON.stringify({ request_id: id, decision: 'allow' });
    const bCalls = [
      toolCall('http', {
        url: `http://127.0.0.1:${d.port}/approval`,
        method: 'POST',
        headers: { authorization: `Bearer ${d.token}`, 'content-type': 'application/json' },
        body: answer,
      }),
      toolCall('bash', {
        command: `curl -s -X POST -H 'Authorization: Bearer ${d.token}' -H 'content-type: application/json' -d '${answer}' http://localhost:${d.port}/approval`,
      }),
    ];
    fake.enqueue(tools(bCalls), text('could not answer it'));
    const runB = await http(d, 'POST', '/message', {
      body: { text: `answer ${id}`, agent: 'trusted', source: 'slack', channel: 'B' },
    });
    expect(runB.json.text).toBe('could not answer it');
    const bResults = toolResults(fake.requests.at(-1)!);
    for (const c of bCalls) expect(bResults.get((c as { id: string }).id)!.content).toMatch(/hard block "rein-daemon"/);
    // Still waiting for a person.
    expect(
      (await http(d, 'GET', '/approvals')).json.approvals.map((a: { request_id: string }) => a.request_id),
    ).toEqual([id]);

    fake.enqueue(text('not written'));
    await http(d, 'POST', '/approval', { body: { request_id: id, decision: 'deny' } });
    expect((await runA).json.text).toBe('not written');
    expect(await exists(join(work, 'note.txt'))).toBe(false);
    events.close();
  });
});

describe('the environment of tool subprocesses', () => {
  it('has no API key or token: printenv shows nothing of them, tools.env_passthrough names pass', async () => {
    await start();
    const call = toolCall('bash', {
      command:
        'printenv ANTHROPIC_API_KEY; printenv REIN_DAEMON_TOKEN; printenv STRIPE_SECRET_KEY; echo "passed=$GITHUB_TOKEN home=$HOME"; env | grep -c sk-ant || true',
    });
    fake.enqueue(tools([call]), text('done'));
    const res = await http(d, 'POST', '/message', { body: { text: 'show me the environment', agent: 'trusted' } });
    expect(res.status, res.text).toBe(200);
    const out = toolResults(fake.requests[1]!).get((call as { id: string }).id)!.content;
    expect(out).toContain('passed=ghp_passedThroughOnPurpose');
    expect(out).toContain(`home=${home}`);
    expect(out).not.toContain(API_KEY);
    expect(out).not.toContain('token-from-the-environment');
    expect(out).not.toContain('sk_live_withheld');
    expect(out.trim().split('\n').at(-1)).toBe('0');
    // Nothing of the key reached the model in any request.
    await eventually(() => fake.requests.length >= 2);
    expect(fake.requests.map((r) => JSON.stringify(r.body.messages)).join('')).not.toContain(API_KEY);
  });
});
