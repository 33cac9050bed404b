import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { agentsCommand } from '../../../src-main/cli/commands/agents.js';
import type { CliIo } from '../../../src-main/cli/io.js';

let root: string;
let home: string;
let cwd: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'rein-agents-cli-'));
  home = join(root, 'home');
  cwd = join(root, 'work');
  await mkdir(home, { recursive: true });
  await mkdir(cwd, { recursive: true });
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function run(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  const io: CliIo = { stdin: new PassThrough(), stdout, stderr, env: { REIN_HOME: home }, cwd };
  const code = await agentsCommand(argv, io);
  await new Promise((r) => setImmediate(r));
  return { code, stdout: out, stderr: err };
}

async function writeAgent(name: string, files: Record<string, string>) {
  for (const [rel, text] of Object.entries(files)) {
    const file = join(home, 'agents', name, rel);
    await mkdir(join(file, '..'), { recursive: true });
    await writeFile(file, text);
  }
}

describe('rein agents create / list / delete', () => {
  it('creates an agent from a file, lists it, and deletes it into the trash', async () => {
    await writeFile(join(cwd, 'persona.md'), '# Reviewer\nYou review pull requests carefully.\n');
    const created = await run('create', 'reviewer', '--from-file', 'persona.md');
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/Created agent "reviewer"/);
    expect(await readFile(join(home, 'agents', 'reviewer', 'AGENT.md'), 'utf8')).toBe(
      '# Reviewer\nYou review pull requests carefully.\n',
    );

    const listed = await run('list');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toBe('default   (built-in)\nreviewer  Reviewer\n');

    const deleted = await run('delete', 'reviewer');
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.stdout).toMatch(/Moved agent "reviewer" to .*trash\/agents\/reviewer-/);
    const trashed = await readdir(join(home, 'trash', 'agents'));
    expect(trashed).toHaveLength(1);
    expect(await readFile(join(home, 'trash', 'agents', trashed[0]!, 'AGENT.md'), 'utf8')).toMatch(/Reviewer/);
    expect((await run('list')).stdout).toBe('default  (built-in)\n');
  });

  it('creates with a starter persona when no file is given, and refuses to create it twice', async () => {
    expect((await run('create', 'helper')).code).toBe(0);
    expect(await readFile(join(home, 'agents', 'helper', 'AGENT.md'), 'utf8')).toMatch(/You are helper/);
    const again = await run('create', 'helper');
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already exists/);
  });

  it('marks an agent with problems in the list instead of failing', async () => {
    await writeAgent('shaky', { 'AGENT.md': 'p', 'config.yaml': 'mode: nope\n' });
    expect((await run('list')).stdout).toMatch(/shaky +\(has problems: run `rein agents validate shaky`\)/);
  });

  it('fails (1) for a missing --from-file and for deleting an agent that does not exist', async () => {
    const missing = await run('create', 'x', '--from-file', 'nope.md');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/nope\.md does not exist/);
    await expect(stat(join(home, 'agents', 'x'))).rejects.toThrow();
    expect((await run('delete', 'ghost')).code).toBe(1);
  });
});

describe('rein agents validate', () => {
  it('prints every problem of every agent as file:line:col: field: message and exits 1', async () => {
    await writeAgent('good', { 'AGENT.md': 'p' });
    await writeAgent('bad', {
      'AGENT.md': '',
      'config.yaml': 'model: m\nmax_tokens: -3\nbogus: 1\n',
      'commands/x.txt': 'x',
    });
    await writeAgent('Worse', { 'AGENT.md': 'p' });
    const r = await run('validate');
    expect(r.code).toBe(1);
    const bad = join(home, 'agents', 'bad');
    expect(r.stdout.trimEnd().split('\n')).toEqual([
      expect.stringMatching(/agents\/Worse: "Worse" is not a valid agent name/),
      `${bad}/AGENT.md: empty: write the agent's persona (who it is, how it works) in this file`,
      `${bad}/commands/x.txt: not a command: commands are files named commands/<name>.md`,
      expect.stringMatching(new RegExp(`^${bad}/config\\.yaml:2:1: max_tokens: `)),
      `${bad}/config.yaml:3:1: bogus: unknown key`,
    ]);
    expect(r.stderr).toBe('5 problems found\n');
  });

  it('validates one agent by name, and says ok when there is nothing wrong', async () => {
    await writeAgent('good', {
      'AGENT.md': 'p',
      'config.yaml': 'heartbeat: {every: 1h, active_hours: "09:00-18:00"}\n',
    });
    await writeAgent('bad', { 'AGENT.md': 'p', 'config.yaml': 'heartbeat: {every: 1h, active_hours: "9am-5pm"}\n' });
    expect(await run('validate', 'good')).toEqual({
      code: 0,
      stdout: 'ok: agent "good" has no problems\n',
      stderr: '',
    });
    const bad = await run('validate', 'bad');
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/config\.yaml:1:\d+: heartbeat\.active_hours: "9am-5pm": start "9am" is not a time/);
    await rm(join(home, 'agents', 'bad'), { recursive: true });
    expect(await run('validate')).toEqual({ code: 0, stdout: 'ok: 1 agent checked, no problems\n', stderr: '' });
  });

  it('exits 1 for an agent that does not exist', async () => {
    const r = await run('validate', 'ghost');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/agent "ghost" not found/);
  });
});

