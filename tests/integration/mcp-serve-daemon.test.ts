/**
 * The ask path through the daemon: `POST /approvals/ask` puts another Rein process's question on the
 * daemon's desk and bus, so every client sees it and the first `POST /approval` answers it; and
 * `rein mcp serve`, for a client that cannot show a form, asks there when a daemon runs for its home.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../src-main/core/api/events.js';
import { REIN_BIN } from '../support/cli.js';
import { startFakeAnthropic, type FakeAnthropic } from '../support/fakeAnthropic.js';
import { useLeakCheck } from '../support/leaks.js';
import { eventually, http, sse, startTestDaemon, type TestDaemon } from './daemon/support.js';

useLeakCheck();

let fake: FakeAnthropic | undefined;
let d: TestDaemon | undefined;
let clients: Client[] = [];

afterEach(async () => {
  for (const c of clients) await c.close();
  clients = [];
  await d?.daemon.dispose();
  await fake?.close();
  d = undefined;
  fake = undefined;
});

async function daemon(config: Parameters<typeof startTestDaemon>[1] = {}): Promise<TestDaemon> {
  fake = await startFakeAnthropic();
  d = await startTestDaemon(fake, config);
  return d;
}

let n = 0;
const question = (over: Partial<ApprovalRequest> = {}): ApprovalRequest => ({
  request_id: `apr_${(++n).toString(16).padStart(16, '0')}`,
  session_id: 'mcp-0123456789abcdef0123456789abcdef',
  agent: 'default',
  route: 'mcp:01234567',
  source: 'mcp',
  origin: 'remote',
  tool: 'bash',
  input: { command: 'touch x' },
  summary: '$ touch x',
  reason: '`touch x` is not on the read-only list',
  layer: 'tool',
  risk: 'medium',
  risk_explanation: 'may change files or run programs',
  asked_at: new Date().toISOString(),
  ...over,
});

describe('POST /approvals/ask', () => {
  it('shows the question to every client and answers with the first POST /approval', async () => {
    const t = await daemon();
    const events = await sse(t, 'GET', '/events');
    const q = question();
    const asking = http(t, 'POST', '/approvals/ask', { body: q });
    const shown = await events.next((f) => f.event === 'approval_request', 'approval_request');
    expect(shown.data).toMatchObject({
      request_id: q.request_id,
      tool: 'bash',
      source: 'mcp',
      origin: 'remote',
      summary: '$ touch x',
      route: 'mcp:01234567',
    });
    expect((await http(t, 'GET', '/approvals')).json.approvals).toEqual([
      expect.objectContaining({ request_id: q.request_id, input: { command: 'touch x' } }),
    ]);
    expect((await http(t, 'POST', '/approval', { body: { request_id: q.request_id, decision: 'allow' } })).status).toBe(
      200,
    );
    const answer = await asking;
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ request_id: q.request_id, decision: 'allow', by: 'daemon' });
    const response = await events.next((f) => f.event === 'approval_response', 'approval_response');
    expect(response.data).toMatchObject({
      request_id: q.request_id,
      decision: 'allow',
      by: 'daemon',
      route: 'mcp:01234567',
    });
    expect((await http(t, 'POST', '/approval', { body: { request_id: q.request_id, decision: 'deny' } })).status).toBe(
      409,
    );
    expect((await http(t, 'GET', '/approvals')).json.approvals).toEqual([]);
    // An id already decided is not asked again (its old answer is never handed out as a new one).
    expect((await http(t, 'POST', '/approvals/ask', { body: q })).json).toMatchObject({
      code: 'approval_already_decided',
      field: 'request_id',
    });
    events.close();
  });

  it('is a deny by timeout when nobody answers within approval_timeout_seconds', async () => {
    const t = await daemon({ config: { permissions: { approval_timeout_seconds: 0.3 } } });
    const answer = await http(t, 'POST', '/approvals/ask', { body: question() });
    expect(answer.json).toMatchObject({ decision: 'deny', by: 'timeout' });
    expect((await http(t, 'GET', '/approvals')).json.approvals).toEqual([]);
  });

  it('withdraws the question when the asker goes away', async () => {
    const t = await daemon();
    const q = question();
    const body = JSON.stringify(q);
    const req = request({
      host: '127.0.0.1',
      port: t.port,
      method: 'POST',
      path: '/approvals/ask',
      headers: { host: `127.0.0.1:${t.port}`, authorization: `Bearer ${t.token}`, 'content-type': 'application/json' },
    });
    req.on('error', () => undefined);
    req.end(body);
    await eventually(async () => (await http(t, 'GET', '/approvals')).json.approvals.length === 1);
    req.destroy();
    await eventually(async () => (await http(t, 'GET', '/approvals')).json.approvals.length === 0);
    expect((await http(t, 'POST', '/approval', { body: { request_id: q.request_id, decision: 'allow' } })).status).toBe(
      409,
    );
  });

  it('checks the body like every endpoint, and needs the token', async () => {
    const t = await daemon();
    const { summary: _s, ...missing } = question();
    expect((await http(t, 'POST', '/approvals/ask', { body: missing })).json).toMatchObject({
      code: 'invalid_request',
      field: 'summary',
    });
    expect((await http(t, 'POST', '/approvals/ask', { body: { ...question(), extra: 1 } })).status).toBe(400);
    expect(
      (await http(t, 'POST', '/approvals/ask', { body: question({ request_id: 'apr_nothex' }) })).json,
    ).toMatchObject({ field: 'request_id' });
    expect((await http(t, 'POST', '/approvals/ask', { body: question(), token: 'f'.repeat(64) })).status).toBe(401);
  });
});

/** `rein mcp serve` for this daemon's REIN_HOME, and a client connected to it (`prepare` runs before it connects). */
async function serve(
  t: TestDaemon,
  client = new Client({ name: 'no-forms', version: '1' }),
  prepare?: (c: Client) => void,
) {
  const userHome = join(t.cwd, '..', 'user');
  await mkdir(userHome, { recursive: true });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [REIN_BIN, 'mcp', 'serve'],
    env: { PATH: process.env.PATH ?? '', HOME: userHome, REIN_HOME: t.home, LANG: 'C.UTF-8' },
    cwd: t.cwd,
    stderr: 'pipe',
  });
  prepare?.(client);
  await client.connect(transport);
  clients.push(client);
  return client;
}

