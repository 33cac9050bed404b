// What counts as raising an agent's permissions (the API changes a person must confirm in the app):
// compared on what the agent runs with, its config merged over the global one.
import { describe, expect, it } from 'vitest';
import type { AgentConfig } from '../../../src-main/core/agents/index.js';
import { GlobalConfig, type GlobalConfigInput } from '../../../src-main/core/config/schema.js';
import { describeRaises, permissionRaises } from '../../../src-main/core/permissions/raises.js';
import { agentPosture } from '../../../src-main/core/service/agents.js';

const fields = (before: AgentConfig, after: AgentConfig, global: GlobalConfigInput = {}) => {
  const g = GlobalConfig.parse(global);
  return permissionRaises(agentPosture(g, before), agentPosture(g, after)).map((r) => r.field);
};

describe('permissionRaises', () => {
  it.each([
    [{}, { mode: 'acceptEdits' }, ['mode']],
    [{}, { mode: 'bypassPermissions' }, ['mode']],
    [{ mode: 'plan' }, { mode: 'default' }, ['mode']],
    [{ mode: 'plan' }, { mode: 'dontAsk' }, ['mode']],
    [{}, { auto_approve: true }, ['auto_approve']],
    [{}, { unattended_approvals: 'ask' }, ['unattended_approvals']],
    [{}, { permissions: { allowed_commands: ['npm test'] } }, ['permissions.allowed_commands']],
    [{}, { permissions: { always_allow_tools: ['file_write'] } }, ['permissions.always_allow_tools']],
    [{}, { permissions: { gui_unattended: ['screenshot'] } }, ['permissions.gui_unattended']],
    [{}, { permissions: { network_allowlist: ['*'] } }, ['permissions.network_allowlist']],
    [{ permissions: { denied_commands: ['terraform'] } }, {}, ['permissions.denied_commands']],
    [{ permissions: { sensitive_patterns: ['*.sqlite'] } }, {}, ['permissions.sensitive_patterns']],
    [{ tools: { denied: ['bash'] } }, { tools: { denied: [] } }, ['tools.denied']],
    [{ tools: { allowed: ['file_read'] } }, { tools: { allowed: [] } }, ['tools.allowed']],
    [{ tools: { allowed: ['file_read'] } }, { tools: { allowed: ['file_read', 'bash'] } }, ['tools.allowed']],
    [{}, { mcp_servers: { gh: { command: 'npx', args: ['gh-mcp'] } } }, ['mcp_servers.gh']],
    [
      { mcp_servers: { gh: { command: 'npx', args: ['gh-mcp'] } } },
      { mcp_servers: { gh: { command: 'sh', args: ['-c', 'x'] } } },
      ['mcp_servers.gh'],
    ],
    [{ mode: 'acceptEdits' }, { mode: 'acceptEdits', cwd: '~' }, ['cwd']],
    [{}, { mode: 'bypassPermissions', auto_approve: true }, ['mode', 'auto_approve']],
  ] as [AgentConfig, AgentConfig, string[]][])('%j → %j raises %j', (before, after, expected) => {
    expect(fields(before, after)).toEqual(expected);
  });

  it.each([
    [{}, { model: 'claude-opus-4-6', max_iterations: 10 }],
    [{}, { mode: 'plan' }],
    [{ mode: 'bypassPermissions' }, { mode: 'default' }],
    [{ auto_approve: true }, {}],
    [{ permissions: { allowed_commands: ['npm test', 'ls'] } }, { permissions: { allowed_commands: ['ls'] } }],
    [{}, { permissions: { denied_commands: ['rm'] }, tools: { denied: ['bash'] } }],
    [{}, { tools: { allowed: ['file_read'] } }],
    [{ mcp_servers: { gh: { command: 'npx' } } }, {}],
    [{}, { heartbeat: { every: '30m' } }],
    [{}, { cwd: '~/work' }],
  ] as [AgentConfig, AgentConfig][])('%j → %j raises nothing', (before, after) => {
    expect(fields(before, after)).toEqual([]);
  });

  it('base_url set to another server is a raise; the same server, or removing it, is not', () => {
    const globals = (before: GlobalConfigInput, after: GlobalConfigInput) =>
      permissionRaises(agentPosture(GlobalConfig.parse(before), {}), agentPosture(GlobalConfig.parse(after), {}));
    expect(globals({}, { base_url: 'https://proxy.example.com' })).toEqual([
      {
        field: 'base_url',
        change: '(the default) → https://proxy.example.com: the API key and every conversation go there',
      },
    ]);
    expect(
      globals({ base_url: 'https://a.example.com/v1' }, { base_url: 'https://b.example.com/v1' }).map((r) => r.field),
    ).toEqual(['base_url']);
    expect(globals({ base_url: 'https://a.example.com/v1' }, { base_url: 'https://A.example.com/v1/' })).toEqual([]);
    expect(globals({ base_url: 'https://a.example.com' }, {})).toEqual([]);
  });

  it('compares with what the global config already grants', () => {
    const global = { permissions: { mode: 'acceptEdits' as const, allowed_commands: ['npm test'] } };
    expect(fields({}, { mode: 'acceptEdits', permissions: { allowed_commands: ['npm test'] } }, global)).toEqual([]);
    expect(fields({}, { mode: 'bypassPermissions' }, global)).toEqual(['mode']);
  });

  it('says what changes in words', () => {
    const g = GlobalConfig.parse({});
    const raises = permissionRaises(
      agentPosture(g, {}),
      agentPosture(g, { mode: 'bypassPermissions', permissions: { allowed_commands: ['a', 'b', 'c', 'd', 'e'] } }),
    );
    expect(raises).toEqual([
      { field: 'mode', change: 'default → bypassPermissions' },
      { field: 'permissions.allowed_commands', change: 'adds "a", "b", "c", "d" and 1 more' },
    ]);
    expect(describeRaises(raises)).toBe(
      'mode default → bypassPermissions; permissions.allowed_commands adds "a", "b", "c", "d" and 1 more',
    );
  });
});
