/**
 * The MCP client over Streamable HTTP: the real server-everything in its streamableHttp mode, and
 * servers made of the SDK's own pieces for what must happen on cue — an SSE stream dropped in the
 * middle of a call (resumed after the server's `retry` with `Last-Event-ID`), a tool list that changes
 * (`notifications/tools/list_changed`), a server that goes away.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { McpManager } from '../../../src-main/core/mcpClient/manager.js';
import type { McpServerSettings } from '../../../src-main/core/mcpClient/config.js';
import { ToolSet } from '../../../src-main/core/tools/toolSet.js';
import { borrowedProvider } from '../../../src-main/core/tools/provider.js';
import { ELICITATION_SLOT } from '../../../src-main/core/mcpClient/elicitation.js';
import { sessionSlots } from '../../../src-main/core/tools/sessionSlots.js';
import { useLeakCheck } from '../../support/leaks.js';
import { startEverythingHttp, startSdkServer, z, type ChildServer, type SdkServer } from '../../support/mcpPeers.js';
import { makeToolContext } from '../tools/toolTestContext.js';

useLeakCheck();

const http = (url: string, extra: Partial<McpServerSettings> = {}): McpServerSettings => ({
  type: 'http',
  url,
  args: [],
  env: {},
  disabled: false,
  ...extra,
});
const signal = () => new AbortController().signal;

let everything: ChildServer;
let managers: McpManager[] = [];
let servers: SdkServer[] = [];

beforeAll(async () => {
  everything = await startEverythingHttp();
});
afterAll(async () => {
  await everything.close();
});
afterEach(async () => {
  await Promise.all(managers.map((m) => m.dispose()));
  await Promise.all(servers.map((s) => s.close()));
  managers = [];
  servers = [];
});

function manager(
  servers: Record<string, McpServerSettings>,
  connection?: ConstructorParameters<typeof McpManager>[0]['connection'],
): McpManager {
  const m = new McpManager({
    servers,
    env: { ...process.env, TEST_TOKEN: 'secret-42' },
    home: '/nonexistent-rein-home',
    ...(connection ? { connection } : {}),
  });
  managers.push(m);
  return m;
}

describe('server-everything over Streamable HTTP', () => {
  it('connects, lists and calls; a question during a call reaches the elicitor', async () => {
    const m = manager({ everything: http(everything.url) });
    await m.ready();
    expect(m.status()[0]).toMatchObject({ type: 'http', state: 'healthy' });
    const tools = await m.providers[0]!.tools();
    const t = await makeToolContext();
    try {
      const echo = tools.find((x) => x.name === 'mcp__everything__echo')!;
      expect(await echo.call({ message: 'over http' }, t.ctx, signal())).toEqual({
        ok: true,
        content: 'Echo: over http',
      });
      sessionSlots(t.ctx).seed(ELICITATION_SLOT, async () => ({
        action: 'accept',
        content: { name: 'Grace', check: true },
      }));
      const r = await tools
        .find((x) => x.name === 'mcp__everything__trigger-elicitation-request')!
        .call({}, t.ctx, signal());
      expect(r.content).toMatch(/Grace/);
    } finally {
      await t.cleanup();
    }
  });
});

describe('Streamable HTTP details', () => {
  it('resumes an SSE stream dropped mid-call: waits the server’s retry, sends Last-Event-ID, gets the answer', async () => {
    let closedAt = 0;
    const s = await startSdkServer({
      retryMs: 400,
      setup: (server) =>
        server.registerTool(
          'slow',
          { description: 'Answers after its stream was dropped', inputSchema: { n: z.number() } },
          async ({ n }, extra) => {
            await new Promise((r) => setTimeout(r, 50));
            closedAt = Date.now();
            extra.closeSSEStream?.();
            await new Promise((r) => setTimeout(r, 100));
            return { content: [{ type: 'text', text: `done ${n}` }] };
          },
        ),
    });
    servers.push(s);
    const m = manager({ s: http(s.url) });
    await m.ready();
    const t = await makeToolContext();
    try {
      const tool = (await m.providers[0]!.tools()).find((x) => x.name === 'mcp__s__slow')!;
      const r = await tool.call({ n: 7 }, t.ctx, signal());
      expect(r).toEqual({ ok: true, content: 'done 7' });
      const resumed = s.requests.filter((q) => q.method === 'GET' && q.lastEventId !== undefined);
      expect(resumed.length).toBeGreaterThanOrEqual(1);
      expect(s.events.replays).toContain(resumed[0]!.lastEventId);
      // It waited the retry the server announced (400 ms), not its own 1 s default.
      expect(resumed[0]!.at - closedAt).toBeGreaterThanOrEqual(380);
      expect(resumed[0]!.at - closedAt).toBeLessThan(950);
    } finally {
      await t.cleanup();
    }
  });

  it('tools/list_changed re-lists; a real change announces a new registry, the same list keeps it', async () => {
    let extra: ReturnType<typeof Object> | undefined;
    const s = await startSdkServer({
      setup: (server) => {
        server.registerTool('one', { description: 'First', inputSchema: {} }, async () => ({
          content: [{ type: 'text', text: '1' }],
        }));
        server.registerTool('add-two', { description: 'Adds the tool two', inputSchema: {} }, async () => {
          extra = server.registerTool('two', { description: 'Second', inputSchema: {} }, async () => ({
            content: [{ type: 'text', text: '2' }],
          }));
          return { content: [{ type: 'text', text: 'added' }] };
        });
        server.registerTool(
          'ping-list',
          { description: 'Says the list changed when it did not', inputSchema: {} },
          async () => {
            server.sendToolListChanged();
            return { content: [{ type: 'text', text: 'sent' }] };
          },
        );
      },
    });
    servers.push(s);
    const m = manager({ s: http(s.url) });
    await m.ready();
    const set = new ToolSet(m.providers.map(borrowedProvider));
    const r1 = await set.registry();
    expect(r1.names()).toEqual(['mcp__s__add-two', 'mcp__s__one', 'mcp__s__ping-list']);
    const changes: string[][] = [];
    set.onDidChange((r) => changes.push(r.names()));
    const t = await makeToolContext();
    try {
      await r1.get('mcp__s__ping-list')!.call({}, t.ctx, signal());
      await new Promise((r) => setTimeout(r, 300));
      expect(changes).toEqual([]);
      expect(await set.registry()).toBe(r1);
      await r1.get('mcp__s__add-two')!.call({}, t.ctx, signal());
      await expect.poll(() => changes.length, { timeout: 3_000 }).toBe(1);
      expect(changes[0]).toEqual(['mcp__s__add-two', 'mcp__s__one', 'mcp__s__ping-list', 'mcp__s__two']);
      const r2 = await set.registry();
      // The tools that did not change are the very same objects (their cached definitions too).
      expect(r2.get('mcp__s__one')).toBe(r1.get('mcp__s__one'));
      expect(extra).toBeDefined();
    } finally {
      await t.cleanup();
      set.dispose();
    }
  });

  it('headers from the config reach the server, ${VAR} read from the environment', async () => {
    let seen: string | undefined;
    const s = await startSdkServer({
      setup: (server) =>
        server.registerTool(
          'auth',
          { description: 'Shows the Authorization header', inputSchema: {} },
          async (_a, e) => {
            seen = String(e.requestInfo?.headers.authorization ?? '');
            return { content: [{ type: 'text', text: 'ok' }] };
          },
        ),
    });
    servers.push(s);
    const m = manager({
      s: http(s.url, { headers: { Authorization: 'Bearer ${TEST_TOKEN}' } }),
      missing: http(s.url, { headers: { 'X-Key': '${NOT_SET_ANYWHERE}' } }),
    });
    await m.ready();
    const t = await makeToolContext();
    try {
      await (await m.server('s')!.tools())[0]!.call({}, t.ctx, signal());
      expect(seen).toBe('Bearer secret-42');
      expect(m.server('missing')!.status()).toMatchObject({
        state: 'disconnected',
        last_error: expect.stringMatching(/NOT_SET_ANYWHERE is not set/),
      });
    } finally {
      await t.cleanup();
    }
  });

  it('a server that went away: the call says so (transient), the tools stay listed, it comes back on demand', async () => {
    const s = await startSdkServer({
      setup: (server) =>
        server.registerTool(
          'hi',
          { description: 'Hi', inputSchema: {}, annotations: { readOnlyHint: true } },
          async () => ({ content: [{ type: 'text', text: 'hi' }] }),
        ),
    });
    const m = manager({ s: http(s.url) });
    await m.ready();
    const tool = (await m.providers[0]!.tools())[0]!;
    const url = new URL(s.url);
    await s.close();
    const t = await makeToolContext();
    try {
      const r = await tool.call({}, t.ctx, signal());
      expect(r.ok).toBe(false);
      expect(r.errorKind).toBe('transient');
      expect((await m.providers[0]!.tools()).map((x) => x.name)).toEqual(['mcp__s__hi']);
      // The same port again: the next call reconnects.
      const again = await startSdkServerOn(Number(url.port));
      servers.push(again);
      expect(await tool.call({}, t.ctx, signal())).toEqual({ ok: true, content: 'hi' });
    } finally {
      await t.cleanup();
    }
  });
});

/** A server answering on the old port again: a small proxy there, in front of a new SDK server. */
async function startSdkServerOn(port: number): Promise<SdkServer> {
  const { createServer } = await import('node:http');
  const s = await startSdkServer({
    setup: (server) =>
      server.registerTool(
        'hi',
        { description: 'Hi', inputSchema: {}, annotations: { readOnlyHint: true } },
        async () => ({ content: [{ type: 'text', text: 'hi' }] }),
      ),
  });
  const proxy = createServer((req, res) => {
    const target = new URL(s.url);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void fetch(`${target.origin}${req.url}`, {
        method: req.method!,
        headers: req.headers as Record<string, string>,
        ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
      }).then(async (r) => {
        res.writeHead(r.status, Object.fromEntries(r.headers.entries()));
        const reader = r.body?.getReader();
        for (;;) {
          const step = reader
            ? await reader.read().catch(() => ({ done: true as const, value: undefined }))
            : { done: true as const, value: undefined };
          if (step.done) break;
          res.write(step.value);
        }
        res.end();
      });
    });
  });
  await new Promise<void>((r) => proxy.listen(port, '127.0.0.1', r));
  return {
    ...s,
    close: async () => {
      proxy.closeAllConnections();
      await new Promise<void>((r) => proxy.close(() => r()));
      await s.close();
    },
  };
}
