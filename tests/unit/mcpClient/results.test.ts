import { describe, expect, it } from 'vitest';
import { toToolResult } from '../../../src-main/core/mcpClient/results.js';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

describe('MCP tool results', () => {
  it('joins text blocks', () => {
    expect(
      toToolResult({
        content: [
          { type: 'text', text: 'one' },
          { type: 'text', text: 'two' },
        ],
      }),
    ).toEqual({ ok: true, content: 'one\n\ntwo' });
  });

  it('passes images the model can see as image blocks, summarises the rest', () => {
    const r = toToolResult({
      content: [
        { type: 'text', text: 'here' },
        { type: 'image', data: PNG, mimeType: 'image/png' },
        { type: 'image', data: 'AAAA', mimeType: 'image/tiff' },
        { type: 'audio', data: 'AAAAAAAA', mimeType: 'audio/wav' },
      ],
    });
    expect(r.ok).toBe(true);
    expect(r.images).toEqual([{ mediaType: 'image/png', data: PNG }]);
    expect(r.content).toContain('[image: image/tiff, 3 bytes, a type the model cannot see]');
    expect(r.content).toContain('[audio: audio/wav, 6 bytes, not shown]');
  });

  it('summarises resources: uri, type, size, the first lines', () => {
    const text = Array.from({ length: 50 }, (_, i) => `line ${i}`).join('\n');
    const r = toToolResult({
      content: [
        { type: 'resource', resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text } },
        {
          type: 'resource',
          resource: { uri: 'file:///b.bin', mimeType: 'application/octet-stream', blob: 'AAAAAAAA' },
        },
        { type: 'resource_link', uri: 'file:///c.md', name: 'c.md', mimeType: 'text/markdown', size: 2048 },
      ],
    });
    expect(r.content).toContain('[resource: file:///a.txt (text/plain, 389 characters)]\nline 0\n');
    expect(r.content).toContain('line 19\n… (50 lines, 389 characters in all)');
    expect(r.content).not.toContain('line 20');
    expect(r.content).toContain('[resource: file:///b.bin (application/octet-stream, 6 bytes, binary, not shown)]');
    expect(r.content).toContain('[resource link: c.md file:///c.md (text/markdown, 2.0 KiB)]');
  });

  it('isError is a business error the model reads', () => {
    expect(toToolResult({ content: [{ type: 'text', text: 'no such file' }], isError: true })).toEqual({
      ok: false,
      errorKind: 'business',
      content: '[business error] no such file',
    });
  });

  it('structured content is shown when the server sent no text', () => {
    expect(toToolResult({ content: [], structuredContent: { sum: 3 } }).content).toBe('{\n  "sum": 3\n}');
    expect(toToolResult({ content: [] }).content).toBe('(the tool returned no content)');
  });
});
