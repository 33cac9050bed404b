/**
 * One MCP connection to Rein's tools, driven by the SDK's own Client over an in-memory transport: the
 * tool list as a client sees it, and every `tools/call` through Rein's admission — what runs, what is
 * refused and why, who is asked (the client's form, or nobody), cancellation, progress and logging.
 * The processes of `rein mcp serve` itself are tested in tests/integration/mcp-serve*.test.ts.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  ToolListChangedNotificationSchema,
  type ElicitRequest,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { McpConnection, ServeHost } from '../../../src-main/core/mcpServer/connection.js';
import { builtinTools } from '../../../src-main/core/tools/builtin/index.js';
import { ToolRegistry } from '../../../src-main/core/tools/registry.js';
import { useLeakCheck } from '../../support/leaks.js';

useLeakCheck();

let root: string;
let home: string;
let cwd: string;
let userHome: string;
let hosts: ServeHost[] = [];
let clients: Client[] = [];

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'rein-mcp-conn-'));
  home = join(root, 'rein');
  cwd = join(root, 'work');
  userHome = join(root, 'user');
  await Promise.all([
    mkdir(home, { recursive: true }),
    mkdir(cwd, { recursive: true }),
    mkdir(userHome, { recursive: true }),
  ]);
});

afterEach(async () => {
  await Promise.all(clients.map((c) => c.close()));
  for (const h of hosts) h.dispose();
  clients = [];
  hosts = [];
  // An audit line of the last call may still be on its way to logs/: rm retries a folder that is not empty yet.
  await rm(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 20 });
});

interface Opened {
  client: Client;
  connection: McpConnection;
  asked: ElicitRequest['params'][];
}

/** A connected client; with `answer`, it supports form elicitation and answers every form with it. */
async function open(
  opts: { answer?: (req: ElicitRequest['params']) => ElicitResult; agent?: string; deskOnly?: boolean } = {},
): Promise<Opened> {
  const host = new ServeHost({
    home,
    cwd,
    env: { HOME: userHome, PATH: process.env.PATH },
    agent: opts.agent ?? 'default',
    version: 'test',
    progressIntervalMs: 50,
    deskOnly: opts.deskOnly ?? false,
  });
  hosts.push(host);
  const connection = new McpConnection(host);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await connection.server.connect(serverSide);
  const client = new Client(
    { name: 'test', version: '1' },
    { capabilities: opts.answer ? { elicitation: { form: {} } } : {} },
  );
  const asked: ElicitRequest['params'][] = [];
  if (opts.answer) {
    const answer = opts.answer;
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      asked.push(req.params);
      return answer(req.params);
    });
  }
  await client.connect(clientSide);
  clients.push(client);
  return { client, connection, asked };
}

/** The audit log's lines, once it has `n` (they are written after the answer, like the loop's). */
async function auditLines(n = 1): Promise<Array<Record<string, unknown>>> {
  const file = join(home, 'logs', 'audit.jsonl');
  let lines: Array<Record<string, unknown>> = [];
  await expect
    .poll(async () => {
      const text = existsSync(file) ? await readFile(file, 'utf8') : '';
      lines =
        text.trim() === ''
          ? []
          : text
              .trim()
              .split('\n')
              .map((l) => JSON.parse(l) as Record<string, unknown>);
      return lines.length;
    })
    .toBeGreaterThanOrEqual(n);
  return lines;
}

const textOf = (r: unknown): string =>
  (r as { content: Array<{ type: string; text?: string }> }).content.find((c) => c.type === 'text')?.text ?? '';

