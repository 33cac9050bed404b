import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isReinError } from '../../../src-main/core/errors.js';
import { loadSkills } from '../../../src-main/core/skills/loadSkills.js';
import { agentSkills, makeSkillHome, userSkills, writeFileIn, writeSkill, type SkillHome } from './skillFixtures.js';

let t: SkillHome;
beforeEach(async () => {
  t = await makeSkillHome();
});
afterEach(async () => {
  await t.cleanup();
});

describe('priority across the three locations', () => {
  it('an agent skill hides a user skill, which hides a bundled one, name by name', async () => {
    await writeSkill(agentSkills(t.home, 'ops'), 'deploy', { description: 'agent deploy' });
    await writeSkill(userSkills(t.home), 'deploy', { description: 'user deploy' });
    await writeSkill(t.bundled, 'deploy', { description: 'bundled deploy' });
    await writeSkill(userSkills(t.home), 'notes', { description: 'user notes' });
    await writeSkill(t.bundled, 'notes', { description: 'bundled notes' });
    await writeSkill(t.bundled, 'health', { description: 'bundled health' });
    await writeFileIn(join(t.home, 'agents', 'ops', '_attached.yaml'), '- notes\n');

    const { skills, problems } = await loadSkills({ home: t.home, agent: 'ops', bundledDir: t.bundled });
    expect(problems).toEqual([]);
    expect(skills.map((s) => [s.name, s.description, s.source])).toEqual([
      ['deploy', 'agent deploy', 'agent'],
      ['health', 'bundled health', 'bundled'],
      ['notes', 'user notes', 'user'],
    ]);
    expect(skills[0]!.dir).toBe(join(agentSkills(t.home, 'ops'), 'deploy'));
    expect(skills[0]!.file).toBe(join(agentSkills(t.home, 'ops'), 'deploy', 'SKILL.md'));
  });

  it('the default agent gets every user skill; a named agent only the attached ones', async () => {
    await writeSkill(userSkills(t.home), 'alpha');
    await writeSkill(userSkills(t.home), 'beta');
    await writeSkill(userSkills(t.home), 'gamma');
    await writeFileIn(join(t.home, 'agents', 'writer', '_attached.yaml'), '- gamma\n- alpha\n');
    await writeFileIn(join(t.home, 'agents', 'writer', 'AGENT.md'), 'You write.\n');

    const dflt = await loadSkills({ home: t.home });
    expect(dflt.skills.map((s) => s.name)).toEqual(['alpha', 'beta', 'gamma']);

    const writer = await loadSkills({ home: t.home, agent: 'writer' });
    expect(writer.skills.map((s) => s.name)).toEqual(['alpha', 'gamma']);
    expect(writer.problems).toEqual([]);

    const unattached = await loadSkills({ home: t.home, agent: 'other' });
    expect(unattached.skills).toEqual([]);
  });

  it('bundled skills are available to every agent without attaching them', async () => {
    await writeSkill(t.bundled, 'mac-thing');
    const r = await loadSkills({ home: t.home, agent: 'anyone', bundledDir: t.bundled });
    expect(r.skills.map((s) => s.name)).toEqual(['mac-thing']);
  });

  it('returns skills sorted by name whatever order the folders were made in', async () => {
    for (const name of ['zeta', 'a1', 'mid', 'b-2']) await writeSkill(userSkills(t.home), name);
    const r = await loadSkills({ home: t.home });
    expect(r.skills.map((s) => s.name)).toEqual(['a1', 'b-2', 'mid', 'zeta']);
  });

  it('loads nothing and reports nothing when no skills folder exists', async () => {
    expect(await loadSkills({ home: t.home, agent: 'ops' })).toEqual({ skills: [], problems: [] });
  });

  it('refuses an agent name that could leave the agents folder', async () => {
    await expect(loadSkills({ home: t.home, agent: '../x' })).rejects.toSatisfy((e) => isReinError(e, 'invalid_input'));
  });
});

