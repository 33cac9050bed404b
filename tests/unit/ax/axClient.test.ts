// The AXClient against a fake ax_server on a real socket: request ids and errors, lazy start shared by
// concurrent callers, per-method timeouts, mutations that wait for their ack, a crash failing what was in
// flight and the next call starting a new helper, the restart limit, and the idle stop.
import { afterEach, describe, expect, it } from 'vitest';
import { AXClient } from '../../../src-main/core/ax/axClient.js';
import { isAxError } from '../../../src-main/core/ax/axError.js';
import { useLeakCheck } from '../../support/leaks.js';
import { fakeAxServer, HELLO, type FakeAxServer } from './fakeAxServer.js';

useLeakCheck();

const target = { id: ':1.2|/x/1', role: 'button' as const, name: 'Save', app: { pid: 7, name: 'app' }, ancestry: [] };

const servers: FakeAxServer[] = [];
const clients: AXClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.disposeAsync();
  for (const s of servers.splice(0)) await s.close();
});

async function setup(reply: FakeAxServer['reply'], opts: ConstructorParameters<typeof AXClient>[0] = {}) {
  const server = await fakeAxServer(reply);
  servers.push(server);
  const client = new AXClient({ connect: server.connect, idleMs: 0, ...opts });
  clients.push(client);
  return { server, client };
}

