import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createAgent,
  deleteAgent,
  listAgents,
  loadAgent,
  validateAgent,
  validateAllAgents,
} from '../../../src-main/core/agents/agentStore.js';
import { COMMAND_MAX_CHARS } from '../../../src-main/core/agents/agentFiles.js';
import { formatProblem } from '../../../src-main/core/agents/problems.js';
import { starterConfig } from '../../../src-main/core/agents/starterFiles.js';
import { ReinError, isReinError } from '../../../src-main/core/errors.js';

let home: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'rein-agents-'));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

const agentDir = (name: string) => join(home, 'agents', name);

/** Writes files (relative to the agent folder), creating folders as needed. */
async function writeAgent(name: string, files: Record<string, string>) {
  for (const [rel, text] of Object.entries(files)) {
    const file = join(agentDir(name), rel);
    await mkdir(join(file, '..'), { recursive: true });
    await writeFile(file, text);
  }
  await mkdir(agentDir(name), { recursive: true });
}

async function caught(p: Promise<unknown>): Promise<ReinError> {
  try {
    await p;
  } catch (e) {
    expect(isReinError(e), String(e)).toBe(true);
    return e as ReinError;
  }
  throw new Error('expected a ReinError');
}

describe('loadAgent', () => {
  it('loads persona, validated config, attached skills and which optional files exist', async () => {
    await writeAgent('coder', {
      'AGENT.md': '# Coder\nYou write code.\n',
      'config.yaml': 'model: m1\nheartbeat:\n  every: 30m\n',
      '_attached.yaml': '- pdf\n- git-helper\n- pdf\n',
      'HEARTBEAT.md': 'check the build\n',
    });
    const agent = await loadAgent(home, 'coder');
    expect(agent).toMatchObject({
      name: 'coder',
      dir: agentDir('coder'),
      persona: '# Coder\nYou write code.\n',
      config: { model: 'm1', heartbeat: { every: '30m' } },
      hasConfigFile: true,
      attachedSkills: ['pdf', 'git-helper'],
      hasHeartbeat: true,
      hasMemory: false,
    });
    expect(agent.layout.sessionsDir).toBe(join(agentDir('coder'), 'sessions'));
  });

  it('needs only AGENT.md; a blank HEARTBEAT.md is no heartbeat', async () => {
    await writeAgent('min', { 'AGENT.md': 'persona', 'HEARTBEAT.md': '  \n' });
    expect(await loadAgent(home, 'min')).toMatchObject({
      config: {},
      hasConfigFile: false,
      attachedSkills: [],
      hasHeartbeat: false,
    });
  });

  it('is not_found without AGENT.md, and for the built-in default', async () => {
    await writeAgent('empty-folder', {});
    expect((await caught(loadAgent(home, 'empty-folder'))).code).toBe('not_found');
    expect((await caught(loadAgent(home, 'ghost'))).code).toBe('not_found');
    expect((await caught(loadAgent(home, 'default'))).code).toBe('not_found');
  });

  it('refuses bad names before touching any path', async () => {
    for (const bad of ['../etc', 'Coder', '-x', '', 'a'.repeat(65), 'a b', '_hidden']) {
      const err = await caught(loadAgent(home, bad));
      expect(err.code, bad).toBe('invalid_input');
    }
  });

  it('names file, line and field of every problem in AGENT.md, config.yaml and _attached.yaml', async () => {
    await writeAgent('broken', {
      'AGENT.md': '\n  \n',
      'config.yaml': 'model: m1\nmax_tokens: lots\nwatch:\n  - path: relative\n',
      '_attached.yaml': '- ok\n- Not Valid\n',
    });
    const err = await caught(loadAgent(home, 'broken'));
    expect(err.code).toBe('config_invalid');
    const dir = agentDir('broken');
    expect(err.message.split('\n').slice(1)).toEqual([
      `${dir}/AGENT.md: empty: write the agent's persona (who it is, how it works) in this file`,
      `${dir}/_attached.yaml:2:3: [1]: not a skill name (lowercase letters, digits, - and _, at most 64)`,
      `${dir}/config.yaml:2:1: max_tokens: expected number, got string "lots"`,
      `${dir}/config.yaml:4:5: watch[0].path: must be an absolute path or start with ~/`,
    ]);
    expect(err.details).toMatchObject({ agent: 'broken', file: `${dir}/AGENT.md` });
  });

  it('does not refuse an agent for a bad command or skill (validate reports those)', async () => {
    await writeAgent('ok', { 'AGENT.md': 'p', 'commands/notes.txt': 'x', 'skills/s/README.md': 'x' });
    await expect(loadAgent(home, 'ok')).resolves.toMatchObject({ name: 'ok' });
  });
});

