/**
 * The SKILL.md front matter. Field names follow the Anthropic Agent Skills format so skills written
 * for other tools load unchanged; `allowed_tools` is also accepted with the spec's spelling
 * `allowed-tools`. Unknown keys are errors, so a typo (`descripton`) is reported instead of silently
 * ignored.
 */
import { z } from 'zod';

/** Lowercase letters, digits and hyphens; starts with a letter or digit; at most 64 characters. */
export const SKILL_NAME_RE = /^[a-z0-9][a-z0-9-]{0,63}$/;

const toolList = z
  .union([z.string(), z.array(z.string().min(1))])
  .describe('tool names: a YAML list, or one string separated by spaces or commas');

export const SkillFrontMatter = z
  .strictObject({
    name: z.string().regex(SKILL_NAME_RE, {
      message: 'must be 1-64 lowercase letters, digits or hyphens, starting with a letter or digit',
    }),
    description: z
      .string()
      .trim()
      .min(1, { message: 'must not be empty' })
      .max(1024, { message: 'must be at most 1024 characters (it is shown in every prompt)' }),
    allowed_tools: toolList.optional(),
    'allowed-tools': toolList.optional(),
    license: z.string().optional(),
    compatibility: z.string().optional(),
    metadata: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
  })
  .refine((fm) => fm.allowed_tools === undefined || fm['allowed-tools'] === undefined, {
    message: 'give allowed_tools or allowed-tools, not both',
    path: ['allowed-tools'],
  });
export type SkillFrontMatter = z.infer<typeof SkillFrontMatter>;

/** Names from either spelling and either shape, in file order, without duplicates. */
export function normalizeAllowedTools(fm: SkillFrontMatter): string[] | undefined {
  const raw = fm.allowed_tools ?? fm['allowed-tools'];
  if (raw === undefined) return undefined;
  const names = typeof raw === 'string' ? raw.split(/[\s,]+/) : raw.map((s) => s.trim());
  return [...new Set(names.filter((n) => n.length > 0))];
}

/** `_attached.yaml`: the names of the user's skills a named agent may use. */
export const AttachedSkills = z.array(z.string().regex(SKILL_NAME_RE, { message: 'not a valid skill name' }));
