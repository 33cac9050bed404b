/**
 * A model host that is not there yet, as after a wake before Wi-Fi is back: a loopback port where
 * nothing listens (connections are refused) until the test starts a forwarder on it to the fake
 * Messages API.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/** A free loopback port, with nothing listening on it. */
export async function reservePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((ok) => s.listen(0, '127.0.0.1', ok));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((ok) => s.close(() => ok()));
  return port;
}

export interface LateListener {
  /** The base URL to hand the client: refused until `start()`. */
  url: string;
  /** From now on connections reach `target` (the fake's base URL). */
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function lateListener(target: string): Promise<LateListener> {
  const port = await reservePort();
  const to = new URL(target);
  let server: Server | undefined;
  const open = new Set<Socket>();
  return {
    url: `http://127.0.0.1:${port}`,
    async start() {
      server = createServer((sock) => {
        const up = connect(Number(to.port), to.hostname);
        for (const x of [sock, up]) {
          open.add(x);
          x.on('close', () => open.delete(x));
        }
        sock.pipe(up).pipe(sock);
        sock.on('error', () => up.destroy());
        up.on('error', () => sock.destroy());
      });
      await new Promise<void>((ok) => server!.listen(port, '127.0.0.1', ok));
    },
    async close() {
      // Pooled keep-alive connections would hold close() open.
      for (const x of open) x.destroy();
      if (server) await new Promise<void>((ok) => server!.close(() => ok()));
    },
  };
}
