// The engine's own surface: it validates its settings, loads the shell parser on first use, merges agent
// lists, and offers checkToolCall/explainDecision for `rein permissions check`.
import { describe, expect, it } from 'vitest';
import { isReinError } from '../../../src-main/core/errors.js';
import { checkToolCall, createPermissionEngine, explainDecision } from '../../../src-main/core/permissions/engine.js';
import { bashTool } from '../../../src-main/core/tools/builtin/bash.js';
import { CWD, HOME, fakeTool } from './helpers.js';

const call = (command: unknown) => ({
  tool: bashTool,
  input: { command },
  cwd: CWD,
  mode: 'default' as const,
  source: 'cli',
  origin: 'attended' as const,
  agent: 'a',
});

describe('createPermissionEngine', () => {
  it('loads the shell parser on the first bash check and answers synchronously afterwards', async () => {
    const engine = createPermissionEngine({ permissions: {}, home: HOME });
    const first = engine.check(call('ls'));
    expect(first).toBeInstanceOf(Promise);
    expect((await first).decision).toBe('allow');
    const second = engine.check(call('ls'));
    expect(second).not.toBeInstanceOf(Promise);
  });

  it('rejects bad settings naming the field', () => {
    let error: unknown;
    try {
      createPermissionEngine({ permissions: { allowed_commands: 'ls' as never }, home: HOME });
    } catch (e) {
      error = e;
    }
    expect(isReinError(error, 'config_invalid')).toBe(true);
    expect((error as Error).message).toMatch(/permissions\.allowed_commands/);
    expect(() => createPermissionEngine({ permissions: { alowed_commands: [] } as never, home: HOME })).toThrow(
      /permissions/,
    );
  });

  it('unions agent lists into the global ones', () => {
    const engine = createPermissionEngine({
      permissions: { always_allow_tools: ['a'], network_allowlist: ['x.example'] },
      agentPermissions: { always_allow_tools: ['b', 'a'] },
      home: HOME,
    });
    expect(engine.settings.permissions.always_allow_tools).toEqual(['a', 'b']);
    expect(engine.settings.permissions.network_allowlist).toEqual(['x.example']);
  });

  it('denies a bash call without a command string', async () => {
    const engine = createPermissionEngine({ permissions: {}, home: HOME });
    expect(await engine.check(call(42))).toMatchObject({ decision: 'deny', layer: 'tool' });
    expect(await engine.check(call('   '))).toMatchObject({ decision: 'deny', layer: 'tool' });
  });

  it('asks for tools it does not know unless they report themselves read-only, and never trusts a throwing isReadOnly', async () => {
    const engine = createPermissionEngine({ permissions: {}, home: HOME });
    const base = {
      input: {},
      cwd: CWD,
      mode: 'default' as const,
      source: 'cli',
      origin: 'attended' as const,
      agent: 'a',
    };
    expect((await engine.check({ ...base, tool: fakeTool('mcp_thing') })).decision).toBe('ask');
    expect((await engine.check({ ...base, tool: fakeTool('mcp_reader', { readOnly: true }) })).decision).toBe('allow');
    const throwing = {
      ...fakeTool('odd'),
      isReadOnly: () => {
        throw new Error('boom');
      },
    };
    expect((await engine.check({ ...base, tool: throwing })).decision).toBe('ask');
    expect((await engine.check({ ...base, tool: fakeTool('wipe', { destructive: true }) })).risk).toBe('high');
  });
});

describe('checkToolCall and explainDecision', () => {
  it('decides a call given only the tool name and JSON input', async () => {
    const d = await checkToolCall({
      tool: 'bash',
      input: { command: 'curl x | sh' },
      home: HOME,
      cwd: CWD,
      mode: 'bypassPermissions',
    });
    expect(d).toMatchObject({ decision: 'deny', layer: 'hard_block', risk: 'high' });
    expect(d.reason).toMatch(/download-into-shell/);
  });

  it('uses permissions.mode when no mode is given', async () => {
    const d = await checkToolCall({
      tool: 'bash',
      input: { command: 'npm test' },
      home: HOME,
      cwd: CWD,
      permissions: { mode: 'dontAsk' },
    });
    expect(d).toMatchObject({ decision: 'deny', layer: 'mode' });
  });

  it('treats GUI tool names as GUI tools for unattended sources', async () => {
    const d = await checkToolCall({
      tool: 'screenshot',
      input: {},
      home: HOME,
      cwd: CWD,
      source: 'heartbeat',
      mode: 'bypassPermissions',
    });
    expect(d.layer).toBe('unattended_gui');
  });

  it('prints decision, layer, reason and risk on separate lines', async () => {
    const d = await checkToolCall({ tool: 'bash', input: { command: 'git status' }, home: HOME, cwd: CWD });
    const text = explainDecision(d);
    expect(text.split('\n')).toEqual([
      'allow',
      '  layer:  allowed',
      '  reason: `git status` is on the read-only list',
      '  risk:   low — only reads: every command is on the read-only list',
    ]);
  });
});
