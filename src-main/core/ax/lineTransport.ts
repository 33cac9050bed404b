/**
 * A line transport: whole lines in, whole lines out, and one close event. JsonRpcPeer speaks over it and
 * never touches a socket; the helper's Unix socket and its stdio pipes are two ways to make one.
 */
import { lstat } from 'node:fs/promises';
import { createConnection, type Socket } from 'node:net';
import { dirname } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { Emitter, type Disposable } from '../base/lifecycle.js';

export interface LineTransport extends Disposable {
  send(line: string): void;
  onLine(listener: (line: string) => void): Disposable;
  onClose(listener: (cause?: Error) => void): Disposable;
  readonly closed: boolean;
}

/** Answers with screenshots inline can be large; a line beyond this closes the connection. */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;

/** Lines over a readable and a writable stream (pipes or a socket). `end` tears the underlying thing down. */
export function streamTransport(input: Readable, output: Writable, end: () => void): LineTransport {
  const lines = new Emitter<string>();
  const closes = new Emitter<Error | undefined>();
  const decoder = new StringDecoder('utf8');
  let buf = '';
  let closed = false;
  const close = (cause?: Error) => {
    if (closed) return;
    closed = true;
    input.off('data', onData);
    closes.fire(cause);
    lines.dispose();
    closes.dispose();
    end();
  };
  const onData = (chunk: Buffer | string) => {
    buf += typeof chunk === 'string' ? chunk : decoder.write(chunk);
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      if (line.trim() !== '') lines.fire(line);
      if (closed) return;
    }
    if (buf.length > MAX_LINE_BYTES) close(new Error(`a line from ax_server was longer than ${MAX_LINE_BYTES} bytes`));
  };
  input.on('data', onData);
  input.once('end', () => close());
  input.once('close', () => close());
  input.on('error', (e: Error) => close(e));
  output.on('error', (e: Error) => close(e));
  return {
    send(line) {
      if (closed) throw new Error('the ax_server connection is closed');
      output.write(line.endsWith('\n') ? line : `${line}\n`);
    },
    onLine: (l) => lines.event(l),
    onClose: (l) => closes.event(l),
    get closed() {
      return closed;
    },
    dispose: () => close(),
  };
}

/**
 * Refuses a socket someone else could have made or can reach: it must be a socket owned by us with no
 * group/other permissions, in a folder owned by us and private to us. (The helper checks the peer's uid
 * from its side.)
 */
export async function checkPrivateSocket(path: string): Promise<void> {
  const uid = process.getuid?.();
  const [sock, dir] = await Promise.all([lstat(path), lstat(dirname(path))]);
  if (!sock.isSocket()) throw new Error(`${path} is not a socket`);
  if (uid !== undefined && (sock.uid !== uid || dir.uid !== uid))
    throw new Error(`${path} or its folder belongs to another user`);
  if ((dir.mode & 0o077) !== 0)
    throw new Error(`the folder of ${path} is open to other users (mode ${(dir.mode & 0o777).toString(8)})`);
  if ((sock.mode & 0o077) !== 0)
    throw new Error(`${path} is open to other users (mode ${(sock.mode & 0o777).toString(8)})`);
}

/** Connects to a private Unix socket (checked first) and gives its lines. */
export async function connectUnixSocket(path: string, timeoutMs = 5_000): Promise<LineTransport> {
  await checkPrivateSocket(path);
  const socket = await new Promise<Socket>((resolve, reject) => {
    const s = createConnection(path);
    const timer = setTimeout(() => {
      s.destroy();
      reject(new Error(`connecting to ${path} took longer than ${timeoutMs} ms`));
    }, timeoutMs);
    s.once('connect', () => {
      clearTimeout(timer);
      resolve(s);
    });
    s.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
  });
  socket.setNoDelay?.(true);
  // Like the helper's process: an idle connection does not keep Rein running (pending calls have timers).
  socket.unref();
  return streamTransport(socket, socket, () => socket.destroy());
}
