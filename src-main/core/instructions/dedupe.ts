/**
 * People copy the same rule into several files (a global AGENTS.md and a project CLAUDE.md, say).
 * Each repeated line is kept only in the file that matters most. Lines that carry structure rather
 * than meaning are never removed, or the files that lose them would fall apart: blank lines,
 * headings, code-fence markers, rules and table separators, lines without a letter or digit, and
 * everything inside a fenced code block.
 */

/**
 * `texts` in descending priority. Returns each text with lines already seen in a higher-priority
 * text removed (and runs of blank lines left behind collapsed).
 */
export function dedupeLines(texts: readonly string[]): string[] {
  const seen = new Set<string>();
  return texts.map((text) => {
    const kept: string[] = [];
    let fence: string | undefined;
    for (const line of text.split(/\r?\n/)) {
      const trimmed = line.trim();
      const fenceMarker = /^(`{3,}|~{3,})/.exec(trimmed)?.[1];
      if (fenceMarker) {
        if (fence === undefined) fence = fenceMarker;
        else if (closesFence(trimmed, fence)) fence = undefined;
        kept.push(line);
        continue;
      }
      if (fence !== undefined || !isDedupable(trimmed)) {
        kept.push(line);
        continue;
      }
      if (seen.has(trimmed)) continue;
      seen.add(trimmed);
      kept.push(line);
    }
    return collapseBlankRuns(kept).join('\n').trim();
  });
}

/** A closing fence is the opening character, at least as many times, and nothing else. */
function closesFence(trimmed: string, fence: string): boolean {
  const char = fence[0]!;
  return trimmed.length >= fence.length && [...trimmed].every((c) => c === char);
}

function isDedupable(trimmed: string): boolean {
  if (trimmed === '') return false;
  if (/^#{1,6}(\s|$)/.test(trimmed)) return false;
  return /[\p{L}\p{N}]/u.test(trimmed);
}

function collapseBlankRuns(lines: string[]): string[] {
  const out: string[] = [];
  for (const line of lines) {
    if (line.trim() === '' && out.length > 0 && out[out.length - 1]!.trim() === '') continue;
    out.push(line);
  }
  return out;
}

/** True when nothing but blank lines and headings is left (the file's content was all repeats). */
export function hasContent(text: string): boolean {
  return text.split('\n').some((l) => isDedupable(l.trim()) || /^(`{3,}|~{3,})/.test(l.trim()));
}
