import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveAgentRuntimeConfig } from '../../../src-main/core/agents/runtimeConfig.js';
import { GlobalConfig } from '../../../src-main/core/config/schema.js';
import { isReinError } from '../../../src-main/core/errors.js';

let home: string;
const userHome = '/Users/someone';
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'rein-agent-rt-'));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

async function writeAgent(name: string, files: Record<string, string>) {
  for (const [rel, text] of Object.entries(files)) {
    const file = join(home, 'agents', name, rel);
    await mkdir(join(file, '..'), { recursive: true });
    await writeFile(file, text);
  }
}

const global = GlobalConfig.parse({
  model: 'g',
  permissions: { always_allow_tools: ['file_read'], denied_commands: ['rm -rf *'] },
  mcp_servers: { everywhere: { command: 'e', _inherit: true }, mine: { command: 'm' } },
});

describe('resolveAgentRuntimeConfig', () => {
  it('gives a named agent its persona, merged settings and its own folders', async () => {
    await writeAgent('coder', {
      'AGENT.md': 'You code.',
      'config.yaml': 'model: a\nmode: plan\ncwd: ~/src\nmcp_servers: {}\nwatch:\n  - path: ~/inbox\n',
      '_attached.yaml': '[pdf]',
      'HEARTBEAT.md': 'check CI',
    });
    const dir = join(home, 'agents', 'coder');
    const rt = await resolveAgentRuntimeConfig(home, global, 'coder', { userHome });
    expect(rt).toMatchObject({
      name: 'coder',
      isDefault: false,
      dir,
      persona: 'You code.',
      agentConfig: { model: 'a', mode: 'plan' },
      memoryDir: dir,
      memoryFile: join(dir, 'MEMORY.md'),
      sessionsDir: join(dir, 'sessions'),
      skillsDir: join(dir, 'skills'),
      globalSkillsDir: join(home, 'skills'),
      attachedSkills: ['pdf'],
      allGlobalSkills: false,
      commandsDir: join(dir, 'commands'),
      globalCommandsDir: join(home, 'commands'),
      heartbeatFile: join(dir, 'HEARTBEAT.md'),
      cwd: '/Users/someone/src',
      watch: [{ path: '/Users/someone/inbox', debounceMs: 2000 }],
    });
    expect(rt.effective).toMatchObject({ model: 'a', mode: 'plan', autoApprove: false });
    expect(Object.keys(rt.effective.mcpServers)).toEqual(['everywhere']);
    // Isolation: the global always-allow grants are not this agent's.
    expect(rt.effective.permissions.always_allow_tools).toEqual([]);
    expect(rt.effective.permissions.denied_commands).toEqual(['rm -rf *']);
  });

  it('gives the built-in default agent the global config and the top-level folders', async () => {
    const rt = await resolveAgentRuntimeConfig(home, global, 'default', { userHome });
    expect(rt).toMatchObject({
      name: 'default',
      isDefault: true,
      agentConfig: {},
      memoryDir: join(home, 'memory'),
      memoryFile: join(home, 'memory', 'MEMORY.md'),
      sessionsDir: join(home, 'sessions'),
      globalSkillsDir: join(home, 'skills'),
      skillsDir: join(home, 'agents', 'default', 'skills'),
      attachedSkills: [],
      allGlobalSkills: true,
      commandsDir: join(home, 'agents', 'default', 'commands'),
      globalCommandsDir: join(home, 'commands'),
      watch: [],
    });
    expect(rt.persona).toBeUndefined();
    expect(rt.dir).toBeUndefined();
    expect(rt.effective.config).toEqual(global);
    expect(rt.effective.permissions.always_allow_tools).toEqual(['file_read']);
  });

  it('keeps two agents apart: no folder of one is a folder of the other', async () => {
    await writeAgent('a', { 'AGENT.md': 'A' });
    await writeAgent('b', { 'AGENT.md': 'B' });
    const [a, b, d] = await Promise.all(
      ['a', 'b', 'default'].map((n) => resolveAgentRuntimeConfig(home, global, n, { userHome })),
    );
    const folders = (rt: typeof a) => [rt!.memoryDir, rt!.sessionsDir, rt!.skillsDir, rt!.commandsDir].filter(Boolean);
    const all = [...folders(a), ...folders(b), ...folders(d)];
    expect(new Set(all).size).toBe(all.length);
    expect(a!.persona).toBe('A');
    expect(b!.persona).toBe('B');
  });

  it('fails like loadAgent: bad name, missing agent, broken config', async () => {
    await writeAgent('broken', { 'AGENT.md': 'p', 'config.yaml': 'max_iterations: many\n' });
    const codeOf = (p: Promise<unknown>) =>
      p.then(
        () => 'resolved',
        (e) => (isReinError(e) ? e.code : String(e)),
      );
    expect(await codeOf(resolveAgentRuntimeConfig(home, global, 'Nope'))).toBe('invalid_input');
    expect(await codeOf(resolveAgentRuntimeConfig(home, global, 'ghost'))).toBe('not_found');
    expect(await codeOf(resolveAgentRuntimeConfig(home, global, 'broken'))).toBe('config_invalid');
  });
});
