/**
 * `use_skill`: loads one skill's full instructions into the conversation. The prompt lists only the
 * skills' names and descriptions; this is where a body is read, with its relative paths made
 * absolute so the model can run `scripts/…` from any working folder. Built per agent from that
 * agent's loaded skills, so it can only return skills the agent may use.
 */
import { callSummaryOf } from '../../api/toolSummary.js';
import { z } from 'zod';
import { rewriteSkillPaths } from '../../skills/rewritePaths.js';
import type { Skill } from '../../skills/types.js';
import { errorResult, okResult, type Tool } from '../tool.js';

const input = z.strictObject({
  skill_name: z.string().min(1).describe('Name of the skill, exactly as listed under Skills.'),
  args: z
    .string()
    .optional()
    .describe('Optional details from the user request that the skill should work with (a folder, a date, a name).'),
});
export type UseSkillInput = z.infer<typeof input>;

export function createUseSkillTool(skills: readonly Skill[]): Tool<UseSkillInput> {
  const byName = new Map(skills.map((s) => [s.name, s]));
  const names = [...byName.keys()].sort();
  const available = names.length > 0 ? names.join(', ') : '(none)';

  return {
    name: 'use_skill',
    source: 'local',
    description:
      "Load the full instructions of a skill before doing a task it covers. Returns the skill's step-by-step " +
      'instructions with absolute paths to its scripts and reference files; follow them. ' +
      `Available skills: ${available}.`,
    input,
    isReadOnly: () => true,
    isDestructive: () => false,
    summarize: (i) => callSummaryOf('use_skill', i),

    async call(i) {
      if (byName.size === 0) return errorResult('validation', 'no skills are available to this agent');
      const skill = byName.get(i.skill_name.trim().toLowerCase());
      if (!skill) {
        return errorResult('validation', `unknown skill "${i.skill_name}". Available skills: ${available}`);
      }
      const body = await rewriteSkillPaths(skill.body, skill.dir);
      const parts = [`# Skill: ${skill.name}`, `Skill folder: ${skill.dir}`, '', body];
      const args = i.args?.trim();
      if (args) parts.push('', '## Request details', args);
      return okResult(parts.join('\n'));
    },
  };
}
