/**
 * Context discipline through the real loop and the fake Messages API: prompt-cache prefixes, long
 * sessions inside a small window, compaction that keeps identifiers and writes memory first, deferred
 * tools, and reactive compaction.
 */
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CACHE_BREAK } from '../../../src-main/core/context/index.js';
import { createToolSearchTool } from '../../../src-main/core/tools/builtin/toolSearch.js';
import { ToolRegistry } from '../../../src-main/core/tools/registry.js';
import { okResult, type Tool } from '../../../src-main/core/tools/tool.js';
import {
  cacheablePrefix,
  startFakeAnthropic,
  stripCacheControl,
  text,
  toolCall,
  tools,
  type FakeAnthropic,
  type RecordedRequest,
} from '../../support/fakeAnthropic.js';
import { lastToolResults, runWith, testTool } from '../../support/harness.js';

let fake: FakeAnthropic;
beforeEach(async () => {
  fake = await startFakeAnthropic();
});
afterEach(async () => {
  await fake.close();
});

const SMALL = 'claude-haiku-5-5';
const systemText = (r: RecordedRequest) => JSON.stringify(r.body.system);
const isSmall = (r: RecordedRequest) => r.body.model === SMALL;
const isSummaryCall = (r: RecordedRequest) => isSmall(r) && systemText(r).includes('compress the earlier part');
const isLearningsCall = (r: RecordedRequest) => isSmall(r) && systemText(r).includes('long-term memory');
const requestTokens = (r: RecordedRequest) => Math.ceil(cacheablePrefix(r.body).total.length / 4);

describe('prompt cache discipline', () => {
  it('two turns of one session share byte-identical tools + system, and the volatile part sits after the marker', async () => {
    const reader = testTool('reader');
    fake.enqueue(text('first answer'));
    const first = await runWith(fake, { tools: [reader], prompt: 'turn one' });
    fake.enqueue(text('second answer'));
    const loaded = await first.store.load(first.session.id);
    await runWith(fake, { tools: [reader], prompt: 'turn two', session: loaded, store: first.store });
    const [a, b] = fake.requests;
    const head = (r: RecordedRequest) =>
      stripCacheControl(JSON.stringify({ tools: r.body.tools, system: r.body.system }));
    expect(head(b!)).toBe(head(a!));
    // The second request extends the first: its history starts with the first turn's bytes.
    const firstMessages = stripCacheControl(JSON.stringify(a!.body.messages)).slice(0, -1);
    expect(stripCacheControl(JSON.stringify(b!.body.messages)).startsWith(firstMessages)).toBe(true);
    // Each turn's user message opens with the volatile block behind the cache_break marker.
    const userTurns = b!.body.messages.filter((m) => m.role === 'user');
    for (const m of userTurns) expect(JSON.stringify(m.content)).toContain(CACHE_BREAK);
    expect(systemText(b!)).not.toMatch(/\d{2}:\d{2}/); // no clock in the system prompt
  });
});

