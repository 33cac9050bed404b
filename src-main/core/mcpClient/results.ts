/**
 * An MCP `tools/call` result as the model reads it. Text blocks are joined with a blank line; PNG,
 * JPEG, GIF and WebP images become image blocks of the tool result (up to 5 MB each, what the Messages
 * API takes); other content is summarised in one line (audio, other images) or a few (resources: URI,
 * type, size and the first lines of text), so a server cannot pour megabytes of base64 into the
 * context. `structuredContent` is shown as JSON only when the server sent no content blocks at all
 * (servers are asked to mirror it in content); an image result that also carries it (server-filesystem's
 * `read_media_file`) is the image, and base64-looking strings inside structured JSON are summarised, so
 * a picture never reaches the model — or the saved result — as text. `isError` makes it a business error
 * the model reads; the executor applies the result budget as for every tool.
 */
import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import { errorResult, okResult, type ToolImage, type ToolResult } from '../tools/tool.js';

const IMAGE_TYPES = new Set<ToolImage['mediaType']>(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
/** The Messages API's limit for one image, as base64 characters (5 MB of bytes). */
const MAX_IMAGE_BASE64 = Math.ceil((5 * 1024 * 1024 * 4) / 3);
const RESOURCE_PREVIEW_LINES = 20;
const RESOURCE_PREVIEW_CHARS = 2_000;

const base64Bytes = (b64: string): number => Math.floor((b64.replace(/=+$/, '').length * 3) / 4);

export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

function preview(text: string): string {
  const lines = text.split('\n');
  let out = lines.slice(0, RESOURCE_PREVIEW_LINES).join('\n');
  if (out.length > RESOURCE_PREVIEW_CHARS) out = `${out.slice(0, RESOURCE_PREVIEW_CHARS)}…`;
  const more = lines.length > RESOURCE_PREVIEW_LINES || out.length < text.length;
  return more ? `${out}\n… (${lines.length} lines, ${text.length} characters in all)` : out;
}

/** One content block as text (pushed to `texts`) or an image (pushed to `images`). */
function render(block: ContentBlock, texts: string[], images: ToolImage[]): void {
  switch (block.type) {
    case 'text':
      texts.push(block.text);
      return;
    case 'image': {
      const mime = block.mimeType.toLowerCase() as ToolImage['mediaType'];
      if (IMAGE_TYPES.has(mime) && block.data.length <= MAX_IMAGE_BASE64)
        images.push({ mediaType: mime, data: block.data });
      else
        texts.push(
          `[image: ${block.mimeType}, ${formatSize(base64Bytes(block.data))}${IMAGE_TYPES.has(mime) ? ', too large to show' : ', a type the model cannot see'}]`,
        );
      return;
    }
    case 'audio':
      texts.push(`[audio: ${block.mimeType}, ${formatSize(base64Bytes(block.data))}, not shown]`);
      return;
    case 'resource_link': {
      const facts = [block.mimeType, block.size !== undefined ? formatSize(block.size) : undefined]
        .filter(Boolean)
        .join(', ');
      texts.push(
        `[resource link: ${block.name} ${block.uri}${facts ? ` (${facts})` : ''}${block.description ? ` — ${block.description}` : ''}]`,
      );
      return;
    }
    case 'resource': {
      const r = block.resource;
      if ('text' in r && typeof r.text === 'string') {
        texts.push(
          `[resource: ${r.uri} (${[r.mimeType, `${r.text.length} characters`].filter(Boolean).join(', ')})]\n${preview(r.text)}`,
        );
      } else if ('blob' in r && typeof r.blob === 'string') {
        const mime = (r.mimeType ?? '').toLowerCase() as ToolImage['mediaType'];
        if (IMAGE_TYPES.has(mime) && r.blob.length <= MAX_IMAGE_BASE64) {
          texts.push(`[resource: ${r.uri} (${r.mimeType}, ${formatSize(base64Bytes(r.blob))}), shown as an image]`);
          images.push({ mediaType: mime, data: r.blob });
        } else {
          texts.push(
            `[resource: ${r.uri} (${[r.mimeType, formatSize(base64Bytes(r.blob)), 'binary, not shown'].filter(Boolean).join(', ')})]`,
          );
        }
      }
      return;
    }
    default: {
      const type = (block as { type?: unknown }).type;
      texts.push(`[${typeof type === 'string' ? type : 'unknown'} content, not shown]`);
    }
  }
}

/** A string this long made only of base64 characters is data, not words (a few KiB of an image). */
const BLOB_MIN_CHARS = 512;
const BASE64_RE = /^[A-Za-z0-9+/_-]+={0,2}$/;

/** Structured content with every long base64 string replaced by a one-line summary of it. */
function withoutBlobs(v: unknown, depth = 0): unknown {
  if (typeof v === 'string')
    return v.length >= BLOB_MIN_CHARS && BASE64_RE.test(v)
      ? `[base64 data, ${formatSize(base64Bytes(v))}, not shown]`
      : v;
  if (depth > 32 || v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map((x) => withoutBlobs(x, depth + 1));
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, withoutBlobs(x, depth + 1)]));
}

export function toToolResult(result: CallToolResult | { toolResult: unknown }): ToolResult {
  // Servers of protocol 2024-10-07 answer `{toolResult}`; the SDK still passes that shape through.
  if ('toolResult' in result && !('content' in result)) {
    return okResult(typeof result.toolResult === 'string' ? result.toolResult : JSON.stringify(result.toolResult));
  }
  const r = result as CallToolResult;
  const texts: string[] = [];
  const images: ToolImage[] = [];
  for (const block of r.content ?? []) render(block, texts, images);
  if ((r.content ?? []).length === 0 && r.structuredContent !== undefined)
    texts.push(JSON.stringify(withoutBlobs(r.structuredContent), null, 2));
  const content = texts.join('\n\n');
  if (r.isError === true) {
    const failed = errorResult('business', content || 'the tool reported an error without a message');
    return images.length > 0 ? { ...failed, images } : failed;
  }
  return okResult(content || (images.length > 0 ? '' : '(the tool returned no content)'), images);
}