describe('problems', () => {
  it('a broken skill is reported with file and field and skipped; the others still load', async () => {
    const root = userSkills(t.home);
    await writeSkill(root, 'good');
    const noDesc = await writeSkill(root, 'no-desc', { raw: '---\nname: no-desc\n---\nBody\n' });
    const typo = await writeSkill(root, 'typo', {
      raw: '---\nname: typo\ndescription: ok\ndescripton: oops\n---\nBody\n',
    });
    const badMeta = await writeSkill(root, 'bad-meta', {
      raw: '---\nname: bad-meta\ndescription: ok\nmetadata:\n  owner: [a, b]\n---\nBody\n',
    });
    const mismatch = await writeSkill(root, 'folder-name', {
      raw: '---\nname: other-name\ndescription: ok\n---\nBody\n',
    });
    const badYaml = await writeSkill(root, 'bad-yaml', {
      raw: '---\nname: bad-yaml\ndescription: [unclosed\n---\nBody\n',
    });
    const noFm = await writeSkill(root, 'no-fm', { raw: '# Just markdown\n' });
    const emptyBody = await writeSkill(root, 'empty-body', { raw: '---\nname: empty-body\ndescription: ok\n---\n\n' });

    const { skills, problems } = await loadSkills({ home: t.home });
    expect(skills.map((s) => s.name)).toEqual(['good']);

    const byFile = (file: string) => problems.filter((p) => p.file === file);
    expect(byFile(noDesc)).toEqual([{ file: noDesc, field: 'description', message: expect.stringMatching(/missing/) }]);
    expect(byFile(typo)).toEqual([{ file: typo, field: 'descripton', message: 'unknown key' }]);
    expect(byFile(badMeta)).toEqual([expect.objectContaining({ file: badMeta, field: 'metadata.owner' })]);
    expect(byFile(mismatch)).toEqual([
      { file: mismatch, field: 'name', message: expect.stringMatching(/"other-name".*"folder-name"/) },
    ]);
    expect(byFile(badYaml)).toEqual([
      { file: badYaml, message: expect.stringMatching(/^line \d+: YAML syntax error/) },
    ]);
    expect(byFile(noFm)).toEqual([{ file: noFm, message: expect.stringMatching(/front matter/) }]);
    expect(byFile(emptyBody)).toEqual([{ file: emptyBody, message: expect.stringMatching(/no instructions/) }]);
    expect(problems).toHaveLength(7);
  });

  it('names the rule when a name is not valid and when SKILL.md is missing', async () => {
    const root = userSkills(t.home);
    await writeSkill(root, 'Bad_Name', { raw: '---\nname: Bad_Name\ndescription: x\n---\nBody\n' });
    await writeFileIn(join(root, 'empty-folder', 'notes.txt'), 'x');
    await writeFileIn(join(root, 'README.md'), 'not a skill folder, ignored');
    await writeFileIn(join(root, '.DS_Store'), 'ignored');
    const { skills, problems } = await loadSkills({ home: t.home });
    expect(skills).toEqual([]);
    expect(problems).toEqual([
      { file: join(root, 'Bad_Name', 'SKILL.md'), message: expect.stringMatching(/not a valid skill name/) },
      { file: join(root, 'empty-folder', 'SKILL.md'), message: expect.stringMatching(/missing/) },
    ]);
  });

  it('a broken higher-priority copy is reported and the lower copy is used instead', async () => {
    const broken = await writeSkill(userSkills(t.home), 'dup', { raw: '---\nname: dup\n---\nBody\n' });
    await writeSkill(t.bundled, 'dup', { description: 'bundled copy' });
    const r = await loadSkills({ home: t.home, bundledDir: t.bundled });
    expect(r.skills.map((s) => [s.name, s.source])).toEqual([['dup', 'bundled']]);
    expect(r.problems.map((p) => p.file)).toEqual([broken]);
  });

  it('reports bad or unknown entries of _attached.yaml by position and keeps the good ones', async () => {
    await writeSkill(userSkills(t.home), 'real');
    await writeSkill(t.bundled, 'shipped');
    const attached = await writeFileIn(
      join(t.home, 'agents', 'ops', '_attached.yaml'),
      '- real\n- 42\n- missing-one\n- shipped\n',
    );
    const r = await loadSkills({ home: t.home, agent: 'ops', bundledDir: t.bundled });
    expect(r.skills.map((s) => s.name)).toEqual(['real', 'shipped']);
    expect(r.problems).toEqual([
      { file: attached, field: '[1]', message: expect.any(String) },
      { file: attached, field: '[2]', message: expect.stringMatching(/"missing-one" is not in/) },
    ]);
  });

  it('reports an _attached.yaml that is not a list', async () => {
    await writeSkill(userSkills(t.home), 'real');
    const attached = await writeFileIn(join(t.home, 'agents', 'ops', '_attached.yaml'), 'real: true\n');
    const r = await loadSkills({ home: t.home, agent: 'ops' });
    expect(r.skills).toEqual([]);
    expect(r.problems).toEqual([{ file: attached, message: expect.stringMatching(/list/) }]);
  });

  it('does not report broken user skills a named agent has not attached', async () => {
    await writeSkill(userSkills(t.home), 'broken', { raw: 'no front matter' });
    const r = await loadSkills({ home: t.home, agent: 'ops' });
    expect(r.problems).toEqual([]);
  });
});

describe('front matter fields', () => {
  it('reads optional fields and accepts allowed-tools in the Agent Skills spelling', async () => {
    await writeSkill(userSkills(t.home), 'full', {
      raw: [
        '---',
        'name: full',
        'description: >',
        '  Folded description',
        '  over two lines.',
        'allowed-tools: bash file_read, grep',
        'license: MIT',
        'compatibility: macOS 14+',
        'metadata:',
        '  version: 1.2',
        '  owner: me',
        '---',
        '',
        '  Step one.  ',
        '',
      ].join('\n'),
    });
    await writeSkill(userSkills(t.home), 'listed', {
      raw: '---\nname: listed\ndescription: d\nallowed_tools: [bash, bash, grep]\n---\nBody\n',
    });
    const { skills, problems } = await loadSkills({ home: t.home });
    expect(problems).toEqual([]);
    const full = skills.find((s) => s.name === 'full')!;
    expect(full).toMatchObject({
      description: 'Folded description over two lines.',
      allowedTools: ['bash', 'file_read', 'grep'],
      license: 'MIT',
      compatibility: 'macOS 14+',
      metadata: { version: '1.2', owner: 'me' },
      body: 'Step one.',
    });
    expect(skills.find((s) => s.name === 'listed')!.allowedTools).toEqual(['bash', 'grep']);
  });

  it('rejects both spellings of allowed tools at once', async () => {
    const file = await writeSkill(userSkills(t.home), 'both', {
      raw: '---\nname: both\ndescription: d\nallowed_tools: [a]\nallowed-tools: b\n---\nBody\n',
    });
    const r = await loadSkills({ home: t.home });
    expect(r.problems).toEqual([{ file, field: 'allowed-tools', message: expect.stringMatching(/not both/) }]);
  });
});