describe('long sessions in a small window', () => {
  it('a 200-iteration session with 20 KB tool outputs kept whole never exceeds a 40,000-token window and finishes', async () => {
    const big = (i: number) =>
      `output ${i}\n` + 'lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(350);
    const dump = testTool('dump', { run: (input) => big(Number(input.arg)) });
    let step = 0;
    fake.fallback = (r) => {
      if (isLearningsCall(r)) return text('NONE');
      if (isSummaryCall(r)) return text(`## Task state\nProcessed outputs up to step ${step}.`);
      step++;
      return step <= 200 ? tools([toolCall('dump', { arg: String(step) })]) : text('All 200 outputs processed.');
    };
    const { outcome, events } = await runWith(fake, {
      tools: [dump],
      // Each output whole in the context (no window cap), so compaction has to do the work.
      settings: { maxIterations: 250, contextWindow: 40_000, smallModel: SMALL, resultWindowShare: 0 },
    });
    expect(outcome.stopReason).toBe('final');
    expect(outcome.text).toBe('All 200 outputs processed.');
    const main = fake.requests.filter((r) => !isSmall(r));
    expect(main).toHaveLength(201);
    for (const r of fake.requests) expect(requestTokens(r)).toBeLessThanOrEqual(40_000);
    expect(events.filter((e) => e.type === 'compaction').length).toBeGreaterThan(3);
  }, 120_000);

  it('a result above a tenth of a small window reaches the model as a preview, saved whole beside the session', async () => {
    const big = `first line\n${'lorem ipsum dolor sit amet. '.repeat(700)}\nlast line`; // ~19,600 characters
    const dump = testTool('dump', { run: () => big });
    const script = (n: number) => (r: RecordedRequest) =>
      r.body.messages.length < n ? tools([toolCall('dump', {})]) : text('done');

    fake.fallback = script(3);
    const small = await runWith(fake, { tools: [dump], settings: { contextWindow: 40_000 } });
    const [preview] = lastToolResults(fake);
    const sent = JSON.stringify(preview!.content);
    expect(sent.length).toBeLessThan(14_000); // a tenth of 40,000 tokens at 3.5 characters a token
    expect(sent).toContain('first line');
    expect(sent).toContain('last line');
    const path = /saved to (\S+\.txt)/.exec(sent)?.[1];
    expect(path).toBeDefined();
    expect(await readFile(path!, 'utf8')).toBe(big);
    expect(small.outcome.stopReason).toBe('final');

    // The usual 200,000-token window: the same result goes whole (below the 30,000-character budget).
    fake.fallback = script(3);
    await runWith(fake, { tools: [dump], settings: { contextWindow: 200_000 } });
    expect(JSON.stringify(lastToolResults(fake)[0]!.content)).toContain(JSON.stringify(big).slice(1, -1));
  });
});

describe('compaction', () => {
  it('keeps identifiers planted early and writes durable facts to memory first', async () => {
    const memoryDir = await mkdtemp(join(tmpdir(), 'rein-mem-'));
    const planted = [
      '/srv/app/config/prod.yaml',
      'https://ci.example.com/build/4711',
      'db-primary.internal:5432',
      'a3f9c2e1b7d4',
    ];
    const dump = testTool('dump', { run: () => 'x'.repeat(30_000) });
    let step = 0;
    fake.fallback = (r) => {
      if (isLearningsCall(r)) return text('- the production database runs on db-primary.internal:5432');
      // A summary that forgets the identifiers: the harness must append them verbatim.
      if (isSummaryCall(r)) return text('## Task state\nWe looked at some configuration and a build.');
      step++;
      return step <= 8 ? tools([toolCall('dump', { arg: String(step) })]) : text('done');
    };
    const { outcome, events } = await runWith(fake, {
      tools: [dump],
      prompt: `Check ${planted[0]} against ${planted[1]}, the database at ${planted[2]} and commit ${planted[3]}.`,
      settings: { contextWindow: 30_000, smallModel: SMALL, resultWindowShare: 0 },
      memoryDir,
    });
    expect(outcome.stopReason).toBe('final');
    expect(events.some((e) => e.type === 'compaction')).toBe(true);
    const last = fake.requests.filter((r) => !isSmall(r)).at(-1)!;
    const sent = JSON.stringify(last.body.messages);
    for (const id of planted) expect(sent).toContain(id);
    const memory = await readFile(join(memoryDir, 'MEMORY.md'), 'utf8');
    expect(memory).toContain('db-primary.internal:5432');
  });

  it('write-before-compact writes nothing when the small model answers NONE', async () => {
    const memoryDir = await mkdtemp(join(tmpdir(), 'rein-mem-'));
    const dump = testTool('dump', { run: () => 'y'.repeat(30_000) });
    let step = 0;
    fake.fallback = (r) => {
      if (isLearningsCall(r)) return text('NONE');
      if (isSummaryCall(r)) return text('## Task state\nsummary');
      return ++step <= 6 ? tools([toolCall('dump', { arg: String(step) })]) : text('done');
    };
    await runWith(fake, { tools: [dump], settings: { contextWindow: 30_000, smallModel: SMALL }, memoryDir });
    await expect(readFile(join(memoryDir, 'MEMORY.md'), 'utf8')).rejects.toThrow();
  });

  it('compacts harder and retries once when the API says the prompt is too long', async () => {
    const dump = testTool('dump', { run: () => 'z'.repeat(5_000) });
    let main = 0;
    fake.fallback = (r) => {
      if (isSmall(r)) return text(isLearningsCall(r) ? 'NONE' : '## Task state\nshort summary');
      main++;
      if (main <= 4) return tools([toolCall('dump', { arg: String(main) })]);
      if (main === 5)
        return { kind: 'error', status: 400, message: 'prompt is too long: 250000 tokens > 200000 maximum' };
      return text('recovered');
    };
    const { outcome, events } = await runWith(fake, { tools: [dump], settings: { smallModel: SMALL } });
    expect(outcome.stopReason).toBe('final');
    expect(outcome.text).toBe('recovered');
    expect(events.some((e) => e.type === 'compaction' && e.reason === 'reactive')).toBe(true);
  });

  it('ends with a clear error when the prompt is still too long after compacting', async () => {
    fake.fallback = (r) => (isSmall(r) ? text('NONE') : { kind: 'error', status: 400, message: 'prompt is too long' });
    const { outcome } = await runWith(fake, { settings: { smallModel: SMALL } });
    expect(outcome.stopReason).toBe('error');
    expect(outcome.error?.message).toMatch(/too long.*even after compacting/);
  });
});

