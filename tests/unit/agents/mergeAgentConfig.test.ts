import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AgentConfig } from '../../../src-main/core/agents/agentConfig.js';
import { DEFAULT_WATCH_DEBOUNCE_MS, mergeAgentConfig } from '../../../src-main/core/agents/mergeAgentConfig.js';
import { GlobalConfig, type GlobalConfigInput } from '../../../src-main/core/config/schema.js';
import { ToolRegistry } from '../../../src-main/core/tools/registry.js';
import type { Tool } from '../../../src-main/core/tools/tool.js';

const globalOf = (input: GlobalConfigInput = {}) => GlobalConfig.parse(input);
const agentOf = (input: z.input<typeof AgentConfig>) => AgentConfig.parse(input);

/** Reads a dotted path out of the merged GlobalConfig-shaped result. */
function at(value: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((v, k) => (v as Record<string, unknown>)[k], value);
}

describe('mergeAgentConfig: rules per key', () => {
  const G: GlobalConfigInput = {
    model: 'g-model',
    small_model: 'g-small',
    max_iterations: 25,
    max_tokens: 8000,
    context_window: 200_000,
    budget: { max_usd_per_run: 2 },
    tools: { allowed: ['bash', 'grep'], denied: ['http'] },
    permissions: {
      mode: 'acceptEdits',
      allowed_commands: ['git status', 'ls'],
      denied_commands: ['rm -rf *'],
      sensitive_patterns: ['*.pem'],
      network_allowlist: ['example.com'],
      gui_unattended: ['screenshot'],
      always_allow_tools: ['file_read'],
      allowed_dirs: ['/data'],
    },
  };

  // [rule, agent config, path in effective.config, expected]
  const table: Array<[string, z.input<typeof AgentConfig>, string, unknown]> = [
    ['model: agent overrides', { model: 'a-model' }, 'model', 'a-model'],
    ['model: absent inherits', {}, 'model', 'g-model'],
    ['small_model: agent overrides', { small_model: 'a-small' }, 'small_model', 'a-small'],
    ['max_iterations: agent overrides', { max_iterations: 80 }, 'max_iterations', 80],
    ['max_tokens: absent inherits', {}, 'max_tokens', 8000],
    ['context_window: agent overrides', { context_window: 50_000 }, 'context_window', 50_000],
    ['budget: agent overrides', { budget: { max_usd_per_run: 0.25 } }, 'budget.max_usd_per_run', 0.25],
    ['budget: empty block inherits', { budget: {} }, 'budget.max_usd_per_run', 2],
    ['mode: agent overrides', { mode: 'plan' }, 'permissions.mode', 'plan'],
    ['mode: absent inherits', {}, 'permissions.mode', 'acceptEdits'],
    ['tools.allowed: replaces', { tools: { allowed: ['file_read'] } }, 'tools.allowed', ['file_read']],
    ['tools.allowed: absent inherits', { tools: { denied: ['x'] } }, 'tools.allowed', ['bash', 'grep']],
    ['tools.allowed: [] means every tool again', { tools: { allowed: [] } }, 'tools.allowed', []],
    ['tools.denied: appends', { tools: { denied: ['bash', 'http'] } }, 'tools.denied', ['http', 'bash']],
    ['tools.denied: cannot be emptied', { tools: { denied: [] } }, 'tools.denied', ['http']],
    [
      'allowed_commands: replaces',
      { permissions: { allowed_commands: ['npm test'] } },
      'permissions.allowed_commands',
      ['npm test'],
    ],
    ['allowed_commands: absent inherits', {}, 'permissions.allowed_commands', ['git status', 'ls']],
    [
      'denied_commands: appends',
      { permissions: { denied_commands: ['git push*', 'rm -rf *'] } },
      'permissions.denied_commands',
      ['rm -rf *', 'git push*'],
    ],
    [
      'denied_commands: cannot be emptied',
      { permissions: { denied_commands: [] } },
      'permissions.denied_commands',
      ['rm -rf *'],
    ],
    [
      'sensitive_patterns: appends',
      { permissions: { sensitive_patterns: ['*.p12'] } },
      'permissions.sensitive_patterns',
      ['*.pem', '*.p12'],
    ],
    [
      'network_allowlist: replaces',
      { permissions: { network_allowlist: ['api.github.com'] } },
      'permissions.network_allowlist',
      ['api.github.com'],
    ],
    ['network_allowlist: absent inherits', {}, 'permissions.network_allowlist', ['example.com']],
    ['gui_unattended: replaces', { permissions: { gui_unattended: [] } }, 'permissions.gui_unattended', []],
    [
      'always_allow_tools: the agent’s own only',
      { permissions: { always_allow_tools: ['grep'] } },
      'permissions.always_allow_tools',
      ['grep'],
    ],
    ['always_allow_tools: never inherits global grants', {}, 'permissions.always_allow_tools', []],
    ['allowed_dirs: always global', { mode: 'plan' }, 'permissions.allowed_dirs', ['/data']],
    ['approval timeout: always global', {}, 'permissions.approval_timeout_seconds', 300],
  ];

  it.each(table)('%s', (_rule, agent, path, expected) => {
    const e = mergeAgentConfig(globalOf(G), agentOf(agent));
    expect(at(e.config, path)).toEqual(expected);
  });

  it('mirrors the merged values in the flat fields the runtime reads', () => {
    const e = mergeAgentConfig(
      globalOf(G),
      agentOf({
        model: 'a',
        max_iterations: 9,
        mode: 'plan',
        auto_approve: true,
        budget: { max_usd_per_run: 1 },
        tools: { denied: ['bash'] },
      }),
    );
    expect(e).toMatchObject({
      model: 'a',
      smallModel: 'g-small',
      maxIterations: 9,
      maxTokens: 8000,
      contextWindow: 200_000,
      mode: 'plan',
      autoApprove: true,
      maxUsdPerRun: 1,
      tools: { allowed: ['bash', 'grep'], denied: ['http', 'bash'] },
    });
    expect(e.permissions).toEqual(e.config.permissions);
    expect(e.mcpServers).toEqual(e.config.mcp_servers);
  });

  it('auto_approve is off unless the agent turns it on', () => {
    expect(mergeAgentConfig(globalOf(), agentOf({})).autoApprove).toBe(false);
    expect(mergeAgentConfig(globalOf(), agentOf({ auto_approve: true })).autoApprove).toBe(true);
  });

  it('leaves keys an agent cannot set exactly as the global config has them', () => {
    const g = globalOf({ ...G, hooks: { Stop: [{ command: 'say done' }] }, daemon: { port: 9000 }, temperature: 0.3 });
    const e = mergeAgentConfig(g, agentOf({ model: 'x' }));
    expect(e.config.hooks).toEqual(g.hooks);
    expect(e.config.daemon).toEqual(g.daemon);
    expect(e.config.temperature).toBe(0.3);
    expect(e.config.tools.result_budget).toBe(g.tools.result_budget);
  });

  it('with an empty agent config the result is the global config (apart from grants)', () => {
    const g = globalOf(G);
    const e = mergeAgentConfig(g, {});
    expect({
      ...e.config,
      permissions: { ...e.config.permissions, always_allow_tools: g.permissions.always_allow_tools },
    }).toEqual(g);
  });

  it('never changes its inputs and shares no lists with them', () => {
    const g = globalOf(G);
    const a = agentOf({ tools: { allowed: ['grep'] }, permissions: { denied_commands: ['x'] } });
    const gBefore = structuredClone(g);
    const aBefore = structuredClone(a);
    const e = mergeAgentConfig(g, a);
    e.config.tools.allowed.push('mutated');
    e.config.permissions.denied_commands.push('mutated');
    e.tools.denied.push('mutated');
    expect(g).toEqual(gBefore);
    expect(a).toEqual(aBefore);
  });
});

