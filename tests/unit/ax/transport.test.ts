// The line transport and its socket checks, JsonRpcPeer's rules on an in-memory transport, and where the
// helper is looked for.
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { Emitter } from '../../../src-main/core/base/lifecycle.js';
import { locateHelper } from '../../../src-main/core/ax/helperProcess.js';
import { JsonRpcPeer } from '../../../src-main/core/ax/jsonRpcPeer.js';
import { checkPrivateSocket, streamTransport, type LineTransport } from '../../../src-main/core/ax/lineTransport.js';
import { useLeakCheck } from '../../support/leaks.js';

useLeakCheck();

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

function memoryTransport() {
  const lines = new Emitter<string>();
  const closes = new Emitter<Error | undefined>();
  const sent: string[] = [];
  let closed = false;
  const t: LineTransport = {
    send: (l) => void sent.push(l),
    onLine: (l) => lines.event(l),
    onClose: (l) => closes.event(l),
    get closed() {
      return closed;
    },
    dispose: () => {
      closed = true;
      closes.fire(undefined);
    },
  };
  return { t, sent, answer: (obj: unknown) => lines.fire(JSON.stringify(obj)), close: () => t.dispose() };
}

describe('streamTransport', () => {
  it('splits lines across chunks and multi-byte characters, and closes once', () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let ended = 0;
    const t = streamTransport(input, output, () => ended++);
    const got: string[] = [];
    t.onLine((l) => got.push(l));
    const euro = Buffer.from('{"a":"€"}\n{"b":1}\n');
    input.write(euro.subarray(0, 7));
    input.write(euro.subarray(7));
    expect(got).toEqual(['{"a":"€"}', '{"b":1}']);
    t.send('{"x":1}');
    expect(output.read().toString()).toBe('{"x":1}\n');
    t.dispose();
    t.dispose();
    expect(ended).toBe(1);
    expect(() => t.send('x')).toThrow(/closed/);
  });
});

describe('checkPrivateSocket', () => {
  it('accepts only a 0600 socket of ours in a 0700 folder', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rein-sock-'));
    dirs.push(dir);
    const path = join(dir, 's.sock');
    const server = createServer();
    await new Promise<void>((ok) => server.listen(path, ok));
    try {
      await chmod(path, 0o666);
      await expect(checkPrivateSocket(path)).rejects.toThrow(/open to other users/);
      await chmod(path, 0o600);
      await checkPrivateSocket(path);
      await chmod(dir, 0o755);
      await expect(checkPrivateSocket(path)).rejects.toThrow(/folder .* is open to other users/);
      await expect(checkPrivateSocket(join(dir, 'nothing'))).rejects.toThrow();
    } finally {
      await new Promise<void>((ok) => server.close(() => ok()));
    }
  });
});

describe('JsonRpcPeer', () => {
  it('settles by id, ignores strays and late answers, and fails everything pending when closed', async () => {
    const m = memoryTransport();
    const peer = new JsonRpcPeer(m.t, () => 'it exited with code 3');
    const a = peer.request('ping', {}, { timeoutMs: 1_000 });
    const b = peer.request('find', { role: 'button' }, { timeoutMs: 1_000 });
    const [ra, rb] = m.sent.map((l) => JSON.parse(l) as { id: number; method: string; jsonrpc: string });
    expect(ra).toMatchObject({ jsonrpc: '2.0', method: 'ping' });
    m.answer({ jsonrpc: '2.0', id: 999, result: {} });
    m.answer('not json at all');
    m.answer({
      jsonrpc: '2.0',
      id: rb!.id,
      error: { code: -32003, message: 'two match', data: { code: 'AMBIGUOUS' } },
    });
    await expect(b).rejects.toMatchObject({ code: 'AMBIGUOUS', method: 'find' });
    m.close();
    await expect(a).rejects.toMatchObject({
      code: 'HELPER_EXITED',
      message: 'ax_server stopped while ping was pending: it exited with code 3',
    });
    await expect(peer.request('ping', {}, { timeoutMs: 10 })).rejects.toMatchObject({ code: 'HELPER_EXITED' });
    peer.dispose();
  });
});

describe('locateHelper', () => {
  it('finds the Linux helper script in the checkout, and says why it cannot run', () => {
    const found = locateHelper({ platform: 'linux', env: { REIN_AX_PYTHON: process.execPath } });
    expect(found).toMatchObject({ ok: true, spec: { kind: 'child', file: process.execPath, transport: 'socket' } });
    if (found.ok) expect(found.spec.args[0]).toMatch(/native\/ax_server\/linux\/ax_server\.py$/);
    expect(locateHelper({ platform: 'linux', env: { REIN_AX_PYTHON: '/no/python' } })).toMatchObject({
      ok: false,
      reason: expect.stringContaining('/no/python'),
    });
    expect(locateHelper({ platform: 'darwin', env: {} })).toMatchObject({
      ok: false,
      reason: expect.stringContaining('Rein AX.app'),
    });
    expect(
      locateHelper({ platform: 'linux', env: { REIN_AX_PYTHON: process.execPath, REIN_AX_TRANSPORT: 'stdio' } }),
    ).toMatchObject({ ok: true, spec: { transport: 'stdio' } });
  });

  it('gives the helper an environment without Rein’s credentials', () => {
    const found = locateHelper({
      platform: 'linux',
      env: { REIN_AX_PYTHON: process.execPath, ANTHROPIC_API_KEY: 'sk-ant-xxxxxxxxxxxx', DISPLAY: ':5' },
    });
    expect(found.ok && found.spec.env).toMatchObject({ DISPLAY: ':5' });
    expect(found.ok && found.spec.env.ANTHROPIC_API_KEY).toBeUndefined();
  });
});
