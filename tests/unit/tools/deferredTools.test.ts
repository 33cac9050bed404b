import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  canonicalOrder,
  CATALOGUE_HEADING,
  newDeferredToolState,
  parseToolQuery,
  planToolExposure,
  searchTools,
  type DeferredToolState,
} from '../../../src-main/core/tools/deferredTools.js';
import { createToolSearchTool } from '../../../src-main/core/tools/builtin/toolSearch.js';
import { ToolRegistry } from '../../../src-main/core/tools/registry.js';
import { SessionReadTracker } from '../../../src-main/core/tools/readTracker.js';
import { okResult, type Tool, type ToolContext, type ToolSource } from '../../../src-main/core/tools/tool.js';

function tool(name: string, source: ToolSource, description = `The ${name} tool.`): Tool {
  return {
    name,
    source,
    description,
    input: z.strictObject({ zeta: z.string().optional(), alpha: z.number().optional() }),
    isReadOnly: () => true,
    isDestructive: () => false,
    call: async () => okResult('ok'),
  };
}

const locals = Array.from({ length: 12 }, (_, i) => tool(`local_${String(i).padStart(2, '0')}`, 'local'));
const mcp = [
  tool('calendar_create_event', 'mcp', 'Create an event in the user calendar. Needs a title and a start time.'),
  tool('calendar_list_events', 'mcp', 'List calendar events between two dates.'),
  tool('crm_find_contact', 'mcp', 'Find a contact in the CRM by name or email.'),
  ...Array.from({ length: 14 }, (_, i) =>
    tool(`mcp_misc_${String(i).padStart(2, '0')}`, 'mcp', `Miscellaneous helper number ${i} for spreadsheets.`),
  ),
];
const cloud = Array.from({ length: 5 }, (_, i) => tool(`cloud_${i}`, 'cloud', `Cloud research helper ${i}.`));

function runtime() {
  const states = new Map<string, DeferredToolState>();
  const registry = new ToolRegistry();
  const search = createToolSearchTool({
    tools: () => registry.list(),
    stateFor: (ctx) => {
      let s = states.get(ctx.sessionId);
      if (!s) states.set(ctx.sessionId, (s = newDeferredToolState()));
      return s;
    },
    definition: (t) => registry.definition(t),
  });
  for (const t of [...cloud, ...mcp, ...locals, search]) registry.register(t);
  return { registry, states, search };
}

async function ctx(sessionId: string): Promise<ToolContext> {
  const dir = await mkdtemp(join(tmpdir(), 'rein-ctx-'));
  return {
    cwd: dir,
    sessionId,
    sessionDir: dir,
    reinHome: dir,
    agent: 'default',
    readTracker: new SessionReadTracker(),
    egress: async () => ({ allowed: true }),
  };
}

describe('planToolExposure', () => {
  it('sends every tool, without tool_search, when 30 or fewer are registered', () => {
    const tools = [...locals, ...mcp.slice(0, 18)];
    const search = tool('tool_search', 'local');
    const plan = planToolExposure([...tools, search], new Set());
    expect(plan.deferring).toBe(false);
    expect(plan.definitions.map((d) => d.name)).toEqual(canonicalOrder(tools).map((t) => t.name));
    expect(plan.catalogue).toBe('');
  });

  it('past 30 tools withholds MCP and cloud tools (never local ones) and lists them in a one-line catalogue', () => {
    const { registry } = runtime();
    const plan = planToolExposure(registry.list(), new Set(), { definition: (t) => registry.definition(t) });
    expect(plan.deferring).toBe(true);
    expect(plan.definitions.map((d) => d.name)).toEqual([...locals.map((t) => t.name), 'tool_search'].sort());
    expect(plan.deferred.map((t) => t.name)).toEqual([
      ...mcp.map((t) => t.name).sort(),
      ...cloud.map((t) => t.name).sort(),
    ]);
    const lines = plan.catalogue.split('\n');
    expect(lines[0]).toBe(CATALOGUE_HEADING);
    expect(lines).toContain('- calendar_create_event: Create an event in the user calendar.');
    expect(lines.filter((l) => l.startsWith('- '))).toHaveLength(mcp.length + cloud.length);
  });

  it('is deterministic whatever the registration order, with schema keys sorted', () => {
    const { registry } = runtime();
    const shuffled = [...registry.list()].reverse();
    const a = planToolExposure(registry.list(), new Set(['cloud_1', 'crm_find_contact']));
    const b = planToolExposure(shuffled, new Set(['crm_find_contact', 'cloud_1']));
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    const def = a.definitions.find((d) => d.name === 'crm_find_contact')!;
    expect(Object.keys((def.input_schema as { properties: object }).properties)).toEqual(['alpha', 'zeta']);
    // Loaded tools are interleaved in canonical order: locals, then MCP, then cloud.
    const names = a.definitions.map((d) => d.name);
    expect(names.indexOf('crm_find_contact')).toBeGreaterThan(names.indexOf('tool_search'));
    expect(names.indexOf('cloud_1')).toBe(names.length - 1);
  });

  it('does not defer without a registered tool_search (nothing could load them)', () => {
    const plan = planToolExposure([...locals, ...mcp, ...cloud], new Set());
    expect(plan.deferring).toBe(false);
    expect(plan.definitions).toHaveLength(locals.length + mcp.length + cloud.length);
  });
});

