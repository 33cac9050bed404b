/**
 * Real MCP peers for tests: the npm servers `@modelcontextprotocol/server-everything` (stdio and
 * Streamable HTTP) and `@modelcontextprotocol/server-filesystem`, and small servers built from the
 * SDK's own pieces for what the npm ones cannot do on cue (drop an SSE stream mid-call, change their
 * tool list, ask for input with defaults).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { EventStore } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { McpServerSettings } from '../../src-main/core/mcpClient/config.js';

const require = createRequire(import.meta.url);
const pkgDir = (name: string) => dirname(require.resolve(`${name}/package.json`));

export const EVERYTHING_BIN = join(pkgDir('@modelcontextprotocol/server-everything'), 'dist', 'index.js');
export const FILESYSTEM_BIN = join(pkgDir('@modelcontextprotocol/server-filesystem'), 'dist', 'index.js');

/** `mcp_servers.<name>` for the everything server over stdio. */
export const everythingStdio = (extra: Partial<McpServerSettings> = {}): McpServerSettings => ({
  type: 'stdio',
  command: process.execPath,
  args: [EVERYTHING_BIN, 'stdio'],
  env: {},
  disabled: false,
  ...extra,
});

export const filesystemStdio = (root: string, extra: Partial<McpServerSettings> = {}): McpServerSettings => ({
  type: 'stdio',
  command: process.execPath,
  args: [FILESYSTEM_BIN, root],
  env: {},
  disabled: false,
  ...extra,
});

export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

export interface ChildServer {
  url: string;
  child: ChildProcess;
  close(): Promise<void>;
}

/** The everything server in its Streamable HTTP mode (`streamableHttp`, PORT from the environment). */
export function startEverythingHttp(): Promise<ChildServer> {
  return startEverything('streamableHttp', '/mcp');
}

/** The everything server in its legacy HTTP+SSE mode (`sse`): GET /sse for the stream, POST /message. */
export function startEverythingSse(): Promise<ChildServer> {
  return startEverything('sse', '/sse');
}

async function startEverything(mode: string, path: string): Promise<ChildServer> {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING_BIN, mode], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let log = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the everything server did not start: ${log}`)), 15_000);
    const onData = (d: Buffer) => {
      log += d.toString();
      if (/listening on port|running on port/i.test(log)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stderr!.on('data', onData);
    child.stdout!.on('data', (d: Buffer) => (log += d.toString()));
    child.once('exit', (code) => reject(new Error(`the everything server exited (${code}): ${log}`)));
  });
  return { url: `http://127.0.0.1:${port}${path}`, child, close: () => killGroup(child) };
}

export async function killGroup(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise<void>((r) => child.once('exit', () => r()));
  try {
    process.kill(-child.pid!, signal);
  } catch {
    child.kill(signal);
  }
  const timer = setTimeout(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // gone
    }
  }, 2_000);
  await gone;
  clearTimeout(timer);
  child.stdout?.destroy();
  child.stderr?.destroy();
}

/** Is this pid (or any of its process group) alive? */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

// ---- servers from the SDK's pieces ------------------------------------------------------------------

/** Events kept per stream, replayed after an id (what a resumable server keeps). */
export class MemoryEventStore implements EventStore {
  readonly events: { id: string; stream: string; message: JSONRPCMessage }[] = [];
  readonly replays: string[] = [];
  async storeEvent(stream: string, message: JSONRPCMessage): Promise<string> {
    const id = `${stream}_${this.events.length}`;
    this.events.push({ id, stream, message });
    return id;
  }
  async getStreamIdForEventId(id: string): Promise<string | undefined> {
    return this.events.find((e) => e.id === id)?.stream;
  }
  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (id: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    this.replays.push(lastEventId);
    const at = this.events.findIndex((e) => e.id === lastEventId);
    const stream = this.events[at]?.stream ?? '';
    for (const e of this.events.slice(at + 1)) if (e.stream === stream) await send(e.id, e.message);
    return stream;
  }
}

export interface SdkServer {
  url: string;
  /** Each request the server saw: method, headers, when. */
  requests: { method: string; lastEventId?: string; at: number }[];
  events: MemoryEventStore;
  /** The servers made so far (one per session). */
  servers: McpServer[];
  close(): Promise<void>;
}

export interface SdkServerOptions {
  /** Registers tools on each session's server. */
  setup(server: McpServer): void;
  /** The `retry` (ms) the server announces on its SSE streams. */
  retryMs?: number;
  instructions?: string;
}

/** A Streamable HTTP MCP server (sessions, resumable streams) from the SDK's server classes, on node:http. */
export async function startSdkServer(o: SdkServerOptions): Promise<SdkServer> {
  const events = new MemoryEventStore();
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const requests: SdkServer['requests'] = [];
  const servers: McpServer[] = [];
  const http: Server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const lastEventId = req.headers['last-event-id'];
    requests.push({
      method: req.method ?? '',
      ...(typeof lastEventId === 'string' ? { lastEventId } : {}),
      at: Date.now(),
    });
    const sid = req.headers['mcp-session-id'];
    let transport = typeof sid === 'string' ? transports.get(sid) : undefined;
    if (!transport) {
      if (req.method !== 'POST') {
        res.writeHead(400).end();
        return;
      }
      const server = new McpServer(
        { name: 'test-server', version: '1.0.0' },
        { capabilities: { tools: { listChanged: true } }, ...(o.instructions ? { instructions: o.instructions } : {}) },
      );
      o.setup(server);
      servers.push(server);
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        eventStore: events,
        ...(o.retryMs !== undefined ? { retryInterval: o.retryMs } : {}),
        onsessioninitialized: (id) => void transports.set(id, transport!),
      });
      await server.connect(transport);
    }
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  return {
    url,
    requests,
    events,
    servers,
    close: async () => {
      for (const s of servers) await s.close().catch(() => undefined);
      http.closeAllConnections();
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}

export { McpServer, z };
