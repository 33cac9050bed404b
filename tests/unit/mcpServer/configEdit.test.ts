/**
 * `mcp_servers` edits in config.yaml files: comments and layout survive, the result is checked with the
 * loader's own rules before anything is written, existing entries are never overwritten unasked, and an
 * agent's list keeps its meaning (absent = every global server, present = its own).
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseAgentConfigText } from '../../../src-main/core/agents/agentFiles.js';
import { parseLayer } from '../../../src-main/core/config/load.js';
import {
  addMcpServers,
  checkEntry,
  configTarget,
  planAdd,
  planRemove,
  removeMcpServer,
} from '../../../src-main/core/mcpServer/configEdit.js';
import { isReinError } from '../../../src-main/core/errors.js';

const GLOBAL = { file: '/home/me/.rein/config.yaml', scope: 'global' as const };
const AGENT = { file: '/home/me/.rein/agents/ops/config.yaml', scope: 'agent' as const };

const COMMENTED = `# Rein settings — mine
model: claude-sonnet-5-5   # the everyday model

# servers I use
mcp_servers:
  # GitHub, with a token
  github:
    command: npx
    args: [-y, "@modelcontextprotocol/server-github"]
  # local notes
  notes:
    type: http
    url: http://127.0.0.1:9000/mcp

permissions:
  mode: default
`;

function caught(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  throw new Error('expected a throw');
}

describe('planAdd', () => {
  it('adds an entry keeping every comment, and the result loads', () => {
    const plan = planAdd(
      GLOBAL,
      COMMENTED,
      [
        [
          'fs',
          { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'], env: { DEBUG: '1' } },
        ],
      ],
      false,
    );
    expect(plan.added).toEqual(['fs']);
    for (const c of [
      '# Rein settings — mine',
      '# the everyday model',
      '# servers I use',
      '# GitHub, with a token',
      '# local notes',
    ])
      expect(plan.next).toContain(c);
    expect(plan.next).toMatch(
      / {2}fs:\n {4}command: npx\n {4}args: \[ -y, "@modelcontextprotocol\/server-filesystem", \/tmp \]\n {4}env:\n {6}DEBUG: "1"\n/,
    );
    const loaded = parseLayer(GLOBAL.file, plan.next);
    expect(loaded.ok).toBe(true);
    expect((loaded as unknown as { raw: { mcp_servers: Record<string, unknown> } }).raw.mcp_servers.fs).toEqual({
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'],
      env: { DEBUG: '1' },
    });
  });

  it('writes a URL server as type http', () => {
    const plan = planAdd(
      GLOBAL,
      '',
      [['remote', { url: 'https://mcp.example.com/mcp', disabled: true, context: 'Company wiki' }]],
      false,
    );
    expect(plan.next).toBe(
      'mcp_servers:\n  remote:\n    type: http\n    url: https://mcp.example.com/mcp\n    disabled: true\n    context: Company wiki\n',
    );
  });

  it('reports a name that is already there: the same settings, or a clash kept as it is', () => {
    const same = planAdd(
      GLOBAL,
      COMMENTED,
      [['github', { command: 'npx', args: ['-y', '@modelcontextprotocol/server-github'] }]],
      false,
    );
    expect(same).toMatchObject({ same: ['github'], added: [], clashes: [] });
    expect(same.next).toBe(COMMENTED);
    const clash = planAdd(GLOBAL, COMMENTED, [['github', { command: 'other' }]], false);
    expect(clash).toMatchObject({ clashes: ['github'], added: [] });
    expect(clash.next).toBe(COMMENTED);
    const replaced = planAdd(GLOBAL, COMMENTED, [['github', { command: 'other' }]], true);
    expect(replaced.replaced).toEqual(['github']);
    expect(replaced.next).toContain('# GitHub, with a token\n  github:\n    command: other\n');
  });

  it('makes mcp_servers where there was none, or an empty `{}`', () => {
    for (const text of ['', '# only a comment\n', 'mcp_servers: {}\n', 'model: x\n']) {
      const plan = planAdd(GLOBAL, text, [['a', { command: 'a-server' }]], false);
      expect(plan.next, text).toContain('mcp_servers:\n  a:\n    command: a-server\n');
      expect(parseLayer(GLOBAL.file, plan.next).ok).toBe(true);
    }
    expect(planAdd(GLOBAL, '# only a comment\n', [['a', { command: 'a-server' }]], false).next).toMatch(
      /^# only a comment\n/,
    );
  });

  it('refuses a file that is already broken, naming its problems, and writes nothing', () => {
    const e = caught(() => planAdd(GLOBAL, 'max_iterations: lots\n', [['a', { command: 'x' }]], false));
    expect(isReinError(e, 'config_invalid')).toBe(true);
    expect((e as Error).message).toMatch(/max_iterations/);
  });

  it('checks the result with the agent schema for an agent file', () => {
    const plan = planAdd(AGENT, 'model: claude-haiku-5-5\n', [['gh', { command: 'gh-mcp' }]], false);
    expect(plan.startsOwnList).toBe(true);
    expect(parseAgentConfigText(AGENT.file, plan.next).ok).toBe(true);
    expect(planAdd(AGENT, 'mcp_servers: {}\n', [['gh', { command: 'gh-mcp' }]], false).startsOwnList).toBe(false);
  });
});

describe('planRemove', () => {
  it('removes the entry and moves its comment to the next key', () => {
    const next = planRemove(GLOBAL, COMMENTED, 'github');
    expect(next).not.toContain('server-github');
    expect(next).toContain('# GitHub, with a token');
    expect(next).toContain('# local notes');
    expect(next).toContain('# servers I use');
    expect(parseLayer(GLOBAL.file, next).ok).toBe(true);
  });

  it('drops an emptied table from the global file but keeps `mcp_servers: {}` in an agent’s', () => {
    const text = '# mine\nmcp_servers:\n  only:\n    command: x\nmodel: m\n';
    const global = planRemove(GLOBAL, text, 'only');
    expect(global).not.toContain('mcp_servers');
    expect(global).toContain('# mine');
    expect(global).toContain('model: m');
    const agent = planRemove(AGENT, text, 'only');
    expect(agent).toContain('mcp_servers: {}');
  });

  it('names the servers there are when the name is not one of them', () => {
    const e = caught(() => planRemove(GLOBAL, COMMENTED, 'nope'));
    expect(isReinError(e, 'not_found')).toBe(true);
    expect((e as Error).message).toMatch(/it has: github, notes/);
  });
});

describe('checkEntry', () => {
  it('names the field that is wrong', () => {
    expect(checkEntry('a b', { command: 'x' })).toMatchObject({ ok: false, field: 'name' });
    expect(checkEntry('ok', {})).toMatchObject({ ok: false, field: 'command' });
    expect(checkEntry('ok', { command: 'x', url: 'http://y' })).toMatchObject({ ok: false, field: 'command' });
    expect(checkEntry('ok', { url: 'not a url' })).toMatchObject({ ok: false, field: 'url' });
    expect(checkEntry('ok', { url: 'ftp://x' })).toMatchObject({ ok: false, field: 'url' });
    expect(checkEntry('ok', { command: 'x', env: { 'BAD-NAME': '1' } })).toMatchObject({ ok: false, field: 'env' });
    expect(checkEntry('__proto__', { command: 'x' })).toMatchObject({ ok: false, field: 'name' });
    expect(checkEntry('my.server-1', { command: 'x' })).toEqual({ ok: true });
  });
});

describe('on disk', () => {
  let home: string;
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'rein-mcp-edit-'));
  });
  afterEach(async () => {
    await rm(home, { recursive: true, force: true });
  });

  it('adds to the global file (0600 when new) and removes again', async () => {
    const target = await configTarget(home);
    const report = await addMcpServers(home, target, [['fs', { command: 'fs-mcp' }]]);
    expect(report).toMatchObject({ added: ['fs'], written: true });
    const { stat } = await import('node:fs/promises');
    expect((await stat(target.file)).mode & 0o777).toBe(0o600);
    await removeMcpServer(target, 'fs');
    expect(await readFile(target.file, 'utf8')).toBe('');
  });

  it('a dry run writes nothing', async () => {
    const target = await configTarget(home);
    const report = await addMcpServers(home, target, [['fs', { command: 'fs-mcp' }]], { dryRun: true });
    expect(report).toMatchObject({ added: ['fs'], written: true });
    await expect(readFile(target.file, 'utf8')).rejects.toThrow(/ENOENT/);
  });

  it('an agent must exist; its first own server says which global ones it stops getting', async () => {
    await expect(configTarget(home, 'ops')).rejects.toMatchObject({ code: 'agent_not_found' });
    await expect(configTarget(home, '../x')).rejects.toMatchObject({ code: 'invalid_input' });
    await mkdir(join(home, 'agents', 'ops'), { recursive: true });
    await writeFile(join(home, 'agents', 'ops', 'AGENT.md'), 'You run ops.\n');
    await writeFile(join(home, 'config.yaml'), 'mcp_servers:\n  a: {command: a}\n  b: {command: b, _inherit: true}\n');
    const target = await configTarget(home, 'ops');
    expect(target).toMatchObject({ scope: 'agent', file: join(home, 'agents', 'ops', 'config.yaml') });
    const report = await addMcpServers(home, target, [['own', { command: 'own' }]]);
    expect(report.droppedGlobal).toEqual(['a']);
    expect(await readFile(target.file, 'utf8')).toBe('mcp_servers:\n  own:\n    command: own\n');
  });

  it('refuses invalid input before touching the file', async () => {
    const target = await configTarget(home);
    await expect(addMcpServers(home, target, [['x', { url: 'nope' }]])).rejects.toMatchObject({
      code: 'invalid_request',
      details: { field: 'url' },
    });
    await expect(readFile(target.file, 'utf8')).rejects.toThrow(/ENOENT/);
  });
});
