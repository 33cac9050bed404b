/** A fake ax_server on a real private Unix socket: answers each request with what `reply` says. */
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectUnixSocket } from '../../../src-main/core/ax/lineTransport.js';
import type { HelperConnection } from '../../../src-main/core/ax/helperProcess.js';

export interface FakeRequest {
  id: number;
  method: string;
  params: Record<string, unknown>;
}

/** An object to answer with ({result} or {error}); undefined: never answer; 'crash': drop every connection. */
export type FakeAnswer = Record<string, unknown> | undefined | 'crash';

export const HELLO = {
  protocol: 1,
  helper: { name: 'fake', version: '0', platform: 'linux', pid: 4242 },
  capabilities: [],
  screen: { width: 1000, height: 500, scale: 1 },
};

export interface FakeAxServer {
  path: string;
  requests: FakeRequest[];
  /** Connections made so far (one per helper start). */
  connections: number;
  reply: (req: FakeRequest) => FakeAnswer | Promise<FakeAnswer>;
  /** Drops every open connection, as a crashing helper does. */
  crash(): void;
  /** A `connect` for AXClient: each call is a new "helper" connection. */
  connect: () => Promise<HelperConnection>;
  close(): Promise<void>;
}

export async function fakeAxServer(reply: FakeAxServer['reply'] = () => ({ result: {} })): Promise<FakeAxServer> {
  const dir = await mkdtemp(join(tmpdir(), 'rein-fake-ax-'));
  const path = join(dir, 'ax.sock');
  const sockets = new Set<Socket>();
  const fake: FakeAxServer = {
    path,
    requests: [],
    connections: 0,
    reply,
    crash: () => {
      for (const s of sockets) s.destroy();
    },
    connect: async () => {
      const transport = await connectUnixSocket(path);
      let closed = false;
      transport.onClose(() => (closed = true));
      return {
        transport,
        pid: 4242,
        describeExit: () => (closed ? 'it was killed by SIGKILL' : 'the connection closed'),
        kill: () => transport.dispose(),
        dispose: async () => transport.dispose(),
      };
    },
    close: async () => {
      fake.crash();
      await new Promise<void>((ok) => server.close(() => ok()));
      await rm(dir, { recursive: true, force: true });
    },
  };
  const server: Server = createServer((conn) => {
    fake.connections++;
    sockets.add(conn);
    conn.on('close', () => sockets.delete(conn));
    conn.on('error', () => undefined);
    let buf = '';
    conn.setEncoding('utf8');
    conn.on('data', (chunk: string) => {
      buf += chunk;
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const req = JSON.parse(buf.slice(0, nl)) as FakeRequest;
        buf = buf.slice(nl + 1);
        fake.requests.push(req);
        void (async () => {
          const answer = req.method === 'hello' ? { result: HELLO } : await fake.reply(req);
          if (answer === 'crash') fake.crash();
          else if (answer !== undefined && !conn.destroyed)
            conn.write(`${JSON.stringify({ jsonrpc: '2.0', id: req.id, ...answer })}\n`);
        })();
      }
    });
  });
  await new Promise<void>((ok) => server.listen(path, ok));
  await chmod(path, 0o600);
  return fake;
}