describe('mergeAgentConfig: MCP servers', () => {
  const g = globalOf({
    mcp_servers: {
      shared: { command: 'shared-server', _inherit: true },
      personal: { command: 'personal-server' },
      browser: { command: 'global-browser', _inherit: true },
      optedOut: { command: 'opted-out', _inherit: false },
    },
  });

  it('an agent without mcp_servers gets every global server', () => {
    expect(Object.keys(mergeAgentConfig(g, agentOf({})).mcpServers).sort()).toEqual([
      'browser',
      'optedOut',
      'personal',
      'shared',
    ]);
  });

  it('an agent with its own servers keeps only the global ones marked _inherit: true', () => {
    const e = mergeAgentConfig(g, agentOf({ mcp_servers: { notes: { command: 'notes-server' } } }));
    expect(Object.keys(e.mcpServers).sort()).toEqual(['browser', 'notes', 'shared']);
    expect(e.mcpServers.notes).toMatchObject({ command: 'notes-server', type: 'stdio', args: [], env: {} });
    expect(e.config.mcp_servers).toEqual(e.mcpServers);
  });

  it('an empty mcp_servers block drops every global server not marked _inherit', () => {
    expect(Object.keys(mergeAgentConfig(g, agentOf({ mcp_servers: {} })).mcpServers).sort()).toEqual([
      'browser',
      'shared',
    ]);
  });

  it('an agent server replaces the inherited global server of the same name, whole', () => {
    const e = mergeAgentConfig(
      g,
      agentOf({ mcp_servers: { browser: { type: 'http', url: 'http://127.0.0.1:9/mcp' } } }),
    );
    expect(e.mcpServers.browser).toEqual({
      type: 'http',
      url: 'http://127.0.0.1:9/mcp',
      args: [],
      env: {},
      disabled: false,
    });
  });

  it('keeps a server named __proto__ as an ordinary entry', () => {
    // Built by hand: the point is the merge's own handling of the key.
    const servers = JSON.parse(
      '{"__proto__":{"type":"stdio","command":"odd","args":[],"env":{},"disabled":false}}',
    ) as Record<string, never>;
    const e = mergeAgentConfig(g, { mcp_servers: servers });
    expect(Object.keys(e.mcpServers)).toContain('__proto__');
    expect(Object.getPrototypeOf(e.mcpServers)).toBe(Object.prototype);
  });
});