describe('deferred tools', () => {
  it('with more than 30 tools, MCP tools are listed by name and load through tool_search', async () => {
    const mcpTool = (name: string): Tool => ({
      name,
      description: `${name.replace(/_/g, ' ')} from a server`,
      source: 'mcp',
      input: z.object({ q: z.string().optional() }),
      isReadOnly: () => true,
      isDestructive: () => false,
      call: async () => okResult(`${name} ran`),
    });
    const mcp = Array.from({ length: 30 }, (_, i) => mcpTool(`mcp_tool_${String(i).padStart(2, '0')}`));
    mcp.push(mcpTool('weather_forecast'));
    const local = [testTool('reader')];
    const registry: ToolRegistry = new ToolRegistry([
      ...local,
      ...mcp,
      createToolSearchTool({ tools: () => registry.list(), definition: (t) => registry.definition(t) }),
    ]);
    fake.enqueue(
      tools([toolCall('tool_search', { query: 'select:weather_forecast' })]),
      tools([toolCall('weather_forecast', { q: 'Berlin' })]),
      text('sunny'),
    );
    const { outcome } = await runWith(fake, { tools: registry.list() as Tool[] });
    expect(outcome.stopReason).toBe('final');
    const names = (i: number) => fake.requests[i]!.body.tools!.map((t) => t.name);
    expect(names(0)).toContain('tool_search');
    expect(names(0)).toContain('reader');
    expect(names(0)).not.toContain('weather_forecast');
    expect(systemText(fake.requests[0]!)).toContain('weather_forecast');
    expect(names(1)).toContain('weather_forecast');
    expect(String(JSON.stringify(fake.requests[2]!.body.messages.at(-1)))).toContain('weather_forecast ran');
  });

  it('keeps the working set tool_search loaded in the session file, and the next run starts with it', async () => {
    const mcp = Array.from({ length: 31 }, (_, i) => ({
      name: `mcp_tool_${String(i).padStart(2, '0')}`,
      description: `Tool number ${i} from a server.`,
      source: 'mcp' as const,
      input: z.object({}),
      isReadOnly: () => true,
      isDestructive: () => false,
      call: async () => okResult('ran'),
    }));
    const registry: ToolRegistry = new ToolRegistry([
      ...mcp,
      createToolSearchTool({ tools: () => registry.list(), definition: (t) => registry.definition(t) }),
    ]);
    fake.enqueue(tools([toolCall('tool_search', { query: 'select:mcp_tool_07' })]), text('loaded'));
    const first = await runWith(fake, { tools: registry.list() as Tool[] });
    const saved = await first.store.load(first.session.id);
    expect(saved.context).toMatchObject({ deferred: { loaded: ['mcp_tool_07'] } });

    fake.enqueue(text('still here'));
    await runWith(fake, { tools: registry.list() as Tool[], session: saved, store: first.store, prompt: 'again' });
    const sent = fake.requests.at(-1)!.body.tools!.map((t) => t.name);
    expect(sent).toContain('mcp_tool_07');
    expect(sent).not.toContain('mcp_tool_08');
  });
});
