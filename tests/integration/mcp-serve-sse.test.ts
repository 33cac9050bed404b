/**
 * `rein mcp serve --http` and SSE polling (SEP-1699, issue 28 item 4): every POST stream of a 2025-11-25
 * client starts with a priming event (an id, `retry`, empty data), and a stream that broke mid-call is
 * resumed with Last-Event-ID, the call's answer arriving on the new stream. The standalone GET stream
 * starts with one too, so a client that lost it is replayed the notifications sent while it was away.
 * The resources answer over HTTP as over stdio.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paths } from '../../src-main/core/config/paths.js';
import { newSessionId } from '../../src-main/core/sessions/id.js';
import { startRein, tempHome, type CliResult } from '../support/cli.js';
import { useLeakCheck } from '../support/leaks.js';

useLeakCheck();

interface Served {
  child: ChildProcess;
  done: Promise<CliResult>;
  url: URL;
  token: string;
}

async function serveHttp(home: string, cwd: string, userHome: string): Promise<Served> {
  const env = { PATH: process.env.PATH ?? '', HOME: userHome, REIN_HOME: home, LANG: 'C.UTF-8' };
  const { child, done } = startRein(['mcp', 'serve', '--http', '--port', '0'], { env, cwd });
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    const onData = (d: string) => {
      out += d;
      const nl = out.indexOf('\n');
      if (nl >= 0) {
        child.stdout!.off('data', onData);
        resolve(out.slice(0, nl));
      }
    };
    child.stdout!.on('data', onData);
    void done.then((r) => reject(new Error(`rein mcp serve --http exited ${r.code}: ${r.stderr}`)));
  });
  const url = new URL(line);
  return { child, done, url, token: url.searchParams.get('token')! };
}

const endpoint = (s: Served) => `${s.url.origin}${s.url.pathname}`;

function post(s: Served, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(endpoint(s), {
    method: 'POST',
    headers: {
      authorization: `Bearer ${s.token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

const init = (protocolVersion: string) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

/** SSE events of a body: each as its fields (`id`, `retry`, `data`…). */
function parseSse(textBody: string): Array<Record<string, string>> {
  return textBody
    .split('\n\n')
    .filter((block) => block.trim() !== '' && !block.split('\n').every((l) => l.startsWith(':')))
    .map((block) => {
      const fields: Record<string, string> = {};
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) continue;
        const at = line.indexOf(':');
        const key = at < 0 ? line : line.slice(0, at);
        const value = at < 0 ? '' : line.slice(at + 1).replace(/^ /, '');
        fields[key] = key in fields ? `${fields[key]}\n${value}` : value;
      }
      return fields;
    });
}

/** Reads a streaming body until `enough` says so (or it ends); cancels the rest. */
async function readUntil(
  res: Response,
  enough: (events: Array<Record<string, string>>) => boolean,
): Promise<Array<Record<string, string>>> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buf = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return parseSse(buf);
      buf += value;
      const complete = buf.slice(0, buf.lastIndexOf('\n\n') + 2);
      const events = parseSse(complete);
      if (enough(events)) return events;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

