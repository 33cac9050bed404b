// Tools that keep state between calls (the deferred-tool working set, accessibility refs) keep it in
// the session's slots: one value per key, made once, shared by every call of the run's tool context.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createToolSearchTool } from '../../../src-main/core/tools/builtin/toolSearch.js';
import { DEFERRED_TOOLS_SLOT, newDeferredToolState } from '../../../src-main/core/tools/deferredTools.js';
import { SessionSlots, sessionSlots, slotKey } from '../../../src-main/core/tools/sessionSlots.js';
import { okResult, type Tool } from '../../../src-main/core/tools/tool.js';
import { callTool, makeToolContext } from './toolTestContext.js';

describe('SessionSlots', () => {
  it('makes a slot’s state once and hands the same object to every later call', () => {
    const slots = new SessionSlots();
    const refs = slotKey<Map<string, string>>('ax_refs');
    let made = 0;
    const init = () => {
      made++;
      return new Map<string, string>();
    };
    slots.slot(refs, init).set('e1', 'button OK');
    expect(slots.slot(refs, init).get('e1')).toBe('button OK');
    expect(made).toBe(1);
  });

  it('keeps keys apart by identity, even when two tools chose the same name', () => {
    const slots = new SessionSlots();
    const a = slotKey<{ n: number }>('state');
    const b = slotKey<{ n: number }>('state');
    slots.slot(a, () => ({ n: 1 }));
    expect(slots.slot(b, () => ({ n: 2 })).n).toBe(2);
    expect(slots.slot(a, () => ({ n: 3 })).n).toBe(1);
  });

  it('takes seeded state as the slot’s value, replacing what was there', () => {
    const slots = new SessionSlots();
    const saved = { loaded: ['calendar'] };
    slots.slot(DEFERRED_TOOLS_SLOT, newDeferredToolState).loaded.push('stale');
    slots.seed(DEFERRED_TOOLS_SLOT, saved);
    expect(slots.slot(DEFERRED_TOOLS_SLOT, newDeferredToolState)).toBe(saved);
  });

  it('lives on the tool context: made on first use, then the same for that context only', async () => {
    const one = await makeToolContext();
    const two = await makeToolContext();
    try {
      expect(one.ctx.session).toBeUndefined();
      const slots = sessionSlots(one.ctx);
      expect(sessionSlots(one.ctx)).toBe(slots);
      expect(one.ctx.session).toBe(slots);
      expect(sessionSlots(two.ctx)).not.toBe(slots);
    } finally {
      await Promise.all([one.cleanup(), two.cleanup()]);
    }
  });
});

describe('tool_search keeps its working set in the session slot', () => {
  const server = (name: string): Tool => ({
    name,
    description: `${name} from a server.`,
    source: 'mcp',
    input: z.object({}),
    isReadOnly: () => true,
    isDestructive: () => false,
    call: async () => okResult(name),
  });
  const all = [server('calendar_list'), server('crm_find')];
  const search = createToolSearchTool({ tools: () => all });

  it('adds what it loads to the seeded state (which the loop saves), one working set per session', async () => {
    const a = await makeToolContext();
    const b = await makeToolContext({ sessionId: 'other' });
    try {
      const saved = { loaded: ['crm_find'] };
      sessionSlots(a.ctx).seed(DEFERRED_TOOLS_SLOT, saved);
      expect((await callTool(search, { query: 'select:calendar_list' }, a.ctx)).content).toMatch(
        /^LOADED: calendar_list/,
      );
      expect(saved.loaded).toEqual(['calendar_list', 'crm_find']);

      await callTool(search, { query: 'select:crm_find' }, b.ctx);
      expect(sessionSlots(b.ctx).slot(DEFERRED_TOOLS_SLOT, newDeferredToolState).loaded).toEqual(['crm_find']);
      expect(saved.loaded).toEqual(['calendar_list', 'crm_find']);
    } finally {
      await Promise.all([a.cleanup(), b.cleanup()]);
    }
  });
});
