/** The loop's use of hooks, the loop detector and the audit log, end to end with the fake model. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditLog } from '../../../src-main/core/audit/auditLog.js';
import { defaultConfig } from '../../../src-main/core/config/schema.js';
import { startFakeAnthropic, text, toolCall, tools, type FakeAnthropic } from '../../support/fakeAnthropic.js';
import { face, lastToolResults, runWith, testTool } from '../../support/harness.js';

let fake: FakeAnthropic;
beforeEach(async () => {
  fake = await startFakeAnthropic();
});
afterEach(async () => {
  await fake.close();
});

const hooksWith = (over: Partial<ReturnType<typeof defaultConfig>['hooks']>) => ({ ...defaultConfig().hooks, ...over });

describe('hooks in the loop', () => {
  it('a PreToolUse hook that exits 2 denies the call with its reason', async () => {
    const writer = testTool('writer', { readOnly: true });
    fake.enqueue(tools([toolCall('writer', { arg: 'x' })]), text('ok'));
    await runWith(fake, {
      tools: [writer],
      deps: { hooks: hooksWith({ PreToolUse: [{ matcher: 'writer', command: 'echo "not on Fridays" >&2; exit 2' }] }) },
    });
    expect(writer.calls).toHaveLength(0);
    expect(String(lastToolResults(fake)[0]!.content)).toMatch(/denied by hook: not on Fridays/);
  });

  it('a PreToolUse hook can rewrite the input', async () => {
    const writer = testTool('writer', { readOnly: true });
    fake.enqueue(tools([toolCall('writer', { arg: 'original' })]), text('ok'));
    await runWith(fake, {
      tools: [writer],
      deps: { hooks: hooksWith({ PreToolUse: [{ command: `echo '{"input":{"arg":"rewritten"}}'` }] }) },
    });
    expect(writer.calls).toEqual([{ arg: 'rewritten' }]);
  });

  it('a Stop hook keeps the model going with its message, then lets the run end', async () => {
    fake.enqueue(text('Finished.'), text('Now the tests pass too.'));
    const dir = (await import('node:os')).tmpdir();
    const marker = join(dir, `rein-stop-${process.pid}-${Date.now()}`);
    const { outcome } = await runWith(fake, {
      deps: {
        hooks: hooksWith({
          Stop: [
            {
              command: `if [ -e ${marker} ]; then exit 0; fi; touch ${marker}; echo '{"decision":"block","message":"run the tests first"}'`,
            },
          ],
        }),
      },
    });
    expect(fake.requests).toHaveLength(2);
    expect(JSON.stringify(fake.requests[1]!.body.messages.at(-1))).toContain('run the tests first');
    expect(outcome.text).toBe('Now the tests pass too.');
  });

  it('SessionStart hook context reaches the model', async () => {
    fake.enqueue(text('ok'));
    await runWith(fake, {
      deps: { hooks: hooksWith({ SessionStart: [{ command: `echo '{"context":"The deploy freeze is on."}'` }] }) },
    });
    expect(JSON.stringify(fake.requests[0]!.body.messages[0])).toContain('The deploy freeze is on.');
  });
});

describe('loop detection in the loop', () => {
  it('nudges on repeated identical calls, then forces a final answer without tools', async () => {
    const reader = testTool('reader', { run: () => 'same result' });
    fake.fallback = (req) =>
      (req.body as { tool_choice?: { type: string } }).tool_choice?.type === 'none'
        ? text('Here is what I found so far.')
        : tools([toolCall('reader', { arg: 'same' })]);
    const { outcome, events } = await runWith(fake, { tools: [reader] });
    const nudges = events.filter((e) => e.type === 'loop_nudge');
    expect(nudges.some((e) => e.type === 'loop_nudge' && e.action === 'nudge')).toBe(true);
    expect(nudges.at(-1)).toMatchObject({ action: 'force_stop' });
    expect(outcome.stopReason).toBe('final');
    expect(outcome.text).toBe('Here is what I found so far.');
    expect((fake.requests.at(-1)!.body as { tool_choice?: unknown }).tool_choice).toEqual({ type: 'none' });
    expect(fake.requests.length).toBeLessThan(25);
  });
});

describe('audit log', () => {
  it('records allowed and denied calls with layer and approver', async () => {
    const reader = testTool('reader');
    const writer = testTool('writer', { readOnly: false });
    fake.enqueue(
      tools([toolCall('reader', { arg: 'sk-ant-api03-SECRETSECRETSECRET' }), toolCall('writer', { arg: 'w' })]),
      text('ok'),
    );
    const dir = (await import('node:fs')).mkdtempSync(join((await import('node:os')).tmpdir(), 'rein-audit-'));
    const file = join(dir, 'audit.jsonl');
    await runWith(fake, { tools: [reader, writer], faces: [face('deny')], deps: { audit: new AuditLog(file) } });
    const lines = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(2);
    const byTool = Object.fromEntries(lines.map((l) => [l.tool, l]));
    expect(byTool.reader).toMatchObject({ decision: 'allow', layer: 'read_only', approved_by: 'policy', ok: true });
    expect(byTool.writer).toMatchObject({ decision: 'deny', approved_by: null });
    expect(JSON.stringify(byTool.reader.args)).not.toContain('SECRETSECRET');
  });
});
