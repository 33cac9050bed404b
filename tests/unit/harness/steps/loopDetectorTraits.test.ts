import { describe, expect, it } from 'vitest';
import { makeRecord } from '../../../../src-main/core/harness/loopDetectors/callRecord.js';
import { DETECTORS } from '../../../../src-main/core/harness/loopDetectors/index.js';
import { sleepPolling } from '../../../../src-main/core/harness/loopDetectors/sleepPolling.js';
import { stalledThink } from '../../../../src-main/core/harness/loopDetectors/stalledThink.js';
import type { ToolTraits } from '../../../../src-main/core/tools/traits.js';

const shell: ToolTraits = { command: { language: 'shell', field: 'script' } };
const record = (seq: number, tool: string, input: unknown, traits?: ToolTraits) =>
  makeRecord(seq, { tool, traits, input, ok: true, content: `out ${seq}` });

describe('loop detectors dispatch on traits', () => {
  it('counts `sleep N` in any tool that runs shell lines, by the field its trait names', () => {
    const w = [
      record(1, 'mcp__box__run', { script: 'sleep 5; check' }, shell),
      record(2, 'mcp__box__run', { script: 'sleep 9; check' }, shell),
    ];
    expect(sleepPolling(w)).toMatchObject({ detector: 'sleep_polling', action: 'nudge' });
  });

  it('does not read `sleep` out of a tool without the shell trait, whatever it is called', () => {
    const w = [record(1, 'bash', { command: 'sleep 5' }), record(2, 'bash', { command: 'sleep 9' })];
    expect(sleepPolling(w)).toBeUndefined();
  });

  it('compares thoughts of a tool that thinks aloud, and no other', () => {
    const thinks: ToolTraits = { thinksAloud: true };
    expect(stalledThink([record(1, 'ponder', {}, thinks), record(2, 'ponder', {}, thinks)])).toMatchObject({
      detector: 'empty_think',
      action: 'force_stop',
    });
    expect(stalledThink([record(1, 'think', {}), record(2, 'think', {})])).toBeUndefined();
  });

  it('composes eleven detectors, the stalled-thought check first', () => {
    expect(DETECTORS).toHaveLength(11);
    expect(DETECTORS[0]).toBe(stalledThink);
  });
});
