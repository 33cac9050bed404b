export { bundledSkillsDir, findPackageRoot } from './bundledDir.js';
export { skillCatalog, SKILL_CATALOG_HEADING } from './catalog.js';
export { splitFrontMatter, type FrontMatterResult } from './frontMatter.js';
export { loadSkills, skillPaths, MAX_SKILL_FILE_BYTES, type LoadSkillsOptions } from './loadSkills.js';
export { rewriteSkillPaths } from './rewritePaths.js';
export { SKILL_NAME_RE, SkillFrontMatter, AttachedSkills } from './schema.js';
export type { LoadedSkills, Skill, SkillProblem, SkillSource } from './types.js';