describe('initialize and tools/list', () => {
  it('names Rein, offers tools and logging, and lists the local tools with their annotations', async () => {
    const { client } = await open();
    expect(client.getServerVersion()).toMatchObject({ name: 'rein', version: 'test' });
    expect(client.getServerCapabilities()).toMatchObject({ tools: { listChanged: true }, logging: {} });
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'bash',
        'file_read',
        'file_write',
        'http',
        'memory_append',
        'session_search',
        'schedule_create',
      ]),
    );
    // tool_search only loads deferred MCP/cloud tools: nothing to find here.
    expect(names).not.toContain('tool_search');
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(byName.file_read!.annotations).toMatchObject({
      readOnlyHint: true,
      destructiveHint: false,
      openWorldHint: false,
    });
    // bash is read-only for `ls`, not for `rm`: no constant hint; it may destroy and reaches the network.
    expect(byName.bash!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, openWorldHint: true });
    expect(byName.http!.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
      openWorldHint: true,
    });
    expect(byName.file_edit!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    expect(byName.schedule_remove!.annotations).toMatchObject({ destructiveHint: true });
  });

  it('gives each tool the registry’s own JSON Schema, not one wrapped in another object', async () => {
    const { client } = await open();
    const { tools } = await client.listTools();
    const registry = new ToolRegistry(builtinTools());
    for (const tool of builtinTools()) {
      const listed = tools.find((t) => t.name === tool.name)!;
      expect(listed.inputSchema).toEqual(registry.definition(tool).input_schema);
      expect(listed.description).toBe(tool.description);
    }
    const fileRead = tools.find((t) => t.name === 'file_read')!.inputSchema as {
      properties: Record<string, unknown>;
      required: string[];
    };
    expect(Object.keys(fileRead.properties)).toContain('path');
    expect(fileRead.required).toEqual(['path']);
  });

  it('leaves out what the agent’s tools.denied removes, and says so when the list changes', async () => {
    const { client } = await open();
    const changed: unknown[] = [];
    client.setNotificationHandler(ToolListChangedNotificationSchema, (n) => void changed.push(n));
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('think');
    await writeFile(join(home, 'config.yaml'), 'tools:\n  denied: [think]\n');
    await client.callTool({ name: 'system_info', arguments: {} });
    await expect.poll(() => changed.length).toBe(1);
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('think');
    await expect(client.callTool({ name: 'think', arguments: { thought: 'x' } })).rejects.toThrow(
      /unknown tool: think/,
    );
  });
});

