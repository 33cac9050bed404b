/** `directory_list`: the entries of one folder with their sizes. */
import { callSummaryOf } from '../../api/toolSummary.js';
import type { Dirent, Stats } from 'node:fs';
import { lstat, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { errorResult, okResult, type Tool } from '../tool.js';
import { errnoCode, resolveToolPath } from './support/toolPaths.js';
import { DIRECTORY_LIST_TRAITS } from './builtinTraits.js';

export const DIRECTORY_LIST_MAX_ENTRIES = 1_000;

const input = z.strictObject({
  path: z.string().min(1).optional().describe('Folder to list (default: the working folder).'),
});
export type DirectoryListInput = z.infer<typeof input>;

export const directoryListTool: Tool<DirectoryListInput> = {
  name: 'directory_list',
  source: 'local',
  traits: DIRECTORY_LIST_TRAITS,
  description: [
    'List the entries of one folder (not recursive), sorted by name: one line per entry,',
    '`d ` marks a folder, then the size in bytes and the name. At most 1,000 entries. Use glob to search deeper.',
  ].join(' '),
  input,
  isReadOnly: () => true,
  isDestructive: () => false,
  summarize: (i) => callSummaryOf('directory_list', i),

  async call(i, ctx) {
    const dir = resolveToolPath(i.path ?? '.', ctx.cwd);
    const shown = i.path ?? dir;
    let entries: Dirent[];
    try {
      const st = await stat(dir);
      if (!st.isDirectory()) return errorResult('validation', `${shown} is not a folder; use file_read to read a file`);
      entries = await readdir(dir, { withFileTypes: true });
    } catch (e) {
      const code = errnoCode(e);
      if (code === 'ENOENT' || code === 'ENOTDIR') return errorResult('validation', `${shown} does not exist`);
      if (code === 'EACCES' || code === 'EPERM') return errorResult('permission', `no permission to list ${shown}`);
      return errorResult('transient', `could not list ${shown}: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (entries.length === 0) return okResult('(empty folder)');

    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const listed = entries.slice(0, DIRECTORY_LIST_MAX_ENTRIES);
    const lines = await Promise.all(
      listed.map(async (entry) => {
        const st = await describe(join(dir, entry.name));
        const isDir = st?.isDirectory() ?? entry.isDirectory();
        return `${isDir ? 'd ' : '  '}${String(st?.size ?? 0).padStart(8)} ${entry.name}`;
      }),
    );
    let out = lines.join('\n');
    if (entries.length > DIRECTORY_LIST_MAX_ENTRIES) {
      out += `\n\n(showing the first ${DIRECTORY_LIST_MAX_ENTRIES} of ${entries.length} entries; use glob to narrow down)`;
    }
    return okResult(out);
  },
};

/** A symlink is listed as what it points to; a dangling one as the link itself. */
async function describe(path: string): Promise<Stats | undefined> {
  try {
    return await stat(path);
  } catch {
    try {
      return await lstat(path);
    } catch {
      return undefined;
    }
  }
}
