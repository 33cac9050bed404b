// Whether a tool drives the screen comes from its traits: an unattended run refuses any tool that says
// so, whatever it is called, and lets a tool through that does not, even one named like a GUI tool.
import { describe, expect, it } from 'vitest';
import { checkToolCall, createPermissionEngine } from '../../../src-main/core/permissions/engine.js';
import type { ToolTraits } from '../../../src-main/core/tools/traits.js';
import { CWD, fakeTool, HOME } from './helpers.js';

const unattended = async (name: string, traits?: ToolTraits) => {
  const engine = createPermissionEngine({ permissions: {}, home: HOME });
  const tool = { ...fakeTool(name, { readOnly: true }), ...(traits ? { traits } : {}) };
  return engine.check({
    tool,
    input: {},
    cwd: CWD,
    mode: 'bypassPermissions',
    source: 'schedule',
    origin: 'unattended',
    agent: 'default',
  });
};

describe('GUI tools are known by their traits', () => {
  it('refuses a tool that drives the GUI or belongs to the gui family in an unattended run', async () => {
    expect((await unattended('window_mover', { drivesGui: true })).layer).toBe('unattended_gui');
    expect((await unattended('ax_press', { family: 'gui' })).layer).toBe('unattended_gui');
  });

  it('does not treat a registered tool as a GUI tool for its name alone', async () => {
    expect((await unattended('screenshot')).decision).toBe('allow');
  });

  it('still answers for a GUI tool asked about by name before it is registered', async () => {
    const d = await checkToolCall({
      tool: 'computer',
      input: {},
      home: HOME,
      cwd: CWD,
      source: 'watcher',
      mode: 'bypassPermissions',
    });
    expect(d.layer).toBe('unattended_gui');
  });
});
