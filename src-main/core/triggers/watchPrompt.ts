/**
 * The batch of file changes a watcher run is about, and the prompt made from it: the entry's `prompt`
 * with `{{files}}` replaced by the list, or — without that placeholder — the list appended after it,
 * one `- <type>: <absolute path>` line per file, sorted by path.
 */

export type ChangeType = 'created' | 'modified' | 'deleted';

/** At most this many files are listed in one prompt; the rest are counted. */
export const MAX_LISTED_CHANGES = 200;
export const FILES_PLACEHOLDER = '{{files}}';

/**
 * The change a file's batch records when another one comes: the latest, except that a file created in
 * the batch stays `created` when written to, and a file that came and went within it is dropped
 * (undefined) — an editor's temp file is no change.
 */
export function mergeChange(previous: ChangeType | undefined, next: ChangeType): ChangeType | undefined {
  if (previous === 'created' && next === 'modified') return 'created';
  if (previous === 'created' && next === 'deleted') return undefined;
  if (previous === 'deleted' && next === 'created') return 'modified';
  return next;
}

export function changeList(changes: ReadonlyMap<string, ChangeType>): string {
  const lines = [...changes]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([path, type]) => `- ${type}: ${path}`);
  if (lines.length <= MAX_LISTED_CHANGES) return lines.join('\n');
  return [...lines.slice(0, MAX_LISTED_CHANGES), `- … and ${lines.length - MAX_LISTED_CHANGES} more`].join('\n');
}

export function watchPrompt(template: string | undefined, changes: ReadonlyMap<string, ChangeType>): string {
  const list = changeList(changes);
  if (template?.includes(FILES_PLACEHOLDER)) return template.split(FILES_PLACEHOLDER).join(list);
  return template ? `${template}\n\nFile changes detected:\n${list}` : `File changes detected:\n${list}`;
}
