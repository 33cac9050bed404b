/**
 * Which hook entries apply to a tool. A matcher is an exact tool name, a glob (`file_*`, `mcp__github__*`)
 * or alternatives of those joined by `|` (`bash|file_write`). Empty, absent or `*` matches every tool.
 * Session events (SessionStart, Stop) have no tool, so every entry applies to them.
 */
import picomatch from 'picomatch';

const GLOB_CHARS = /[*?[\]{}]/;

export function matchesTool(matcher: string | undefined, tool: string | undefined): boolean {
  if (tool === undefined) return true;
  const alternatives = (matcher ?? '')
    .split('|')
    .map((a) => a.trim())
    .filter((a) => a !== '');
  if (alternatives.length === 0) return true;
  return alternatives.some((alt) =>
    GLOB_CHARS.test(alt) ? picomatch.isMatch(tool, alt, { dot: true }) : alt === tool,
  );
}
