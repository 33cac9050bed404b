/**
 * The legacy HTTP+SSE transport when its event stream breaks in the middle of a session (issue 28): the
 * connection is lost, as a Streamable HTTP one is — reported with why, a call in flight ends at once
 * instead of waiting out its timeout, and the supervisor reconnects to a fresh session. Without this, the
 * SDK's EventSource quietly reconnected to a new server session that was never initialized, and the
 * call's answer (sent on the old stream) never came.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { afterEach, describe, expect, it } from 'vitest';
import { McpConnection } from '../../../src-main/core/mcpClient/connection.js';
import { McpManager } from '../../../src-main/core/mcpClient/manager.js';
import { useLeakCheck } from '../../support/leaks.js';

useLeakCheck();

interface LegacyServer {
  url: string;
  /** GET streams opened so far (one per session). */
  streams: number;
  /** Breaks every open event stream (the server's side of the connection goes away). */
  drop(): void;
  close(): Promise<void>;
}

/** An MCP server that speaks only HTTP+SSE (GET /sse, POST /messages), with a tool that never answers by itself. */
async function startLegacySse(): Promise<LegacyServer> {
  const sessions = new Map<string, { transport: SSEServerTransport; res: ServerResponse }>();
  const state = { streams: 0 };
  const http: Server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method === 'GET' && url.pathname === '/sse') {
      state.streams++;
      const server = new McpServer({ name: 'legacy', version: '1.0.0' });
      server.registerTool('echo', { inputSchema: {} }, async () => ({ content: [{ type: 'text', text: 'echo' }] }));
      server.registerTool('hang', { inputSchema: {} }, () => new Promise(() => undefined));
      const transport = new SSEServerTransport('/messages', res);
      sessions.set(transport.sessionId, { transport, res });
      res.on('close', () => sessions.delete(transport.sessionId));
      await server.connect(transport);
      return;
    }
    if (req.method === 'POST' && url.pathname === '/messages') {
      const s = sessions.get(url.searchParams.get('sessionId') ?? '');
      if (!s) {
        res.writeHead(404).end('unknown session');
        return;
      }
      await s.transport.handlePostMessage(req, res);
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/sse`,
    get streams() {
      return state.streams;
    },
    drop: () => {
      for (const s of sessions.values()) s.res.destroy();
    },
    close: () =>
      new Promise<void>((ok) => {
        http.closeAllConnections();
        http.close(() => ok());
      }),
  };
}

let legacy: LegacyServer | undefined;
const managers: McpManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.dispose()));
  await legacy?.close();
  legacy = undefined;
});

const server = (url: string) => ({
  name: 'old',
  transport: { kind: 'http' as const, url: new URL(url), headers: {}, via: 'sse' as const },
  connectTimeoutMs: 15_000,
  toolTimeoutMs: 60_000,
  alwaysAllow: [],
});

describe('HTTP+SSE: an event stream that drops mid-session', () => {
  it('is a lost connection: reported with why, and a call in flight ends at once instead of at its timeout', async () => {
    legacy = await startLegacySse();
    const lost: string[] = [];
    const conn = await McpConnection.open(server(legacy.url), {
      baseEnv: process.env,
      onLost: (why) => lost.push(why),
    });
    try {
      expect(conn.httpTransport).toBe('sse');
      const call = conn.callTool('hang', {}, { signal: new AbortController().signal, timeoutMs: 60_000 });
      const settled = call.then(
        () => 'answered',
        (e: unknown) => `failed: ${String(e)}`,
      );
      // The call is on its way (the server holds it); then the stream breaks.
      await expect.poll(() => legacy!.streams).toBe(1);
      legacy.drop();
      await expect.poll(() => lost).toEqual([expect.stringMatching(/^the HTTP\+SSE event stream closed/)]);
      expect(conn.closed).toBe(true);
      expect(await settled).toMatch(/^failed: .*(closed|Connection)/i);
      // No quiet reconnect to an uninitialized session: the stream was not reopened.
      expect(legacy.streams).toBe(1);
    } finally {
      await conn.dispose();
    }
  });

  it('the supervisor reconnects it to a fresh session, and its tools answer again', async () => {
    legacy = await startLegacySse();
    const m = new McpManager({
      env: process.env,
      home: '/nonexistent-rein-home',
      servers: { old: { type: 'sse', url: legacy.url, args: [], env: {}, disabled: false } as never },
    });
    managers.push(m);
    await m.ready();
    expect(m.server('old')!.status().state).toBe('healthy');
    legacy.drop();
    await expect.poll(() => m.server('old')!.status().state).not.toBe('healthy');
    // A call reconnects on demand, over a new event stream.
    const r = await m.server('old')!.callRaw('echo', {}, { signal: new AbortController().signal });
    expect(r.content).toEqual([{ type: 'text', text: 'echo' }]);
    expect(legacy.streams).toBe(2);
  });
});
