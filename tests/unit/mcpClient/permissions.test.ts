/**
 * How the permission engine decides MCP calls: they ask unless allowed, whatever the server says;
 * readOnlyHint makes them asked less (plan mode may ask, acceptEdits runs them), destructiveHint makes
 * them high risk; the server's always_allow list and always_allow_tools let them run.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createPermissionEngine } from '../../../src-main/core/permissions/engine.js';
import type { PermissionMode } from '../../../src-main/core/api/patterns.js';
import type { Tool } from '../../../src-main/core/tools/tool.js';

const mcpTool = (tool: string, hints: { readOnly?: boolean; destructive?: boolean } = {}): Tool => ({
  name: `mcp__fs__${tool}`,
  description: '',
  source: 'mcp',
  input: z.unknown(),
  isReadOnly: () => hints.readOnly === true,
  isConcurrencySafe: () => hints.readOnly === true,
  isDestructive: () => hints.destructive === true,
  traits: { mcp: { server: 'fs', tool } },
  call: async () => ({ ok: true, content: '' }),
});

const engine = (o: { always?: string[]; list?: string[] } = {}) =>
  createPermissionEngine({
    permissions: { always_allow_tools: o.always ?? [] },
    home: '/home/u',
    reinHome: '/home/u/.rein',
    ...(o.list ? { mcpAlwaysAllow: { fs: o.list } } : {}),
  });

const check = (
  e: ReturnType<typeof engine>,
  tool: Tool,
  mode: PermissionMode = 'default',
  origin: 'attended' | 'unattended' = 'attended',
) => e.check({ tool, input: {}, cwd: '/home/u/p', mode, source: 'cli', origin, agent: 'default' });

describe('MCP permissions', () => {
  it('asks by default, whatever the annotations', async () => {
    const e = engine();
    for (const t of [
      mcpTool('write_file'),
      mcpTool('read_file', { readOnly: true }),
      mcpTool('move_file', { destructive: true }),
    ]) {
      expect((await check(e, t)).decision).toBe('ask');
    }
  });

  it('risk follows the hints: read-only low, destructive high, others medium', async () => {
    const e = engine();
    expect((await check(e, mcpTool('read_file', { readOnly: true }))).risk).toBe('low');
    expect((await check(e, mcpTool('write_file'))).risk).toBe('medium');
    const d = await check(e, mcpTool('move_file', { destructive: true }));
    expect(d.risk).toBe('high');
    expect(d.riskExplanation).toMatch(/delete or overwrite/);
    expect(d.layer).toBe('mcp');
  });

  it('the server’s always_allow (own name or mcp__ name) and always_allow_tools let a call run', async () => {
    expect(await check(engine({ list: ['read_file'] }), mcpTool('read_file', { readOnly: true }))).toMatchObject({
      decision: 'allow',
      layer: 'mcp_always_allow',
    });
    expect((await check(engine({ list: ['mcp__fs__write_file'] }), mcpTool('write_file'))).decision).toBe('allow');
    expect(await check(engine({ always: ['mcp__fs__write_file'] }), mcpTool('write_file'))).toMatchObject({
      decision: 'allow',
      layer: 'always_allow_tools',
    });
    // Another server's list does not count.
    expect(
      (
        await check(engine({ list: ['write_file'] }), {
          ...mcpTool('write_file'),
          traits: { mcp: { server: 'other', tool: 'write_file' } },
        })
      ).decision,
    ).toBe('ask');
  });

  it('read-only calls are asked less: acceptEdits runs them, plan mode asks instead of refusing', async () => {
    const e = engine();
    expect((await check(e, mcpTool('read_file', { readOnly: true }), 'acceptEdits')).decision).toBe('allow');
    expect((await check(e, mcpTool('write_file'), 'acceptEdits')).decision).toBe('ask');
    expect((await check(e, mcpTool('read_file', { readOnly: true }), 'plan')).decision).toBe('ask');
    expect((await check(e, mcpTool('write_file'), 'plan')).decision).toBe('deny');
    // An allow-listed tool that writes is still refused in plan mode.
    expect((await check(engine({ list: ['write_file'] }), mcpTool('write_file'), 'plan')).decision).toBe('deny');
  });

  it('modes: dontAsk refuses, bypassPermissions runs', async () => {
    const e = engine();
    expect((await check(e, mcpTool('write_file'), 'dontAsk')).decision).toBe('deny');
    expect((await check(e, mcpTool('write_file'), 'bypassPermissions')).decision).toBe('allow');
  });
});