describe('tools/call through the permission engine', () => {
  it('runs a read-only call and records it in the audit log with the connection’s session id', async () => {
    await writeFile(join(cwd, 'notes.txt'), 'hello from the file\n');
    const { client, connection } = await open();
    const r = await client.callTool({ name: 'file_read', arguments: { path: 'notes.txt' } });
    expect(r.isError).toBeFalsy();
    expect(textOf(r)).toContain('hello from the file');
    const line = (await auditLines(1)).at(-1);
    expect(line).toMatchObject({ session: connection.sessionId, source: 'mcp', tool: 'file_read', decision: 'allow' });
    expect(connection.sessionId).toMatch(/^mcp-[0-9a-f]{32}$/);
  });

  it('coerces the arguments as the loop does (a number sent as a string)', async () => {
    await writeFile(join(cwd, 'lines.txt'), 'a\nb\nc\n');
    const { client } = await open();
    const r = await client.callTool({ name: 'file_read', arguments: { path: 'lines.txt', offset: '2' } });
    expect(r.isError).toBeFalsy();
    expect(textOf(r)).toContain('c');
    const bad = await client.callTool({ name: 'file_read', arguments: { nope: 1 } });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/^\[validation error\] invalid input for file_read/);
  });

  it('returns a hard block as an error result with its reason, even to a client that could approve it', async () => {
    const { client, asked } = await open({ answer: () => ({ action: 'accept', content: { decision: 'allow_once' } }) });
    const r = await client.callTool({ name: 'bash', arguments: { command: 'rm -rf ~' } });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/denied \(hard_block\).*recursive-delete/);
    expect(asked).toHaveLength(0);
    expect((await auditLines(1)).at(-1)).toMatchObject({ tool: 'bash', decision: 'deny', layer: 'hard_block' });
  });

  it('refuses a call that needs approval when the client has no form and no daemon runs', async () => {
    const { client } = await open();
    const r = await client.callTool({ name: 'bash', arguments: { command: 'touch made.txt' } });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/denied \(origin\): this MCP client cannot show an approval form/);
    expect(existsSync(join(cwd, 'made.txt'))).toBe(false);
  });

  it('asks a client that supports elicitation: allow once runs the call, and only this call', async () => {
    const { client, asked } = await open({ answer: () => ({ action: 'accept', content: { decision: 'allow_once' } }) });
    const r = await client.callTool({ name: 'bash', arguments: { command: 'touch made.txt' } });
    expect(r.isError, textOf(r)).toBeFalsy();
    expect(existsSync(join(cwd, 'made.txt'))).toBe(true);
    expect(asked).toHaveLength(1);
    expect(asked[0]!.message).toContain('$ touch made.txt');
    expect((asked[0] as { requestedSchema?: unknown }).requestedSchema).toMatchObject({
      type: 'object',
      required: ['decision'],
      properties: { decision: { enum: ['allow_once', 'always_allow', 'deny'] } },
    });
    await client.callTool({ name: 'bash', arguments: { command: 'touch made.txt' } });
    expect(asked).toHaveLength(2);
    expect((await auditLines(2)).at(-1)).toMatchObject({ tool: 'bash', decision: 'allow', approved_by: 'mcp_client' });
  });

  it('--desk-only never asks the client, even one that can show forms', async () => {
    const { client, asked } = await open({
      deskOnly: true,
      answer: () => ({ action: 'accept', content: { decision: 'allow_once' } }),
    });
    const r = await client.callTool({ name: 'bash', arguments: { command: 'touch desk-only.txt' } });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(
      /denied \(origin\): rein mcp serve runs with --desk-only, so it never asks the client, and no Rein daemon is running/,
    );
    expect(asked).toHaveLength(0);
    expect(existsSync(join(cwd, 'desk-only.txt'))).toBe(false);
  });

  it('a declined or dismissed form is a deny, and the call does not run', async () => {
    for (const action of ['decline', 'cancel'] as const) {
      const { client } = await open({ answer: () => ({ action }) });
      const r = await client.callTool({ name: 'bash', arguments: { command: `touch ${action}.txt` } });
      expect(r.isError).toBe(true);
      expect(textOf(r)).toMatch(/DENIED: bash did not run because the user denied it/);
      expect(existsSync(join(cwd, `${action}.txt`))).toBe(false);
    }
    const { client } = await open({ answer: () => ({ action: 'accept', content: { decision: 'deny' } }) });
    expect((await client.callTool({ name: 'bash', arguments: { command: 'touch x.txt' } })).isError).toBe(true);
  });

  it('"always allow" from the client runs the call and holds for this connection only; config.yaml is not touched', async () => {
    const before = '# my settings\nmodel: claude-sonnet-5-5\n';
    await writeFile(join(home, 'config.yaml'), before);
    const answer = () => ({ action: 'accept' as const, content: { decision: 'always_allow' } });
    const { client, asked } = await open({ answer });
    const first = await client.callTool({ name: 'bash', arguments: { command: 'touch always.txt' } });
    expect(first.isError, textOf(first)).toBeFalsy();
    expect(existsSync(join(cwd, 'always.txt'))).toBe(true);
    // No daemon runs for this home: the result says it is not kept, and what to add where by hand.
    const note = textOf(first).slice(textOf(first).indexOf('[rein] '));
    expect(note).toMatch(
      /^\[rein\] "always allow" for .*touch always\.txt.* holds for this MCP connection only: .*no running Rein daemon took it/,
    );
    expect(note).toMatch(/To keep it, add .*touch always\.txt.* to permissions\.\w+ in (.*)\.$/);
    expect(note.endsWith(` in ${join(home, 'config.yaml')}.`)).toBe(true);
    expect(await readFile(join(home, 'config.yaml'), 'utf8')).toBe(before);
    // The same call again on this connection runs unasked; another call still asks.
    const again = await client.callTool({ name: 'bash', arguments: { command: 'touch always.txt' } });
    expect(again.isError, textOf(again)).toBeFalsy();
    expect(asked).toHaveLength(1);
    expect((await auditLines(2)).at(-1)).toMatchObject({
      tool: 'bash',
      decision: 'allow',
      approved_by: 'always_allow',
    });
    await client.callTool({ name: 'bash', arguments: { command: 'touch other.txt' } });
    expect(asked).toHaveLength(2);
    // A new connection asks again.
    const other = await open({ answer });
    expect(
      (await other.client.callTool({ name: 'bash', arguments: { command: 'touch always.txt' } })).isError,
    ).toBeFalsy();
    expect(other.asked).toHaveLength(1);
    expect(await readFile(join(home, 'config.yaml'), 'utf8')).toBe(before);
  });

  it('"always allow" with a daemon that cannot be reached still holds for the connection, says so, and saves nothing', async () => {
    const { createServer } = await import('node:net');
    const port = await new Promise<number>((ok) => {
      const srv = createServer().listen(0, '127.0.0.1', () => {
        const p = (srv.address() as { port: number }).port;
        srv.close(() => ok(p));
      });
    });
    await writeFile(
      join(home, 'daemon.json'),
      JSON.stringify({
        pid: process.pid,
        port,
        host: '127.0.0.1',
        token: 'e'.repeat(64),
        version: 't',
        started_at: new Date().toISOString(),
      }),
    );
    const { client, asked } = await open({
      answer: () => ({ action: 'accept', content: { decision: 'always_allow' } }),
    });
    const r = await client.callTool({ name: 'bash', arguments: { command: 'touch kept-here.txt' } });
    expect(r.isError, textOf(r)).toBeFalsy();
    expect(textOf(r)).toMatch(
      /holds for this MCP connection only: .*\(the Rein daemon could not be reached to keep it: /,
    );
    expect(
      (await client.callTool({ name: 'bash', arguments: { command: 'touch kept-here.txt' } })).isError,
    ).toBeFalsy();
    expect(asked).toHaveLength(1);
    expect(existsSync(join(home, 'config.yaml'))).toBe(false);
  });

  it('"always allow" for another tool (a file write) holds on this connection too, and saves nothing', async () => {
    const { client, asked } = await open({
      answer: () => ({ action: 'accept', content: { decision: 'always_allow' } }),
    });
    const r = await client.callTool({ name: 'file_write', arguments: { path: 'a.txt', content: 'one\n' } });
    expect(r.isError, textOf(r)).toBeFalsy();
    expect(textOf(r)).toMatch(/\[rein\] "always allow" for file_write .*holds for this MCP connection only/);
    await client.callTool({ name: 'file_write', arguments: { path: 'a.txt', content: 'one\n' } });
    expect(asked).toHaveLength(1);
    expect(existsSync(join(home, 'config.yaml'))).toBe(false);
  });

  it('runs PreToolUse hooks: a hook that refuses the call is an error result with its reason', async () => {
    await writeFile(
      join(home, 'config.yaml'),
      `hooks:\n  PreToolUse:\n    - matcher: system_info\n      command: "echo 'not from MCP clients' >&2; exit 2"\n`,
    );
    const { client } = await open();
    const r = await client.callTool({ name: 'system_info', arguments: {} });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/denied by hook: .*not from MCP clients/);
    expect((await auditLines(1)).at(-1)).toMatchObject({ tool: 'system_info', decision: 'deny', layer: 'hook' });
  });

  it('says so when the running daemon cannot be reached to ask, and runs nothing', async () => {
    const { createServer } = await import('node:net');
    const port = await new Promise<number>((ok) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => ok(p));
      });
    });
    await writeFile(
      join(home, 'daemon.json'),
      JSON.stringify({
        pid: process.pid,
        port,
        host: '127.0.0.1',
        token: 'e'.repeat(64),
        version: 't',
        started_at: new Date().toISOString(),
      }),
    );
    const { client } = await open();
    const r = await client.callTool({ name: 'bash', arguments: { command: 'touch unreachable.txt' } });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(
      /DENIED: bash did not run because the Rein daemon could not be reached to ask for approval/,
    );
    expect(existsSync(join(cwd, 'unreachable.txt'))).toBe(false);
  });

  it('an unknown tool is a protocol error (invalid params)', async () => {
    const { client } = await open();
    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toMatchObject({ code: -32602 });
  });
});