describe('validateAgent', () => {
  it('reports every problem in every file at once, never throwing for content', async () => {
    await writeAgent('messy', {
      'config.yaml': 'mode: yolo\nunknown_key: 1\nheartbeat:\n  every: 10s\n',
      '_attached.yaml': 'pdf: yes\n',
      'commands/review.md': 'Review $ARGUMENTS',
      'commands/long.md': 'x'.repeat(COMMAND_MAX_CHARS + 1),
      'commands/blank.md': '\n',
      'commands/notes.txt': 'not markdown',
      'commands/Bad Name.md': 'x',
      'commands/.DS_Store': 'finder junk',
      'skills/good/SKILL.md': '---\nname: good\ndescription: d\n---\nbody\n',
      'skills/no-file/README.md': 'x',
      'skills/no-front/SKILL.md': '# just markdown\n',
      'skills/stray.md': 'x',
    });
    const dir = agentDir('messy');
    const lines = (await validateAgent(home, 'messy')).map(formatProblem);
    expect(lines).toEqual([
      `${dir}/AGENT.md: missing: every agent needs an AGENT.md holding its persona`,
      `${dir}/_attached.yaml:1:1: (top level): expected array, got a mapping`,
      `${dir}/commands/Bad Name.md: "Bad Name" is not a usable command name (lowercase letters, digits, - and _, at most 64)`,
      `${dir}/commands/blank.md: empty: a command file holds the prompt the command sends`,
      `${dir}/commands/long.md: 8,001 characters; a command may have at most 8,000`,
      `${dir}/commands/notes.txt: not a command: commands are files named commands/<name>.md`,
      `${dir}/config.yaml:1:1: mode: expected one of default|acceptEdits|plan|dontAsk|bypassPermissions`,
      `${dir}/config.yaml:2:1: unknown_key: unknown key`,
      `${dir}/config.yaml:4:3: heartbeat.every: "10s" is shorter than the minimum 1m`,
      `${dir}/skills/no-file/SKILL.md: missing: a skill folder needs a SKILL.md`,
      `${dir}/skills/no-front/SKILL.md: no front matter: SKILL.md must start with a --- block holding at least name and description`,
      `${dir}/skills/stray.md: not a skill: skills are folders, skills/<name>/SKILL.md`,
    ]);
  });

  it('counts command length in characters, not bytes', async () => {
    await writeAgent('cjk', { 'AGENT.md': 'p', 'commands/zh.md': '字'.repeat(COMMAND_MAX_CHARS) });
    expect(await validateAgent(home, 'cjk')).toEqual([]);
  });

  it('returns [] for a good agent, and a YAML syntax error with its position', async () => {
    await writeAgent('good', { 'AGENT.md': 'p', 'config.yaml': starterConfig('good'), 'commands/review.md': 'x' });
    expect(await validateAgent(home, 'good')).toEqual([]);
    await writeFile(join(agentDir('good'), 'config.yaml'), 'model: "unterminated\n');
    const [p] = await validateAgent(home, 'good');
    expect(p).toMatchObject({
      file: join(agentDir('good'), 'config.yaml'),
      line: expect.any(Number),
      message: expect.stringMatching(/YAML syntax error/),
    });
  });

  it('reports a file that is a folder as a problem instead of throwing', async () => {
    await writeAgent('odd', { 'AGENT.md': 'p', 'config.yaml/inner': 'x' });
    expect(await validateAgent(home, 'odd')).toEqual([
      { file: join(agentDir('odd'), 'config.yaml'), message: 'is a folder, expected a file' },
    ]);
  });

  // Root reads every file whatever its mode, so there is nothing to observe there.
  it.skipIf(process.getuid?.() === 0)('reports an unreadable file as a problem instead of throwing', async () => {
    await writeAgent('locked', { 'AGENT.md': 'p', 'config.yaml': 'model: x\n' });
    await chmod(join(agentDir('locked'), 'config.yaml'), 0o000);
    const problems = await validateAgent(home, 'locked');
    expect(problems).toEqual([
      { file: join(agentDir('locked'), 'config.yaml'), message: expect.stringMatching(/cannot read/) },
    ]);
  });

  it('throws only when there is nothing to validate', async () => {
    expect((await caught(validateAgent(home, 'ghost'))).code).toBe('not_found');
    expect((await caught(validateAgent(home, '../x'))).code).toBe('invalid_input');
  });
});

