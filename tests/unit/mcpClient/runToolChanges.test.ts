/**
 * MCP tools in a run, against a server built from the SDK's McpServer whose tool list changes while
 * the run goes on (`tools/list_changed`), and server-everything over stdio: a tool added by a call is
 * callable in that very run (and in the next request's tool list); a call the model sends with input
 * that does not fit the tool's schema is still announced with tool_call_start and tool_call_end.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GlobalConfig, type GlobalConfigInput } from '../../../src-main/core/config/schema.js';
import { createRuntime, startRun, type Runtime } from '../../../src-main/core/runtime/runtime.js';
import { drainRun } from '../../support/drainRun.js';
import { startFakeAnthropic, text, toolCall, tools, type FakeAnthropic } from '../../support/fakeAnthropic.js';
import { useLeakCheck } from '../../support/leaks.js';
import { everythingStdio, startSdkServer, z, type SdkServer } from '../../support/mcpPeers.js';
import { tempRuntimeDirs } from '../runtime/tempRuntimeDirs.js';

useLeakCheck();

const d = tempRuntimeDirs('rein-mcp-changes-');
let fake: FakeAnthropic;
let server: SdkServer | undefined;

beforeEach(async () => {
  fake = await startFakeAnthropic();
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await fake.close();
});

const env = () => ({ ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: 'test', PATH: process.env.PATH ?? '' });

function runtime(config: GlobalConfigInput): Promise<Runtime> {
  return createRuntime({
    home: d.home,
    cwd: d.cwd,
    env: env(),
    config: GlobalConfig.parse(config),
    origin: 'attended',
    faces: [],
    bundledSkillsDir: join(d.root, 'none'),
    mcp: true,
  });
}

async function run(rt: Runtime) {
  const started = await startRun(rt, { prompt: 'go', cwd: d.cwd, home: d.home, signal: new AbortController().signal });
  return drainRun(started.events);
}

const toolNames = (i: number): string[] =>
  ((fake.requests[i]!.body.tools ?? []) as { name: string }[]).map((t) => t.name);
const lastResults = (i: number) =>
  JSON.stringify(
    (fake.requests[i]!.body.messages.at(-1)!.content as { type: string }[]).filter((b) => b.type === 'tool_result'),
  );

describe('a tool list that changes during a run', () => {
  it('a tool the server adds during a call can be called in the same run, and is in the next request', async () => {
    server = await startSdkServer({
      setup: (s) => {
        let added = false;
        s.registerTool('install', { description: 'Adds the tool late', inputSchema: {} }, async () => {
          // Registering on a connected server sends notifications/tools/list_changed.
          if (!added)
            s.registerTool(
              'late',
              { description: 'Added during the run', inputSchema: { n: z.number() } },
              async ({ n }) => ({ content: [{ type: 'text', text: `late ran with ${n}` }] }),
            );
          added = true;
          return { content: [{ type: 'text', text: 'installed' }] };
        });
      },
    });
    fake.enqueue(tools([toolCall('mcp__s__install', {})]), tools([toolCall('mcp__s__late', { n: '4' })]), text('done'));
    const rt = await runtime({
      mcp_servers: { s: { type: 'http', url: server.url, always_allow: ['install', 'late'] } },
    });
    const { outcome, events } = await run(rt);
    expect(outcome.stopReason).toBe('final');
    expect(toolNames(0)).not.toContain('mcp__s__late');
    expect(toolNames(1)).toContain('mcp__s__late');
    // Before: "unknown tool: mcp__s__late". Now it ran, with "4" read as the number the schema asks for.
    expect(lastResults(2)).toContain('late ran with 4');
    expect(events.filter((e) => e.type === 'tool_call_end').map((e) => ('ok' in e ? e.ok : undefined))).toEqual([
      true,
      true,
    ]);
  });
});

describe('a call whose input does not fit the tool', () => {
  it('is refused as a validation error and still shown: tool_call_start and tool_call_end (not ok)', async () => {
    fake.enqueue(tools([toolCall('mcp__everything__get-sum', { a: 'three', b: 4 }, 'call_bad')]), text('done'));
    const rt = await runtime({ mcp_servers: { everything: everythingStdio({ always_allow: ['get-sum'] }) } });
    const { events } = await run(rt);
    const mine = events.filter((e) => 'call_id' in e && e.call_id === 'call_bad').map((e) => e.type);
    expect(mine).toEqual(['tool_call_start', 'tool_call_end']);
    const end = events.find((e) => e.type === 'tool_call_end')!;
    expect(end).toMatchObject({
      ok: false,
      preview: expect.stringMatching(/^\[validation error\] invalid input for mcp__everything__get-sum/),
    });
    expect(lastResults(1)).toMatch(/validation error/);
  });
});
