/** `file_read`: show a text file with line numbers, or an image for the model to look at. */
import { callSummaryOf, FILE_READ_DEFAULT_LIMIT } from '../../api/toolSummary.js';
import { createReadStream, type Stats } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { errorResult, okResult, type Tool, type ToolContext, type ToolResult } from '../tool.js';
import { imageMediaType, looksBinary, readHead } from './support/fileKind.js';
import { numberedLine } from './support/numberedLines.js';
import { canonicalPath, errnoCode, isDevicePath, resolveToolPath } from './support/toolPaths.js';
import { FILE_READ_TRAITS } from './builtinTraits.js';

export { FILE_READ_DEFAULT_LIMIT };
export const FILE_READ_MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** Counting the lines after the window is cheap for ordinary files; for huge ones the note just says "more". */
const COUNT_REST_MAX_BYTES = 50 * 1024 * 1024;

const input = z.strictObject({
  path: z.string().min(1).describe('File to read: absolute, relative to the working folder, or starting with ~/.'),
  offset: z.number().int().min(0).optional().describe('0-based line to start at (default 0).'),
  limit: z.number().int().min(1).optional().describe(`Number of lines to return (default ${FILE_READ_DEFAULT_LIMIT}).`),
});
export type FileReadInput = z.infer<typeof input>;

export const fileReadTool: Tool<FileReadInput> = {
  name: 'file_read',
  source: 'local',
  traits: FILE_READ_TRAITS,
  description: [
    'Read a text file. Lines are numbered from 1 as `   1 | text`; the number and ` | ` are not part of the file.',
    `Returns at most \`limit\` lines (default ${FILE_READ_DEFAULT_LIMIT}) starting at the 0-based line \`offset\`; a longer file ends with a note saying how to read on.`,
    'Lines longer than 2,000 characters are cut.',
    'PNG, JPEG, GIF and WebP images up to 5 MB are returned as images. Other binary files, folders and device files are refused.',
    'Reading the same unchanged range twice returns a short note instead of the content again.',
    'A file must be read before file_edit or file_write may change it.',
  ].join(' '),
  input,
  isReadOnly: () => true,
  isDestructive: () => false,
  summarize: (i) => callSummaryOf('file_read', i),

  async call(i, ctx) {
    const abs = resolveToolPath(i.path, ctx.cwd);
    if (isDevicePath(abs))
      return errorResult('validation', `${i.path} is a device file; file_read only reads regular files`);
    const real = await canonicalPath(abs);
    if (isDevicePath(real))
      return errorResult(
        'validation',
        `${i.path} points to the device file ${real}; file_read only reads regular files`,
      );

    let st: Stats;
    try {
      st = await stat(real);
    } catch (e) {
      return accessError(e, i.path);
    }
    const refusal = kindRefusal(st, i.path);
    if (refusal) return refusal;

    const offset = i.offset ?? 0;
    const limit = i.limit ?? null;
    const seen = ctx.readTracker.lastRead(real);
    if (
      seen &&
      seen.offset === offset &&
      seen.limit === limit &&
      seen.mtimeMs === st.mtimeMs &&
      seen.size === st.size
    ) {
      return okResult(
        `${i.path} is unchanged since you last read it at ${seen.at}; the content above is still current.`,
      );
    }

    try {
      const head = await readHead(real);
      const media = imageMediaType(head);
      if (media) return await readImage(real, i.path, st, media, ctx, offset, limit);
      if (looksBinary(head)) {
        return errorResult(
          'validation',
          `${i.path} is a binary file (${st.size} bytes); file_read only shows text and images`,
        );
      }
      const text = await readLines(real, offset, limit ?? FILE_READ_DEFAULT_LIMIT, st.size);
      if (text.kind === 'past_end') {
        return errorResult('validation', `offset ${offset} is past the end of ${i.path} (${text.total} lines)`);
      }
      ctx.readTracker.markRead(real, { mtimeMs: st.mtimeMs, size: st.size, offset, limit });
      return okResult(text.content);
    } catch (e) {
      return accessError(e, i.path);
    }
  },
};

function kindRefusal(st: Stats, shown: string): ToolResult | undefined {
  if (st.isDirectory())
    return errorResult('validation', `${shown} is a directory; use directory_list or glob to see its contents`);
  if (st.isFIFO()) return errorResult('validation', `${shown} is a named pipe (FIFO); reading it could block forever`);
  if (st.isSocket()) return errorResult('validation', `${shown} is a socket, not a file`);
  if (st.isCharacterDevice() || st.isBlockDevice())
    return errorResult('validation', `${shown} is a device file; file_read only reads regular files`);
  if (!st.isFile()) return errorResult('validation', `${shown} is not a regular file`);
  return undefined;
}

function accessError(e: unknown, shown: string): ToolResult {
  const code = errnoCode(e);
  if (code === 'ENOENT' || code === 'ENOTDIR') return errorResult('validation', `${shown} does not exist`);
  if (code === 'EACCES' || code === 'EPERM') return errorResult('permission', `no permission to read ${shown}`);
  return errorResult('transient', `could not read ${shown}: ${e instanceof Error ? e.message : String(e)}`);
}

async function readImage(
  real: string,
  shown: string,
  st: Stats,
  mediaType: NonNullable<ReturnType<typeof imageMediaType>>,
  ctx: ToolContext,
  offset: number,
  limit: number | null,
): Promise<ToolResult> {
  if (st.size > FILE_READ_MAX_IMAGE_BYTES) {
    return errorResult(
      'validation',
      `${shown} is an image of ${st.size} bytes, above the ${FILE_READ_MAX_IMAGE_BYTES} byte limit`,
    );
  }
  const data = (await readFile(real)).toString('base64');
  ctx.readTracker.markRead(real, { mtimeMs: st.mtimeMs, size: st.size, offset, limit });
  return okResult(`${shown} (${mediaType}, ${st.size} bytes)`, [{ mediaType, data }]);
}

type LinesResult = { kind: 'ok'; content: string } | { kind: 'past_end'; total: number };

/** Streams the file so a huge log costs only the lines asked for (plus a cheap count of the rest). */
async function readLines(path: string, offset: number, limit: number, size: number): Promise<LinesResult> {
  const rl = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  const shown: string[] = [];
  let lineNo = 0;
  let more = false;
  let total: number | undefined;
  try {
    for await (const line of rl) {
      if (lineNo >= offset && lineNo < offset + limit) {
        shown.push(numberedLine(lineNo + 1, line));
      } else if (lineNo >= offset + limit) {
        more = true;
        if (size > COUNT_REST_MAX_BYTES) break;
      }
      lineNo++;
    }
    if (!more || size <= COUNT_REST_MAX_BYTES) total = lineNo;
  } finally {
    rl.close();
  }

  if (lineNo === 0) return { kind: 'ok', content: '(the file is empty)' };
  if (offset > 0 && offset >= lineNo && !more) return { kind: 'past_end', total: lineNo };
  let content = shown.join('\n');
  if (more) {
    const last = offset + shown.length;
    const of = total !== undefined ? ` of ${total}` : '';
    content += `\n\n(showing lines ${offset + 1}–${last}${of}; call file_read with offset ${last} to read more)`;
  }
  return { kind: 'ok', content };
}
