/**
 * MCP servers in the daemon: `GET /mcp/servers` (idle before any run, healthy after, per agent), an
 * agent run over POST /message calling `mcp__everything__echo`, a server's question answered through
 * the approval desk (GET /approvals shows the form, POST /approval sends the values), and the servers
 * stopped with the daemon.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeAnthropic, text, toolCall, tools, type FakeAnthropic } from '../support/fakeAnthropic.js';
import { useLeakCheck } from '../support/leaks.js';
import { everythingStdio } from '../support/mcpPeers.js';
import { http, startTestDaemon, type TestDaemon } from './daemon/support.js';

useLeakCheck();

let fake: FakeAnthropic;
let d: TestDaemon;

beforeEach(async () => {
  fake = await startFakeAnthropic();
  d = await startTestDaemon(fake, {
    config: {
      mcp_servers: {
        everything: everythingStdio({ always_allow: ['echo', 'trigger-elicitation-request'], context: 'Test server.' }),
        off: { ...everythingStdio(), disabled: true },
      },
    },
  });
});
afterEach(async () => {
  await d.daemon.dispose();
  await fake.close();
});

describe('MCP in the daemon', () => {
  it('GET /mcp/servers: idle until a run needs them, then healthy with their tools', async () => {
    const before = await http(d, 'GET', '/mcp/servers');
    expect(before.status).toBe(200);
    expect(before.json.agents).toEqual([
      {
        agent: 'default',
        servers: [
          expect.objectContaining({
            name: 'everything',
            type: 'stdio',
            state: 'idle',
            tools: 0,
            sign_in_required: false,
          }),
          expect.objectContaining({ name: 'off', state: 'disabled' }),
        ],
      },
    ]);

    fake.enqueue(tools([toolCall('mcp__everything__echo', { message: 'from the daemon' })]), text('echoed'));
    const res = await http(d, 'POST', '/message', { body: { text: 'echo something' } });
    expect(res.json).toMatchObject({ stop_reason: 'final', text: 'echoed' });
    const results = JSON.stringify(fake.requests[1]!.body.messages.at(-1));
    expect(results).toContain('Echo: from the daemon');

    const after = await http(d, 'GET', '/mcp/servers?agent=default');
    const everything = after.json.agents[0].servers[0];
    expect(everything).toMatchObject({
      name: 'everything',
      state: 'healthy',
      server: { name: 'mcp-servers/everything' },
    });
    expect(everything.tools).toBeGreaterThan(5);
    expect(typeof everything.last_ok_at).toBe('string');

    expect((await http(d, 'GET', '/mcp/servers?agent=nobody')).status).toBe(404);
    expect((await http(d, 'GET', '/mcp/servers?bogus=1')).status).toBe(400);
  });

  it('a server’s question goes to the approval desk as a form; the values sent with POST /approval reach the server', async () => {
    fake.enqueue(tools([toolCall('mcp__everything__trigger-elicitation-request', {})]), text('filled'));
    const answer = http(d, 'POST', '/message', { body: { text: 'ask me' } });
    let pending: any;
    await expect
      .poll(
        async () => {
          pending = (await http(d, 'GET', '/approvals')).json.approvals[0];
          return pending?.layer;
        },
        { timeout: 10_000 },
      )
      .toBe('elicitation');
    expect(pending.form.message).toMatch(/provide inputs/);
    expect(Object.keys(pending.form.schema.properties)).toEqual(expect.arrayContaining(['name', 'check', 'email']));
    const posted = await http(d, 'POST', '/approval', {
      body: { request_id: pending.request_id, decision: 'allow', values: { name: 'Hedy', check: true } },
    });
    expect(posted.status).toBe(200);
    expect((await answer).json).toMatchObject({ stop_reason: 'final', text: 'filled' });
    expect(JSON.stringify(fake.requests[1]!.body.messages.at(-1))).toContain('Hedy');
  });
});