describe('mergeAgentConfig: tools filter the registry, denied wins', () => {
  const tool = (name: string): Tool => ({ name }) as unknown as Tool;
  const registry = () =>
    new ToolRegistry(['bash', 'file_read', 'grep', 'http'].map((n) => ({ ...tool(n), source: 'local' }) as Tool));

  type Lists = { allowed?: string[]; denied?: string[] };
  it.each<[string, Lists, Lists, string[]]>([
    ['nothing set: every tool', {}, {}, ['bash', 'file_read', 'grep', 'http']],
    ['global denies, agent allows it: still denied', { denied: ['bash'] }, { allowed: ['bash', 'grep'] }, ['grep']],
    ['agent allows and denies the same tool: denied', {}, { allowed: ['bash'], denied: ['bash'] }, []],
    ['agent narrows the global allow list', { allowed: ['bash', 'grep', 'http'] }, { allowed: ['grep'] }, ['grep']],
    ['agent denies on top of the global allow list', { allowed: ['bash', 'grep'] }, { denied: ['grep'] }, ['bash']],
  ])('%s', (_rule, globalTools, agentTools, visible) => {
    const e = mergeAgentConfig(globalOf({ tools: { ...globalTools } }), agentOf({ tools: { ...agentTools } }));
    expect(registry().filter(e.tools.allowed, e.tools.denied).names()).toEqual(visible);
  });
});

describe('mergeAgentConfig: heartbeat and watch', () => {
  const g = globalOf({ model: 'big', small_model: 'small-one' });

  it('turns durations and windows into numbers and resolves the heartbeat model', () => {
    const e = mergeAgentConfig(
      g,
      agentOf({ heartbeat: { every: '1h30m', active_hours: '22:00-06:00', model: 'small' } }),
    );
    expect(e.heartbeat).toEqual({
      everyMs: 5_400_000,
      activeHours: { startMinute: 1320, endMinute: 360 },
      model: 'small-one',
      overlapPrevention: true,
    });
    expect(mergeAgentConfig(g, agentOf({ heartbeat: { every: '5m' } })).heartbeat).toEqual({
      everyMs: 300_000,
      model: 'big',
      overlapPrevention: true,
    });
    expect(
      mergeAgentConfig(g, agentOf({ heartbeat: { every: '5m', model: 'other', overlap_prevention: false } })).heartbeat,
    ).toMatchObject({
      model: 'other',
      overlapPrevention: false,
    });
    expect(mergeAgentConfig(g, agentOf({})).heartbeat).toBeUndefined();
  });

  it('gives each watch entry its debounce in ms, 2 s when unset', () => {
    const e = mergeAgentConfig(
      g,
      agentOf({
        watch: [
          { path: '~/a', debounce: '1.5s', glob: '*.md', prompt: 'p' },
          { path: '/b', debounce: 250 },
          { path: '/c' },
        ],
      }),
    );
    expect(e.watch).toEqual([
      { path: '~/a', glob: '*.md', debounceMs: 1500, prompt: 'p' },
      { path: '/b', debounceMs: 250 },
      { path: '/c', debounceMs: DEFAULT_WATCH_DEBOUNCE_MS },
    ]);
  });
});
