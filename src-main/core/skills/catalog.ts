/**
 * The only part of the skills the prompt carries: names and one-line descriptions. Bodies are loaded
 * on demand with `use_skill` (progressive disclosure), so a hundred skills cost a few lines each.
 * The text depends only on the skills' names and descriptions, in name order, so the same skills
 * always give the same bytes and the prompt cache keeps hitting.
 */
import { compareNames } from './loadSkills.js';
import type { Skill } from './types.js';

export const SKILL_CATALOG_HEADING = '# Skills';

/**
 * Catalogues already rendered, per skills array. Callers pass the same (unchanged) array for as long as
 * the skills on disk are unchanged (the runtime cache keeps it), so a daemon renders each once.
 */
const RENDERED = new WeakMap<readonly object[], string>();

/** Empty string when there are no skills (the prompt then has no skills section at all). */
export function skillCatalog(skills: readonly Pick<Skill, 'name' | 'description'>[]): string {
  let text = RENDERED.get(skills);
  if (text === undefined) RENDERED.set(skills, (text = renderCatalog(skills)));
  return text;
}

function renderCatalog(skills: readonly Pick<Skill, 'name' | 'description'>[]): string {
  if (skills.length === 0) return '';
  const lines = [...skills]
    .sort((a, b) => compareNames(a.name, b.name))
    .map((s) => `- ${s.name}: ${s.description.replace(/\s+/g, ' ').trim()}`);
  return [
    SKILL_CATALOG_HEADING,
    'When a request matches one of these skills, call `use_skill` with its name first: it returns the full instructions (and the absolute paths of its scripts) to follow.',
    ...lines,
  ].join('\n');
}