describe('rein mcp serve asks the running daemon', () => {
  // Without an elicitation capability the question has to go to the daemon's desk.

  const pending = async (t: TestDaemon) => {
    const list = await eventually(async () => {
      const a = (await http(t, 'GET', '/approvals')).json.approvals as ApprovalRequest[];
      return a.length > 0 ? a : undefined;
    });
    return list[0]!;
  };

  it('runs the call once the desk allows it, and not when it denies', async () => {
    const t = await daemon();
    const client = await serve(t);
    const allowed = client.callTool({ name: 'bash', arguments: { command: 'touch via-desk.txt' } });
    const q = await pending(t);
    expect(q).toMatchObject({
      tool: 'bash',
      source: 'mcp',
      origin: 'remote',
      summary: '$ touch via-desk.txt',
      agent: 'default',
    });
    expect(q.session_id).toMatch(/^mcp-[0-9a-f]{32}$/);
    await http(t, 'POST', '/approval', { body: { request_id: q.request_id, decision: 'allow' } });
    const r = await allowed;
    expect(r.isError).toBeFalsy();
    expect(existsSync(join(t.cwd, 'via-desk.txt'))).toBe(true);

    const denied = client.callTool({ name: 'bash', arguments: { command: 'touch refused.txt' } });
    const q2 = await pending(t);
    await http(t, 'POST', '/approval', { body: { request_id: q2.request_id, decision: 'deny' } });
    const r2 = await denied;
    expect(r2.isError).toBe(true);
    expect(JSON.stringify(r2.content)).toMatch(/DENIED/);
    expect(existsSync(join(t.cwd, 'refused.txt'))).toBe(false);
    const audit = (await readFile(join(t.home, 'logs', 'audit.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(audit.filter((l) => l.source === 'mcp').map((l) => [l.decision, l.approved_by])).toEqual(
      expect.arrayContaining([['allow', 'daemon']]),
    );
  });

  const textOf = (r: unknown): string =>
    (r as { content: Array<{ type: string; text?: string }> }).content.find((c) => c.type === 'text')?.text ?? '';
  const configText = (t: TestDaemon) => readFile(join(t.home, 'config.yaml'), 'utf8').catch(() => '(none)');

  it('"always allow" over the desk runs the call, holds for the connection, and becomes a pending change for the app', async () => {
    const t = await daemon();
    const before = await configText(t);
    const app = t.daemon.service.attachClient('desktop');
    try {
      const client = await serve(t);
      const first = client.callTool({ name: 'bash', arguments: { command: 'touch always.txt' } });
      const q = await pending(t);
      await http(t, 'POST', '/approval', { body: { request_id: q.request_id, decision: 'always_allow' } });
      const r = await first;
      expect(r.isError, textOf(r)).toBeFalsy();
      expect(existsSync(join(t.cwd, 'always.txt'))).toBe(true);
      expect(textOf(r)).toMatch(
        /\[rein\] "always allow" holds for this MCP connection\. Always allow "default": this raises permissions .*Nothing is changed until a person confirms it: run `REIN_HOME=\S+ rein changes accept chg_[0-9a-f]{16}` in a shell on this machine, or confirm it in the Rein desktop app/,
      );
      expect(await configText(t)).toBe(before);
      const changes = (await http(t, 'GET', '/changes')).json.changes;
      // The grant the daemon's runtime would save for this call (its shape is grants.ts's).
      expect(changes).toEqual([
        expect.objectContaining({
          kind: 'always_allow',
          agent: 'default',
          requested_by: 'mcp_serve',
          raises: [
            { field: expect.stringMatching(/^permissions\./), change: expect.stringContaining('touch always.txt') },
          ],
        }),
      ]);
      expect(JSON.stringify(changes[0].request)).toContain('touch always.txt');
      // The same call again on this connection runs without a question.
      const again = await client.callTool({ name: 'bash', arguments: { command: 'touch always.txt' } });
      expect(again.isError, textOf(again)).toBeFalsy();
      expect((await http(t, 'GET', '/approvals')).json.approvals).toEqual([]);
      // A new connection asks again, until a person confirms the change in the app.
      const other = await serve(t);
      const asking = other.callTool({ name: 'bash', arguments: { command: 'touch always.txt' } });
      const q2 = await pending(t);
      await http(t, 'POST', '/approval', { body: { request_id: q2.request_id, decision: 'deny' } });
      expect((await asking).isError).toBe(true);
      await t.daemon.service.answerChange({ change_id: changes[0].change_id, decision: 'apply' }, 'desktop');
      expect(await configText(t)).toContain('touch always.txt');
      expect((await other.callTool({ name: 'bash', arguments: { command: 'touch always.txt' } })).isError).toBeFalsy();
      expect((await http(t, 'GET', '/approvals')).json.approvals).toEqual([]);
    } finally {
      app.dispose();
    }
  });

  it('"always allow" answered in the app’s own window is a pending change too: rein mcp serve never writes config.yaml', async () => {
    const t = await daemon();
    const app = t.daemon.service.attachClient('desktop');
    try {
      const client = await serve(t);
      const first = client.callTool({ name: 'bash', arguments: { command: 'touch in-app.txt' } });
      const q = await pending(t);
      t.daemon.service.answerApproval({ request_id: q.request_id, decision: 'always_allow' }, 'desktop');
      expect((await first).isError).toBeFalsy();
      expect(await configText(t)).toBe('(none)');
      const changes = (await http(t, 'GET', '/changes')).json.changes;
      expect(changes).toEqual([expect.objectContaining({ kind: 'always_allow', requested_by: 'mcp_serve' })]);
      expect(JSON.stringify(changes[0].request)).toContain('touch in-app.txt');
    } finally {
      app.dispose();
    }
  });

  it('without the desktop app, the change waits for `rein changes accept` in a shell, and the result names that command', async () => {
    const t = await daemon();
    const client = await serve(t);
    const first = client.callTool({ name: 'bash', arguments: { command: 'touch headless.txt' } });
    const q = await pending(t);
    await http(t, 'POST', '/approval', { body: { request_id: q.request_id, decision: 'always_allow' } });
    const r = await first;
    expect(r.isError, textOf(r)).toBeFalsy();
    const changes = (await http(t, 'GET', '/changes')).json.changes;
    expect(changes).toEqual([
      expect.objectContaining({
        kind: 'always_allow',
        requested_by: 'mcp_serve',
        accept_command: `REIN_HOME=${t.home} rein changes accept ${changes[0].change_id}`,
      }),
    ]);
    expect(textOf(r)).toContain('[rein] "always allow" holds for this MCP connection.');
    expect(textOf(r)).toContain(
      `Nothing is changed until a person confirms it: run \`${changes[0].accept_command}\` in a shell on this machine (change`,
    );
    expect(textOf(r)).not.toContain('desktop app');
    expect(await configText(t)).toBe('(none)');
    expect((await client.callTool({ name: 'bash', arguments: { command: 'touch headless.txt' } })).isError).toBeFalsy();
    expect((await http(t, 'GET', '/approvals')).json.approvals).toEqual([]);
    await t.daemon.service.answerChange({ change_id: changes[0].change_id, decision: 'apply' }, 'shell');
    expect(await configText(t)).toContain('touch headless.txt');
  });

  it('"always allow" from a client’s own form goes to the running daemon as a pending change too', async () => {
    const t = await daemon();
    const app = t.daemon.service.attachClient('desktop');
    try {
      let asked = 0;
      const client = await serve(
        t,
        new Client({ name: 'forms', version: '1' }, { capabilities: { elicitation: { form: {} } } }),
        (c) =>
          c.setRequestHandler(ElicitRequestSchema, async () => {
            asked++;
            return { action: 'accept', content: { decision: 'always_allow' } };
          }),
      );
      const r = await client.callTool({ name: 'bash', arguments: { command: 'touch by-form.txt' } });
      expect(r.isError, textOf(r)).toBeFalsy();
      expect(textOf(r)).toMatch(
        /Nothing is changed until a person confirms it: run `[^`]*rein changes accept chg_[0-9a-f]{16}` in a shell on this machine, or confirm it in the Rein desktop app/,
      );
      expect(await configText(t)).toBe('(none)');
      const changes = (await http(t, 'GET', '/changes')).json.changes;
      expect(changes).toEqual([expect.objectContaining({ kind: 'always_allow', requested_by: 'mcp_serve' })]);
      expect(JSON.stringify(changes[0].request)).toContain('touch by-form.txt');
      expect(
        (await client.callTool({ name: 'bash', arguments: { command: 'touch by-form.txt' } })).isError,
      ).toBeFalsy();
      expect(asked).toBe(1);
    } finally {
      app.dispose();
    }
  });
});

describe('POST /changes/always-allow', () => {
  it('makes a pending change of the grant the runtime would save, with the command that accepts it in a shell; with the app attached too', async () => {
    const t = await daemon();
    const body = { agent: 'default', tool: 'bash', input: { command: 'npm test' }, cwd: t.cwd };
    const headless = await http(t, 'POST', '/changes/always-allow', { body });
    expect(headless.status, headless.text).toBe(202);
    expect(headless.json).toMatchObject({
      pending: true,
      kind: 'always_allow',
      accept_command: `REIN_HOME=${t.home} rein changes accept ${headless.json.change_id}`,
    });
    expect(headless.json.raises).toEqual([
      { field: expect.stringMatching(/^permissions\./), change: expect.stringContaining('npm test') },
    ]);
    expect(await readFile(join(t.home, 'config.yaml'), 'utf8').catch(() => '(none)')).toBe('(none)');
    const app = t.daemon.service.attachClient('desktop');
    try {
      const ok = await http(t, 'POST', '/changes/always-allow', {
        body: { ...body, tool: 'file_write', input: { path: 'a', content: 'b' } },
      });
      expect(ok.status).toBe(202);
      expect(ok.json).toMatchObject({
        pending: true,
        kind: 'always_allow',
        raises: [{ change: expect.stringContaining('file_write') }],
      });
      expect(await readFile(join(t.home, 'config.yaml'), 'utf8').catch(() => '(none)')).toBe('(none)');
    } finally {
      app.dispose();
    }
  });

  it('checks the body and needs the token', async () => {
    const t = await daemon();
    const body = { agent: 'default', tool: 'bash', input: { command: 'npm test' } };
    expect((await http(t, 'POST', '/changes/always-allow', { body: { ...body, extra: 1 } })).status).toBe(400);
    expect(
      (await http(t, 'POST', '/changes/always-allow', { body: { ...body, agent: 'Bad Name' } })).json,
    ).toMatchObject({ code: 'invalid_request', field: 'agent' });
    expect(
      (await http(t, 'POST', '/changes/always-allow', { body: { agent: 'default', tool: 'bash' } })).json,
    ).toMatchObject({ code: 'invalid_request', field: 'input' });
    expect(
      (await http(t, 'POST', '/changes/always-allow', { body: { ...body, cwd: 'relative/dir' } })).json,
    ).toMatchObject({ field: 'cwd' });
    expect(
      (await http(t, 'POST', '/changes/always-allow', { body: { ...body, tool: 'no_such_tool' } })).json,
    ).toMatchObject({ code: 'invalid_input', field: 'tool' });
    expect((await http(t, 'POST', '/changes/always-allow', { body: { ...body, agent: 'nobody' } })).status).toBe(404);
    expect((await http(t, 'POST', '/changes/always-allow', { body, token: 'f'.repeat(64) })).status).toBe(401);
  });
});
