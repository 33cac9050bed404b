/** `file_write`: create a file or replace its whole content. */
import { callSummaryOf } from '../../api/toolSummary.js';
import { existsSync, type Stats } from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import { dirname, isAbsolute } from 'node:path';
import { writeFileAtomic } from './support/writeFileAtomic.js';
import { z } from 'zod';
import { errorResult, okResult, type Tool } from '../tool.js';
import { writeError } from './support/fsErrors.js';
import { staleReadRefusal } from './support/readFreshness.js';
import {
  canonicalPath,
  errnoCode,
  expandHome,
  isDevicePath,
  protectedReason,
  resolveToolPath,
} from './support/toolPaths.js';
import { FILE_WRITE_TRAITS } from './builtinTraits.js';

const input = z.strictObject({
  path: z.string().min(1).describe('File to write: absolute, relative to the working folder, or starting with ~/.'),
  content: z.string().describe('The complete new content of the file.'),
});
export type FileWriteInput = z.infer<typeof input>;

export const fileWriteTool: Tool<FileWriteInput> = {
  name: 'file_write',
  traits: FILE_WRITE_TRAITS,
  source: 'local',
  description: [
    'Create a file, or replace the entire content of an existing one. Missing parent folders are created.',
    'An existing file must have been read with file_read in this session and not changed on disk since.',
    'To change part of a file, prefer file_edit: it is smaller and cannot drop content by accident.',
  ].join(' '),
  input,
  isReadOnly: () => false,
  // Only the input is known here, not the run's cwd: a relative path might overwrite something, so say so.
  isDestructive: (i) => {
    const p = expandHome(i.path.trim());
    return isAbsolute(p) ? existsSync(p) : true;
  },
  summarize: (i) => callSummaryOf('file_write', i),

  async call(i, ctx) {
    const abs = resolveToolPath(i.path, ctx.cwd);
    if (isDevicePath(abs))
      return errorResult('validation', `${i.path} is a device path; file_write only writes regular files`);
    const real = await canonicalPath(abs);
    const reason = protectedReason(ctx, abs, real);
    if (reason !== undefined) return errorResult('permission', `refusing to write ${i.path}: ${reason}`);

    let existing: Stats | undefined;
    try {
      existing = await stat(real);
    } catch (e) {
      if (errnoCode(e) !== 'ENOENT') return writeError(e, i.path);
    }
    if (existing) {
      if (!existing.isFile()) return errorResult('validation', `${i.path} exists and is not a regular file`);
      const stale = staleReadRefusal(ctx, real, i.path, existing);
      if (stale) return stale;
    }

    try {
      await mkdir(dirname(real), { recursive: true, mode: 0o755 });
      // Writes through symlinks (real path) and keeps an existing file's mode; new files get 0644.
      await writeFileAtomic(real, i.content, { encoding: 'utf8', ...(existing ? {} : { mode: 0o644 }) });
      const after = await stat(real);
      ctx.readTracker.markWritten(real, { mtimeMs: after.mtimeMs, size: after.size });
      return okResult(`wrote ${Buffer.byteLength(i.content, 'utf8')} bytes to ${i.path}`);
    } catch (e) {
      return writeError(e, i.path);
    }
  },
};