describe('validateAgent for the built-in default agent', () => {
  it('has nothing to report without a folder', async () => {
    expect(await validateAgent(home, 'default')).toEqual([]);
  });

  it('checks its own commands and skills and flags files it would never use', async () => {
    await writeAgent('default', {
      'commands/ok.md': 'fine',
      'commands/huge.md': 'x'.repeat(COMMAND_MAX_CHARS + 5),
      'skills/broken/SKILL.md': 'no front matter',
      'config.yaml': 'model: x\n',
    });
    const dir = agentDir('default');
    expect((await validateAgent(home, 'default')).map(formatProblem)).toEqual([
      `${dir}/commands/huge.md: 8,005 characters; a command may have at most 8,000`,
      `${dir}/config.yaml: not used: the built-in agent uses the global config.yaml; create a named agent to use this file`,
      expect.stringMatching(/skills\/broken\/SKILL\.md: no front matter/),
    ]);
  });
});

describe('validateAllAgents and listAgents', () => {
  it('checks every folder, reports unusable folder names, and lists only usable agents', async () => {
    await writeAgent('alpha', { 'AGENT.md': 'p' });
    await writeAgent('beta', { 'AGENT.md': 'p', 'config.yaml': 'mode: nope\n' });
    await writeAgent('no-persona', {});
    await writeAgent('Bad Name', { 'AGENT.md': 'p' });
    await writeAgent('default', { 'AGENT.md': 'p' });
    await writeAgent('.hidden', { 'AGENT.md': 'p' });
    await writeAgent('_builtin', { 'AGENT.md': 'p' });
    await writeFile(join(home, 'agents', 'stray-file'), 'x');

    expect(await listAgents(home)).toEqual(['alpha', 'beta']);
    const report = await validateAllAgents(home);
    expect(report.checked).toEqual(['alpha', 'beta', 'default', 'no-persona']);
    expect(report.problems.map((p) => [p.file, p.field, p.message])).toEqual([
      [agentDir('Bad Name'), undefined, expect.stringMatching(/"Bad Name" is not a valid agent name/)],
      [join(agentDir('beta'), 'config.yaml'), 'mode', expect.stringMatching(/expected one of/)],
      [
        join(agentDir('default'), 'AGENT.md'),
        undefined,
        expect.stringMatching(/^not used: the built-in agent uses Rein's own persona/),
      ],
      [join(agentDir('no-persona'), 'AGENT.md'), undefined, expect.stringMatching(/^missing/)],
    ]);
  });

  it('finds nothing when there is no agents folder', async () => {
    expect(await listAgents(home)).toEqual([]);
    expect(await validateAllAgents(home)).toEqual({ checked: [], problems: [] });
  });
});

describe('createAgent', () => {
  it('writes AGENT.md and a commented starter config.yaml, and the new agent loads and validates', async () => {
    const agent = await createAgent(home, 'writer', { persona: 'You write prose.' });
    expect(await readFile(join(agentDir('writer'), 'AGENT.md'), 'utf8')).toBe('You write prose.\n');
    expect(await readFile(join(agentDir('writer'), 'config.yaml'), 'utf8')).toBe(starterConfig('writer'));
    expect(agent).toMatchObject({ name: 'writer', persona: 'You write prose.\n', config: {}, hasConfigFile: true });
    expect(await validateAgent(home, 'writer')).toEqual([]);
    expect(await listAgents(home)).toEqual(['writer']);
    expect((await stat(agentDir('writer'))).mode & 0o777).toBe(0o700);
  });

  it('takes the persona from a file, or writes a starter persona', async () => {
    const src = join(home, 'persona.md');
    await writeFile(src, '# Researcher\nDig deep.\n');
    expect((await createAgent(home, 'researcher', { fromFile: src })).persona).toBe('# Researcher\nDig deep.\n');
    expect((await createAgent(home, 'blank-slate')).persona).toMatch(/You are blank-slate/);
  });

  it('refuses an existing agent and leaves it untouched', async () => {
    await writeAgent('taken', { 'AGENT.md': 'original' });
    const err = await caught(createAgent(home, 'taken', { persona: 'new' }));
    expect(err.message).toMatch(/already exists/);
    expect(await readFile(join(agentDir('taken'), 'AGENT.md'), 'utf8')).toBe('original');
    expect(await readdir(agentDir('taken'))).toEqual(['AGENT.md']);
  });

  it('refuses bad and reserved names, an empty persona and a missing file, creating nothing', async () => {
    for (const bad of ['../escape', 'UPPER', 'has space', '']) {
      expect((await caught(createAgent(home, bad, { persona: 'p' }))).code, bad).toBe('invalid_input');
    }
    expect((await caught(createAgent(home, 'default', { persona: 'p' }))).message).toMatch(/built-in/);
    expect((await caught(createAgent(home, 'x', { persona: ' \n' }))).message).toMatch(/persona is empty/);
    expect((await caught(createAgent(home, 'y', { fromFile: join(home, 'nope.md') }))).code).toBe('not_found');
    expect(await listAgents(home)).toEqual([]);
    await expect(stat(join(home, 'escape'))).rejects.toThrow();
    await expect(stat(agentDir('x'))).rejects.toThrow();
  });

  it('lets exactly one of two racing creators win', async () => {
    const results = await Promise.allSettled([
      createAgent(home, 'race', { persona: 'one' }),
      createAgent(home, 'race', { persona: 'two' }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(String(rejected.reason)).toMatch(/already exists/);
  });
});

describe('deleteAgent', () => {
  it('moves the whole folder to trash/agents/<name>-<time>, losing nothing', async () => {
    await writeAgent('old', {
      'AGENT.md': 'p',
      'MEMORY.md': '- remember this\n',
      'sessions/2026-01-01-aaaaaaaaaaaa.json': '{}',
    });
    const target = await deleteAgent(home, 'old', { now: new Date('2026-03-29T10:20:30.456Z') });
    expect(target).toBe(join(home, 'trash', 'agents', 'old-2026-03-29T10-20-30-456Z'));
    expect(await readFile(join(target, 'MEMORY.md'), 'utf8')).toBe('- remember this\n');
    expect(await readdir(join(target, 'sessions'))).toEqual(['2026-01-01-aaaaaaaaaaaa.json']);
    await expect(stat(agentDir('old'))).rejects.toThrow();
    expect(await listAgents(home)).toEqual([]);
  });

  it('never overwrites an earlier trashed copy with the same time', async () => {
    const now = new Date('2026-03-29T10:20:30.456Z');
    await writeAgent('twice', { 'AGENT.md': 'first' });
    const first = await deleteAgent(home, 'twice', { now });
    await writeAgent('twice', { 'AGENT.md': 'second' });
    const second = await deleteAgent(home, 'twice', { now });
    expect(second).not.toBe(first);
    expect(await readFile(join(first, 'AGENT.md'), 'utf8')).toBe('first');
    expect(await readFile(join(second, 'AGENT.md'), 'utf8')).toBe('second');
  });

  it('refuses default, bad names and agents that do not exist', async () => {
    expect((await caught(deleteAgent(home, 'default'))).code).toBe('invalid_input');
    expect((await caught(deleteAgent(home, '../..'))).code).toBe('invalid_input');
    expect((await caught(deleteAgent(home, 'ghost'))).code).toBe('not_found');
  });
});
