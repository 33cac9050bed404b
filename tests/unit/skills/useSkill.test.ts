import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadSkills } from '../../../src-main/core/skills/loadSkills.js';
import { createUseSkillTool } from '../../../src-main/core/tools/builtin/useSkill.js';
import { parseLenient } from '../../../src-main/core/tools/lenient.js';
import { callTool, makeToolContext, type TempToolContext } from '../tools/toolTestContext.js';
import { makeSkillHome, userSkills, writeFileIn, writeSkill, type SkillHome } from './skillFixtures.js';

let t: SkillHome;
let tc: TempToolContext;
beforeEach(async () => {
  t = await makeSkillHome();
  tc = await makeToolContext({ reinHome: t.home });
  await writeSkill(userSkills(t.home), 'report', {
    description: 'Make a report.',
    body: '# Report\n\nRun `bash scripts/make.sh` and read [the guide](references/guide.md).\nThen edit src/main.ts.',
  });
  await writeFileIn(join(userSkills(t.home), 'report', 'scripts', 'make.sh'), 'echo\n');
  await writeFileIn(join(userSkills(t.home), 'report', 'references', 'guide.md'), '# Guide\n');
  await writeSkill(userSkills(t.home), 'other');
});
afterEach(async () => {
  await tc.cleanup();
  await t.cleanup();
});

describe('use_skill', () => {
  it("returns the body with the skill's own paths made absolute", async () => {
    const { skills } = await loadSkills({ home: t.home });
    const tool = createUseSkillTool(skills);
    const dir = join(userSkills(t.home), 'report');
    const r = await callTool(tool, { skill_name: 'report' }, tc.ctx);
    expect(r.ok).toBe(true);
    expect(r.content).toContain(`# Skill: report\nSkill folder: ${dir}\n`);
    expect(r.content).toContain(
      `Run \`bash ${dir}/scripts/make.sh\` and read [the guide](${dir}/references/guide.md).`,
    );
    expect(r.content).toContain('Then edit src/main.ts.');
    expect(r.content).not.toContain('name: report');
  });

  it('appends the request details when args are given', async () => {
    const tool = createUseSkillTool((await loadSkills({ home: t.home })).skills);
    const r = await callTool(tool, { skill_name: 'report', args: 'for March' }, tc.ctx);
    expect(r.content.endsWith('\n\n## Request details\nfor March')).toBe(true);
  });

  it('answers an unknown name with a validation error listing the available skills', async () => {
    const tool = createUseSkillTool((await loadSkills({ home: t.home })).skills);
    const r = await callTool(tool, { skill_name: 'nope' }, tc.ctx);
    expect(r).toMatchObject({ ok: false, errorKind: 'validation' });
    expect(r.content).toContain('unknown skill "nope". Available skills: other, report');
  });

  it('says so when the agent has no skills at all', async () => {
    const r = await callTool(createUseSkillTool([]), { skill_name: 'report' }, tc.ctx);
    expect(r).toMatchObject({ ok: false, errorKind: 'validation' });
    expect(r.content).toMatch(/no skills are available/);
  });

  it('is read-only, names the skills in its description and requires a skill name', async () => {
    const tool = createUseSkillTool((await loadSkills({ home: t.home })).skills);
    expect(tool.name).toBe('use_skill');
    expect(tool.isReadOnly({ skill_name: 'report' })).toBe(true);
    expect(tool.isDestructive({ skill_name: 'report' })).toBe(false);
    expect(tool.description).toContain('Available skills: other, report.');
    expect(parseLenient(tool.input, {}).ok).toBe(false);
    expect(parseLenient(tool.input, { skill_name: 'report', extra: 1 }).ok).toBe(false);
  });
});
