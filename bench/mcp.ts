/**
 * MCP client figures, printed, never asserted:
 * - connect time for N server-everything processes over stdio (N = 1, 5, 10): `McpManager.ready()`,
 *   which starts each server through core's process runner, initialises and lists its tools, all in
 *   parallel — first connection of a process that has never started them;
 * - the cost of one call through Rein's MCP tool (reconnect check, in-flight bookkeeping, result
 *   conversion) against the raw SDK client on its own StdioClientTransport, both calling `echo` on
 *   a server of their own, interleaved so the machine's drift hits both alike;
 * - the same over Streamable HTTP (server-everything's streamableHttp mode).
 * Knobs: REIN_BENCH_MCP_CALLS (default 300), REIN_BENCH_MCP_SERVERS (default "1,5,10").
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { McpServerSettings } from '../src-main/core/mcpClient/config.js';
import { McpManager } from '../src-main/core/mcpClient/manager.js';
import type { Tool, ToolContext } from '../src-main/core/tools/tool.js';
import { fmt, median, percentile } from './support.js';

const require = createRequire(import.meta.url);
const EVERYTHING = join(
  dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);
const CALLS = Number(process.env.REIN_BENCH_MCP_CALLS ?? 300);
const COUNTS = (process.env.REIN_BENCH_MCP_SERVERS ?? '1,5,10').split(',').map(Number);

const stdio = (): McpServerSettings => ({
  type: 'stdio',
  command: process.execPath,
  args: [EVERYTHING, 'stdio'],
  env: {},
  disabled: false,
});
const ctx = { session: undefined } as unknown as ToolContext;

async function connectTimes(): Promise<void> {
  console.log('connect time (stdio server-everything, all at once; start + initialize + tools/list)');
  for (const n of COUNTS) {
    const samples: number[] = [];
    for (let round = 0; round < 3; round++) {
      const servers = Object.fromEntries(Array.from({ length: n }, (_, i) => [`s${i}`, stdio()]));
      const m = new McpManager({ servers, env: process.env, home: '/nonexistent-rein-home' });
      const t0 = performance.now();
      await m.ready();
      samples.push(performance.now() - t0);
      const healthy = m.status().filter((s) => s.state === 'healthy').length;
      if (healthy !== n) console.log(`  (only ${healthy} of ${n} connected)`);
      await m.dispose();
    }
    console.log(
      `  N=${String(n).padStart(2)}: median ${fmt(median(samples), 0)} ms (runs: ${samples.map((s) => fmt(s, 0)).join(', ')} ms)`,
    );
  }
}

interface Timed {
  rein: number[];
  raw: number[];
}

async function timeCalls(label: string, reinTool: Tool, raw: Client): Promise<void> {
  const t: Timed = { rein: [], raw: [] };
  const signal = new AbortController().signal;
  for (let i = 0; i < 30; i++) {
    await reinTool.call({ message: 'warm' }, ctx, signal);
    await raw.callTool({ name: 'echo', arguments: { message: 'warm' } });
  }
  for (let i = 0; i < CALLS; i++) {
    let s = performance.now();
    const r = await reinTool.call({ message: `m${i}` }, ctx, signal);
    t.rein.push(performance.now() - s);
    if (!r.ok) throw new Error(`rein call failed: ${r.content}`);
    s = performance.now();
    await raw.callTool({ name: 'echo', arguments: { message: `m${i}` } });
    t.raw.push(performance.now() - s);
  }
  const p = (xs: number[], q: number) => fmt(percentile(xs, q) * 1000, 0);
  console.log(`${label}: ${CALLS} echo calls each, interleaved`);
  console.log(`  raw SDK client : p50 ${p(t.raw, 50)} µs, p95 ${p(t.raw, 95)} µs`);
  console.log(`  Rein MCP tool  : p50 ${p(t.rein, 50)} µs, p95 ${p(t.rein, 95)} µs`);
  console.log(`  overhead p50   : ${fmt((median(t.rein) - median(t.raw)) * 1000, 0)} µs per call`);
}

async function stdioCalls(): Promise<void> {
  const m = new McpManager({ servers: { everything: stdio() }, env: process.env, home: '/nonexistent-rein-home' });
  await m.ready();
  const tool = (await m.providers[0]!.tools()).find((t) => t.name === 'mcp__everything__echo')!;
  const raw = new Client({ name: 'bench', version: '1' });
  await raw.connect(
    new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'ignore' }),
  );
  try {
    await timeCalls('per-call cost over stdio', tool, raw);
  } finally {
    await raw.close();
    await m.dispose();
  }
}

async function httpCalls(): Promise<void> {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const port = (probe.address() as AddressInfo).port;
  await new Promise<void>((r) => probe.close(() => r()));
  const child = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  await new Promise<void>((resolve) =>
    child.stderr!.on('data', (d: Buffer) => /listening/i.test(d.toString()) && resolve()),
  );
  const url = `http://127.0.0.1:${port}/mcp`;
  const m = new McpManager({
    servers: { everything: { type: 'http', url, args: [], env: {}, disabled: false } },
    env: process.env,
    home: '/nonexistent-rein-home',
  });
  const t0 = performance.now();
  await m.ready();
  const connectMs = performance.now() - t0;
  const tool = (await m.providers[0]!.tools()).find((t) => t.name === 'mcp__everything__echo')!;
  const raw = new Client({ name: 'bench', version: '1' });
  await raw.connect(new StreamableHTTPClientTransport(new URL(url)));
  try {
    console.log(`connect time (Streamable HTTP, one server already running): ${fmt(connectMs, 0)} ms`);
    await timeCalls('per-call cost over Streamable HTTP', tool, raw);
  } finally {
    await raw.close();
    await m.dispose();
    process.kill(-child.pid!, 'SIGTERM');
  }
}

export async function run(): Promise<void> {
  console.log('== mcp ==');
  await connectTimes();
  await stdioCalls();
  await httpCalls();
}