describe('rein mcp serve --http: SSE priming and resumption', () => {
  let served: Served;
  let cwd: string;
  let home: string;

  beforeAll(async () => {
    const t = await tempHome();
    cwd = t.cwd;
    home = t.home;
    const userHome = join(cwd, 'user');
    await mkdir(userHome, { recursive: true });
    await mkdir(t.home, { recursive: true });
    served = await serveHttp(t.home, cwd, userHome);
  });

  afterAll(async () => {
    served.child.kill('SIGTERM');
    await served.done;
  });

  it('starts each POST stream of a 2025-11-25 client with an id, retry and empty data', async () => {
    const res = await post(served, init('2025-11-25'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const events = parseSse(await res.text());
    expect(events[0]).toEqual({ id: expect.stringMatching(/^\S+$/), retry: '2000', data: '' });
    const answer = events.find((e) => e.data && e.data.includes('"result"'))!;
    expect(JSON.parse(answer.data!).result.capabilities.resources).toEqual({ subscribe: true, listChanged: true });
    expect(answer.id).toEqual(expect.any(String));
  });

  it('sends no empty-data event to an older client, which could not read it', async () => {
    const events = parseSse(await (await post(served, init('2025-06-18'))).text());
    expect(events[0]!.data).toContain('"result"');
  });

  it('primes by the version agreed at initialize: a 2025-11-25 session whose request header says 2025-03-26 still gets id, retry and empty data', async () => {
    const first = await post(served, init('2025-11-25'));
    const session = first.headers.get('mcp-session-id')!;
    await first.text();
    const call = await post(
      served,
      { jsonrpc: '2.0', id: 3, method: 'tools/list', params: {} },
      { 'mcp-session-id': session, 'mcp-protocol-version': '2025-03-26' },
    );
    const events = parseSse(await call.text());
    expect(events[0]).toEqual({ id: expect.stringMatching(/^\S+$/), retry: '2000', data: '' });
    expect(events.some((e) => e.data?.includes('"id":3'))).toBe(true);
  });

  it('never raises an older session: a 2025-06-18 session gets no empty-data event', async () => {
    const first = await post(served, init('2025-06-18'));
    const session = first.headers.get('mcp-session-id')!;
    await first.text();
    const call = await post(
      served,
      { jsonrpc: '2.0', id: 4, method: 'tools/list', params: {} },
      { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' },
    );
    const events = parseSse(await call.text());
    expect(events[0]!.data).toContain('"id":4');
  });

  it('resumes a broken stream with Last-Event-ID: the call’s answer arrives on the new stream', async () => {
    const first = await post(served, init('2025-11-25'));
    const session = first.headers.get('mcp-session-id')!;
    await first.text();
    const headers = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    expect((await post(served, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers)).status).toBe(202);

    const call = await post(
      served,
      {
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'bash', arguments: { command: 'sleep 1; echo resumed-answer' } },
      },
      headers,
    );
    // The priming event only; then the connection breaks (the reader is cancelled).
    const [priming] = await readUntil(call, (events) => events.length >= 1);
    expect(priming).toMatchObject({ data: '', retry: '2000' });

    // As a client waits `retry` before reconnecting: until the server has seen the old stream go (409 till then).
    const resume = () =>
      fetch(endpoint(served), {
        headers: {
          authorization: `Bearer ${served.token}`,
          accept: 'text/event-stream',
          'last-event-id': priming!.id!,
          ...headers,
        },
      });
    let resumed = await resume();
    for (let i = 0; resumed.status === 409 && i < 200; i++) {
      await resumed.text();
      await new Promise((ok) => setTimeout(ok, 100));
      resumed = await resume();
    }
    expect(resumed.status).toBe(200);
    const events = await readUntil(resumed, (evs) => evs.some((e) => e.data?.includes('"id":7')));
    const answer = JSON.parse(events.find((e) => e.data?.includes('"id":7'))!.data!);
    expect(answer.result.content[0].text).toContain('resumed-answer');
  });

  it('serves resources, prompts and completion to the SDK client over HTTP', async () => {
    const client = new Client({ name: 'http-resources', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL(endpoint(served)), {
      requestInit: { headers: { authorization: `Bearer ${served.token}` } },
    });
    await client.connect(transport);
    try {
      const { resources } = await client.listResources();
      expect(resources.map((r) => r.uri)).toEqual(['rein://sessions']);
      expect((await client.readResource({ uri: 'rein://sessions' })).contents[0]).toMatchObject({
        mimeType: 'text/markdown',
        text: expect.stringContaining('No sessions yet'),
      });
      expect(Array.isArray((await client.listPrompts()).prompts)).toBe(true);
      const agents = await client.complete({
        ref: { type: 'ref/resource', uri: 'rein://agents/{agent}/memory' },
        argument: { name: 'agent', value: 'de' },
      });
      expect(agents.completion.values).toEqual(['default']);
    } finally {
      await client.close();
    }
  });
  it('primes the standalone GET stream too: a client that lost it is replayed, with Last-Event-ID, what was sent meanwhile', async () => {
    // Two sessions that listed resources, so each is told when a session is added (on its GET stream):
    // A speaks 2025-11-25 and loses its stream; B speaks 2025-06-18, stays, and is the witness.
    const open = async (version: string) => {
      const first = await post(served, init(version));
      const headers = { 'mcp-session-id': first.headers.get('mcp-session-id')!, 'mcp-protocol-version': version };
      await first.text();
      expect((await post(served, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers)).status).toBe(202);
      await (await post(served, { jsonrpc: '2.0', id: 2, method: 'resources/list', params: {} }, headers)).text();
      return headers;
    };
    const dir = paths.sessionsDir(home);
    await mkdir(dir, { recursive: true });
    const a = await open('2025-11-25');
    const b = await open('2025-06-18');
    const get = (headers: Record<string, string>, lastEventId?: string) =>
      fetch(endpoint(served), {
        headers: {
          authorization: `Bearer ${served.token}`,
          accept: 'text/event-stream',
          ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
          ...headers,
        },
      });
    const isListChanged = (e: Record<string, string>) =>
      e.data?.includes('"notifications/resources/list_changed"') ?? false;

    const streamA = await get(a);
    expect(streamA.status).toBe(200);
    expect(streamA.headers.get('content-type')).toContain('text/event-stream');
    // The priming event only; then A's connection breaks (the reader is cancelled).
    const [priming] = await readUntil(streamA, (events) => events.length >= 1);
    expect(priming).toEqual({ id: expect.stringMatching(/^\S+$/), retry: '2000', data: '' });

    const streamB = await get(b);
    expect(streamB.status).toBe(200);
    const added = join(dir, `${newSessionId()}.json`);
    try {
      await writeFile(added, '{}');
      // B (no empty-data event for an older client: its first event is the notification) has been told,
      // so A's notice has been sent, into A's event store, while A was away.
      const eventsB = await readUntil(streamB, (events) => events.length >= 1);
      expect(isListChanged(eventsB[0]!)).toBe(true);
      await new Promise((ok) => setTimeout(ok, 300));

      // As a client waits `retry` before reconnecting: until the server has seen the old stream go (409 till then).
      let resumed = await get(a, priming!.id);
      for (let i = 0; resumed.status === 409 && i < 200; i++) {
        await resumed.text();
        await new Promise((ok) => setTimeout(ok, 100));
        resumed = await get(a, priming!.id);
      }
      expect(resumed.status).toBe(200);
      const eventsA = await readUntil(resumed, (events) => events.some(isListChanged));
      const notice = eventsA.find(isListChanged)!;
      expect(Number(notice.id)).toBeGreaterThan(Number(priming!.id));
    } finally {
      await rm(added, { force: true });
    }
  });
});
