/** A loaded skill and the problems found while loading. */

/** Where a skill came from, highest priority first. */
export type SkillSource = 'agent' | 'user' | 'bundled';

export interface Skill {
  name: string;
  /** One line (whitespace collapsed): what the skill does and when to use it. */
  description: string;
  /** Tool names the skill says it needs; informational for now. */
  allowedTools?: string[];
  license?: string;
  compatibility?: string;
  metadata?: Record<string, string>;
  /** Absolute path of the skill's folder; relative paths in the body resolve against it. */
  dir: string;
  /** Absolute path of its SKILL.md. */
  file: string;
  /** The markdown after the front matter, trimmed. */
  body: string;
  source: SkillSource;
}

/** One thing wrong with a skill file (or `_attached.yaml`); the skill it belongs to was skipped. */
export interface SkillProblem {
  file: string;
  /** Front-matter field (`description`, `metadata.owner`) or list item (`[2]`), when one is to blame. */
  field?: string;
  message: string;
}

export interface LoadedSkills {
  /** Sorted by name; each name once (the highest-priority copy). */
  skills: Skill[];
  problems: SkillProblem[];
}
