/**
 * What the loop and executor do for any tool (cloud_delegate relies on it): `ctx.progress` becomes
 * tool_progress events of that call, `maxCallsPerResponse` refuses the extra calls of one response, and a
 * result marked `final` ends the run as the answer with no further model request — only when it is the
 * response's one call and it succeeded.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ReinEvent } from '../../../src-main/core/api/events.js';
import { errorResult, type Tool, type ToolResult } from '../../../src-main/core/tools/tool.js';
import { startFakeAnthropic, text, toolCall, tools, type FakeAnthropic } from '../../support/fakeAnthropic.js';
import { lastToolResults, runWith, testTool } from '../../support/harness.js';

let fake: FakeAnthropic;
beforeEach(async () => {
  fake = await startFakeAnthropic();
});
afterEach(async () => {
  await fake.close();
});

function deliverer(
  result: () => ToolResult,
  opts: { max?: number; late?: (report: () => void) => void } = {},
): Tool<{ n?: number }> & { calls: number } {
  const t = {
    name: 'deliver',
    description: 'delivers',
    source: 'local' as const,
    input: z.strictObject({ n: z.number().optional() }),
    isReadOnly: () => true,
    isDestructive: () => false,
    ...(opts.max !== undefined ? { maxCallsPerResponse: opts.max } : {}),
    calls: 0,
    async call(_i: { n?: number }, ctx: Parameters<Tool['call']>[1]) {
      t.calls++;
      ctx.progress?.({ message: 'step one', data: { k: 1 } });
      ctx.progress?.({ message: 'step two' });
      opts.late?.(() => ctx.progress?.({ message: 'too late' }));
      return result();
    },
  };
  return t;
}

const progressOf = (events: ReinEvent[]) =>
  events.filter((e): e is Extract<ReinEvent, { type: 'tool_progress' }> => e.type === 'tool_progress');

describe('the loop’s contract for progress, per-response limits and final results', () => {
  it('turns ctx.progress into tool_progress events of the call, between its start and end; reports after it returned are dropped', async () => {
    let late: (() => void) | undefined;
    const t = deliverer(() => ({ ok: true, content: 'x' }), { late: (r) => (late = r) });
    fake.enqueue(tools([toolCall('deliver', {}, 'toolu_p1')]), text('ok'));
    const { events } = await runWith(fake, { tools: [t] });
    late!();
    const p = progressOf(events);
    expect(p.map((e) => ({ call_id: e.call_id, tool: e.tool, message: e.message, data: e.data }))).toEqual([
      { call_id: 'toolu_p1', tool: 'deliver', message: 'step one', data: { k: 1 } },
      { call_id: 'toolu_p1', tool: 'deliver', message: 'step two', data: undefined },
    ]);
    expect('data' in p[1]!).toBe(false);
    const types = events.map((e) => e.type);
    expect(types.indexOf('tool_progress')).toBeGreaterThan(types.indexOf('tool_call_start'));
    expect(types.lastIndexOf('tool_progress')).toBeLessThan(types.indexOf('tool_call_end'));
  });

  it('a final result of the response’s only call is the answer: no further model request, the session ends with it', async () => {
    const t = deliverer(() => ({ ok: true, content: 'THE DELIVERABLE', final: true }));
    fake.enqueue(tools([toolCall('deliver', {})], 'Working on it.'));
    const { outcome, session, events } = await runWith(fake, { tools: [t] });
    expect(fake.requests).toHaveLength(1);
    expect(outcome).toMatchObject({ stopReason: 'final', text: 'THE DELIVERABLE', iterations: 1 });
    expect(session.messages.slice(-1)).toEqual([
      { role: 'assistant', content: [{ type: 'text', text: 'THE DELIVERABLE' }] },
    ]);
    expect(events.filter((e) => e.type === 'text_delta').map((e) => (e as { text: string }).text)).toContain(
      'THE DELIVERABLE',
    );
  });

  it('the whole final content is the answer even when the model got a spilled preview of it', async () => {
    const big = `${'a'.repeat(40_000)}END`;
    const t = { ...deliverer(() => ({ ok: true, content: big, final: true })), resultBudget: 5_000 };
    fake.enqueue(tools([toolCall('deliver', {})]));
    const { outcome, session, events } = await runWith(fake, { tools: [t] });
    expect(outcome.text).toBe(big);
    const toolTurn = session.messages[session.messages.length - 2]!;
    expect(events.find((e) => e.type === 'tool_call_end')).toHaveProperty('saved_to');
    expect(JSON.stringify(toolTurn.content).length).toBeLessThan(10_000);
  });

  it('ignores the flag beside another call, and on a failed result', async () => {
    const t = deliverer(() => ({ ok: true, content: 'D', final: true }));
    const other = testTool('other');
    fake.enqueue(tools([toolCall('deliver', {}), toolCall('other', {})]), text('summary of both'));
    expect((await runWith(fake, { tools: [t, other] })).outcome.text).toBe('summary of both');
    const failing = deliverer(() => ({ ...errorResult('business', 'nope'), final: true }));
    fake.enqueue(tools([toolCall('deliver', {})]), text('it failed'));
    expect((await runWith(fake, { tools: [failing] })).outcome.text).toBe('it failed');
  });

  it('refuses calls beyond maxCallsPerResponse in one response, not across responses', async () => {
    const t = deliverer(() => ({ ok: true, content: 'r' }), { max: 1 });
    fake.enqueue(
      tools([toolCall('deliver', { n: 1 }), toolCall('deliver', { n: 2 })]),
      tools([toolCall('deliver', { n: 3 })]),
      text('done'),
    );
    await runWith(fake, { tools: [t] });
    expect(t.calls).toBe(2);
    const [first, second] = lastToolResults(fake, 1);
    expect(first!.is_error).toBeUndefined();
    expect(second).toMatchObject({ is_error: true });
    expect(String(second!.content)).toMatch(
      /^\[business error\] deliver may run only once per response, so this call did not run\./,
    );
    expect(lastToolResults(fake, 2)[0]!.is_error).toBeUndefined();
  });
});
