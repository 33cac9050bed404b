/** Telling text, images and other binary content apart from the first bytes of a file. */
import { open } from 'node:fs/promises';
import type { ToolImage } from '../../tool.js';

export const SNIFF_BYTES = 8 * 1024;

export async function readHead(path: string, bytes = SNIFF_BYTES): Promise<Buffer> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(bytes);
    const { bytesRead } = await fh.read(buf, 0, bytes, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

/** Image type by magic bytes (the extension may lie). */
export function imageMediaType(head: Buffer): ToolImage['mediaType'] | undefined {
  if (head.length >= 8 && head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) {
    return 'image/png';
  }
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'image/jpeg';
  if (head.length >= 6 && /^GIF8[79]a$/.test(head.subarray(0, 6).toString('latin1'))) return 'image/gif';
  if (
    head.length >= 12 &&
    head.subarray(0, 4).toString('latin1') === 'RIFF' &&
    head.subarray(8, 12).toString('latin1') === 'WEBP'
  ) {
    return 'image/webp';
  }
  return undefined;
}

/** The heuristic git and grep use: text files do not contain NUL bytes. */
export const looksBinary = (head: Buffer): boolean => head.includes(0);
