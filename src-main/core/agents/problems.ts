/**
 * A problem found in one of an agent's files. Same shape as a global config problem, so every
 * "what is wrong with my files" message in Rein reads the same: `file:line:col: field: message`.
 */
import type { ConfigProblem } from '../config/load.js';

export type AgentProblem = ConfigProblem;

export function formatProblem(p: AgentProblem): string {
  const where = p.line !== undefined ? `${p.file}:${p.line}:${p.column ?? 1}` : p.file;
  return p.field !== undefined ? `${where}: ${p.field}: ${p.message}` : `${where}: ${p.message}`;
}

/** Problems in reading order: by file, then line, then column. */
export function sortProblems(problems: AgentProblem[]): AgentProblem[] {
  return [...problems].sort(
    (a, b) =>
      (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) ||
      (a.line ?? 0) - (b.line ?? 0) ||
      (a.column ?? 0) - (b.column ?? 0),
  );
}