describe('tool search', () => {
  it('parses select: lists and keywords', () => {
    expect(parseToolQuery('select: a, b ,a')).toEqual({ kind: 'select', names: ['a', 'b'] });
    expect(parseToolQuery('Calendar Events')).toEqual({ kind: 'keywords', terms: ['calendar', 'event'] });
  });

  it('ranks by BM25 over name and description, the name counting more', () => {
    expect(searchTools([...mcp, ...cloud], 'calendar events', 2).map((t) => t.name)).toEqual([
      'calendar_list_events',
      'calendar_create_event',
    ]);
    expect(searchTools([...mcp, ...cloud], 'contact email')[0]!.name).toBe('crm_find_contact');
    expect(searchTools([...mcp, ...cloud], 'cloud_3')[0]!.name).toBe('cloud_3');
    expect(searchTools([...mcp, ...cloud], 'nothing-like-this')).toEqual([]);
  });

  it('tool_search loads matches into the session working set, returns full schemas, and the next plan sends them', async () => {
    const { registry, states, search } = runtime();
    const c = await ctx('s1');
    const r = await search.call({ query: 'calendar events' }, c, new AbortController().signal);
    expect(r.ok).toBe(true);
    expect(r.content.split('\n')[0]).toBe('LOADED: calendar_list_events, calendar_create_event');
    expect(r.content).toContain(
      '{"description":"Create an event in the user calendar. Needs a title and a start time.","input_schema":{',
    );
    expect(states.get('s1')!.loaded).toEqual(['calendar_create_event', 'calendar_list_events']);

    const plan = planToolExposure(registry.list(), new Set(states.get('s1')!.loaded), {
      definition: (t) => registry.definition(t),
    });
    expect(plan.definitions.map((d) => d.name)).toContain('calendar_create_event');
    expect(plan.catalogue).not.toContain('- calendar_create_event');
    expect(plan.catalogue).toContain('- crm_find_contact');

    // Another session of the same runtime has its own working set.
    await search.call({ query: 'select:crm_find_contact' }, await ctx('s2'), new AbortController().signal);
    expect(states.get('s2')!.loaded).toEqual(['crm_find_contact']);
    expect(states.get('s1')!.loaded).not.toContain('crm_find_contact');
  });

  it('select: reports unknown names and tools that need no loading', async () => {
    const { states, search } = runtime();
    const r = await search.call(
      { query: 'select:cloud_2,local_03,nope' },
      await ctx('s'),
      new AbortController().signal,
    );
    expect(r.content).toMatch(/^LOADED: cloud_2\n/);
    expect(r.content).toContain('Already available without loading: local_03.');
    expect(r.content).toContain('No tool named: nope.');
    expect(states.get('s')!.loaded).toEqual(['cloud_2']);
  });

  it('says so when nothing matches and loads nothing', async () => {
    const { states, search } = runtime();
    const r = await search.call({ query: 'quantum teleport' }, await ctx('s'), new AbortController().signal);
    expect(r.ok).toBe(true);
    expect(r.content).toMatch(/^No deferred tool matches "quantum teleport"/);
    expect(states.get('s')).toBeUndefined();
  });

  it('never loads local tools by keyword', async () => {
    const { search, states } = runtime();
    await search.call({ query: 'local' }, await ctx('s'), new AbortController().signal);
    expect(states.get('s')).toBeUndefined();
    await search.call({ query: 'local_01' }, await ctx('s'), new AbortController().signal);
    expect(states.get('s')!.loaded).toEqual(['mcp_misc_01']);
  });
});