describe('AXClient', () => {
  it('reports a JSON-RPC error as an AxError naming the method, its code and hint', async () => {
    const { client } = await setup(() => ({
      error: { code: -32001, message: 'the element changed', data: { code: 'STALE_REF', hint: 'take a new snapshot' } },
    }));
    const err = await client.call('click', { target }).catch((e: unknown) => e);
    expect(err).toMatchObject({
      name: 'AxError',
      code: 'STALE_REF',
      method: 'click',
      rpcCode: -32001,
      hint: 'take a new snapshot',
      message: 'the element changed',
    });
  });

  it('starts the helper once for concurrent first calls, says hello, and numbers its requests', async () => {
    const { server, client } = await setup(() => ({ result: { ok: true } }));
    await Promise.all([client.call('ping', {}), client.call('ping', {}), client.call('ping', {})]);
    expect(server.connections).toBe(1);
    expect(server.requests.map((r) => r.method)).toEqual(['hello', 'ping', 'ping', 'ping']);
    expect(server.requests[0]!.params).toMatchObject({ protocol: 1 });
    expect(new Set(server.requests.map((r) => r.id)).size).toBe(4);
    expect(client.hello).toMatchObject(HELLO);
  });

  it('refuses invalid params before sending and an answer of the wrong shape after', async () => {
    const { server, client } = await setup(() => ({ result: { nonsense: true } }));
    // @ts-expect-error: the schema says what set_value takes
    await expect(client.call('set_value', { target })).rejects.toMatchObject({ code: 'INVALID', method: 'set_value' });
    expect(server.requests).toHaveLength(0);
    await expect(client.call('snapshot', {})).rejects.toMatchObject({
      code: 'PROTOCOL',
      message: expect.stringContaining('unexpected shape'),
    });
  });

  it('refuses a helper that speaks another protocol version', async () => {
    const { client } = await setup(() => ({ result: {} }));
    HELLO.protocol = 2;
    try {
      await expect(client.call('ping', {})).rejects.toMatchObject({
        code: 'PROTOCOL',
        message: expect.stringContaining('protocol 2'),
      });
    } finally {
      HELLO.protocol = 1;
    }
  });

  it('times a read out with TIMEOUT and a mutation with COMMIT_UNKNOWN', async () => {
    const { client } = await setup(() => undefined, { timeouts: { list_apps: 100, click: 100 } });
    await expect(client.call('list_apps', {})).rejects.toMatchObject({ code: 'TIMEOUT', method: 'list_apps' });
    await expect(client.call('click', { target })).rejects.toMatchObject({
      code: 'COMMIT_UNKNOWN',
      message: expect.stringContaining('may or may not have happened'),
    });
  });

  it('abandons a cancelled read at once, but a cancelled mutation still waits for its acknowledgement', async () => {
    let release!: () => void;
    const acked = new Promise<void>((ok) => (release = ok));
    const { client, server } = await setup(async (req) => {
      if (req.method === 'click') await acked;
      return {
        result:
          req.method === 'click'
            ? { acted_on: { id: 'x', role: 'button', name: 'Save', bounds: null, resolved_by: 'identity' } }
            : { apps: [] },
      };
    });
    await client.start();
    const read = new AbortController();
    const pendingRead = client.call('find', { role: 'button' }, { signal: read.signal });
    read.abort();
    await expect(pendingRead).rejects.toMatchObject({ code: 'CANCELLED' });
    const act = new AbortController();
    const pendingClick = client.call('click', { target }, { signal: act.signal });
    // Cancelled once it was sent (a call cancelled before sending is simply not sent).
    await expect.poll(() => server.requests.some((r) => r.method === 'click')).toBe(true);
    act.abort();
    let settled = false;
    void pendingClick.finally(() => (settled = true)).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 50));
    expect(settled).toBe(false);
    release();
    // The click happened; the caller learns what it acted on rather than a false "cancelled".
    await expect(pendingClick).resolves.toMatchObject({ acted_on: { name: 'Save' } });
  });

  it('fails the calls in flight when the helper dies, and starts a new one on the next call', async () => {
    const { server, client } = await setup((req) => (req.method === 'wait_for' ? undefined : { result: { ok: true } }));
    await client.start();
    const exits: string[] = [];
    client.onDidExit((why) => exits.push(why));
    const pending = [
      client.call('wait_for', { condition: 'exists', query: { name: 'x' } }),
      client.call('wait_for', { condition: 'gone', query: { name: 'y' } }),
    ];
    await new Promise((r) => setTimeout(r, 30));
    server.crash();
    const errors = await Promise.all(pending.map((p) => p.catch((e: unknown) => e)));
    for (const e of errors) {
      expect(isAxError(e, 'HELPER_EXITED')).toBe(true);
      expect((e as Error).message).toMatch(/^ax_server stopped while wait_for was pending: it was killed by SIGKILL/);
    }
    expect(exits).toEqual(['it was killed by SIGKILL']);
    expect(client.running).toBe(false);
    await expect(client.call('ping', {})).resolves.toEqual({ ok: true });
    expect(server.connections).toBe(2);
    expect(client.starts).toBe(2);
  });

  it('stops restarting a helper that keeps crashing', async () => {
    const { client } = await setup(() => 'crash', { maxRestarts: 3, restartWindowMs: 60_000 });
    for (let i = 0; i < 3; i++) await expect(client.call('ping', {})).rejects.toMatchObject({ code: 'HELPER_EXITED' });
    await expect(client.call('ping', {})).rejects.toMatchObject({
      code: 'HELPER_UNAVAILABLE',
      message: expect.stringContaining('3 times'),
    });
  });

  it('says HELPER_UNAVAILABLE when no helper can be started', async () => {
    const client = new AXClient({ idleMs: 0 }, { platform: 'win32' });
    clients.push(client);
    await expect(client.call('ping', {})).rejects.toMatchObject({
      code: 'HELPER_UNAVAILABLE',
      message: expect.stringContaining('win32'),
    });
  });

  it('stops an idle helper and starts it again when needed; dispose fails what is pending', async () => {
    const { server, client } = await setup(
      (req) => (req.method === 'wait_for' ? undefined : { result: { ok: true } }),
      { idleMs: 50 },
    );
    await client.call('ping', {});
    await expect.poll(() => client.running).toBe(false);
    await client.call('ping', {});
    expect(server.connections).toBe(2);
    const pending = client.call('wait_for', { condition: 'exists', query: { name: 'x' } });
    await new Promise((r) => setTimeout(r, 20));
    client.dispose();
    await expect(pending).rejects.toMatchObject({ code: 'CANCELLED' });
    await expect(client.call('ping', {})).rejects.toMatchObject({ code: 'CANCELLED' });
  });
});
