/** Folders the file-finding tools skip unless the pattern asks for them: they are huge and rarely what is meant. */

export const NOISE_DIRS = ['.git', 'node_modules'] as const;

/** tinyglobby ignore patterns for the noise folders the pattern does not name. */
export function noiseIgnores(pattern: string): string[] {
  return NOISE_DIRS.filter((d) => !pattern.includes(d)).map((d) => `**/${d}/**`);
}