describe('rein agents show', () => {
  it('prints the persona head, the config merged with the global file, and counts', async () => {
    await writeFile(
      join(home, 'config.yaml'),
      'model: global-model\nmax_tokens: 1000\nmcp_servers:\n  keys: {command: k, env: {API_KEY: sk-secret-value}}\n',
    );
    await writeAgent('coder', {
      'AGENT.md': Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n'),
      'config.yaml': 'model: agent-model\nheartbeat: {every: 45m, model: small}\n',
      '_attached.yaml': '[pdf, web]\n',
      'commands/review.md': 'Review',
      'commands/test.md': 'Test',
      'skills/own/SKILL.md': '---\nname: own\ndescription: d\n---\n',
      'sessions/2026-01-01-aaaaaaaaaaaa.json': '{}',
      'sessions/2026-01-02-bbbbbbbbbbbb.json': '{}',
      'sessions/not-a-session.json': '{}',
    });
    const r = await run('show', 'coder');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Agent: coder\n/);
    expect(r.stdout).toMatch(/Persona \(AGENT\.md, first 12 of 20 lines\):\n {2}line 1\n/);
    expect(r.stdout).toMatch(/ {2}line 12\n/);
    expect(r.stdout).not.toMatch(/line 13/);
    expect(r.stdout).toMatch(/\n {2}model: agent-model\n/);
    expect(r.stdout).toMatch(/\n {2}max_tokens: 1000\n/);
    expect(r.stdout).toMatch(/heartbeat:\n {4}every: 45m\n {4}model: claude-/);
    expect(r.stdout).toMatch(/API_KEY: \(hidden\)/);
    expect(r.stdout).not.toMatch(/sk-secret-value/);
    expect(r.stdout).toMatch(
      /Sessions: 2\nCommands: 2 own \(global ones in .*\)\nSkills: 1 own, 2 attached \(pdf, web\)\n/,
    );
  });

  it('shows the built-in default agent', async () => {
    const r = await run('show', 'default');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Agent: default \(built-in\)\n/);
    expect(r.stdout).toMatch(
      /Sessions: 0\nCommands: 0 own .*\nSkills: 0 own, every global skill\nMemory: .*memory\/MEMORY\.md\n$/,
    );
  });

  it('exits 1 with every problem when the agent cannot load', async () => {
    await writeAgent('broken', { 'AGENT.md': 'p', 'config.yaml': 'mode: x\nwatch: 3\n' });
    const r = await run('show', 'broken');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/config\.yaml:1:1: mode: /);
    expect(r.stderr).toMatch(/config\.yaml:2:1: watch: /);
  });
});

describe('rein agents: bad usage exits 2', () => {
  it.each([
    [[]],
    [['frobnicate']],
    [['show']],
    [['show', 'a', 'b']],
    [['list', 'extra']],
    [['create', 'Bad Name']],
    [['create', '../escape']],
    [['create', 'default']],
    [['delete', 'default']],
    [['create', 'x', '--nope']],
    [['validate', '--from-file', 'x']],
    [['create', 'x', '--from-file']],
  ])('%j', async (argv) => {
    const r = await run(...argv);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^rein agents: .*\nRun `rein agents --help` for usage\.\n$/);
    expect(await readdir(home)).toEqual([]);
  });

  it('prints help with exit 0', async () => {
    const r = await run('--help');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/rein agents validate \[NAME\]/);
  });
});