describe('long calls', () => {
  it('sends progress notifications while a call runs, when the client asks for them', async () => {
    const { client } = await open();
    const progress: Array<{ progress: number; message?: string }> = [];
    const r = await client.callTool({ name: 'bash', arguments: { command: 'sleep 0.4' } }, undefined, {
      onprogress: (p) => void progress.push(p),
    });
    expect(r.isError).toBeFalsy();
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress[0]!.message).toMatch(/^running bash/);
    expect(progress.map((p) => p.progress)).toEqual([...progress.map((p) => p.progress)].sort((a, b) => a - b));
  });

  it('tells the client at once that a call waits for approval', async () => {
    let release!: () => void;
    const held = new Promise<void>((ok) => (release = ok));
    const { client } = await open({
      answer: () => {
        release();
        return { action: 'accept', content: { decision: 'allow_once' } };
      },
    });
    const progress: Array<{ message?: string }> = [];
    await client.callTool({ name: 'bash', arguments: { command: 'touch p.txt' } }, undefined, {
      onprogress: (p) => void progress.push(p),
    });
    await held;
    expect(progress.some((p) => /^waiting for approval \(this client\): \$ touch p\.txt/.test(p.message ?? ''))).toBe(
      true,
    );
  });

  it('notifications/cancelled aborts the call (its process is stopped) and the connection goes on', async () => {
    const { client } = await open();
    const ac = new AbortController();
    // Were it not stopped, the call would outlast the test's own timeout.
    const call = client.callTool({ name: 'bash', arguments: { command: 'sleep 30' } }, undefined, {
      signal: ac.signal,
      onprogress: () => ac.abort('enough'),
    });
    await expect(call).rejects.toThrow();
    expect(await client.ping()).toEqual({});
    // useLeakCheck fails this test if `sleep 30` is still running.
  });
});

describe('logging', () => {
  it('sends warnings about refused calls at the level the client set', async () => {
    const { client } = await open();
    const messages: Array<{ level: string; data: unknown }> = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void messages.push(n.params));
    await client.setLoggingLevel('warning');
    await client.callTool({ name: 'bash', arguments: { command: 'rm -rf ~' } });
    await expect.poll(() => messages.length).toBeGreaterThan(0);
    expect(messages[0]).toMatchObject({ level: 'warning', data: { event: 'refused', tool: 'bash' } });
    messages.length = 0;
    await client.setLoggingLevel('error');
    await client.callTool({ name: 'bash', arguments: { command: 'rm -rf ~' } });
    expect(await client.ping()).toEqual({});
    expect(messages).toHaveLength(0);
  });
});
