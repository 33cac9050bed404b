import { describe, expect, it } from 'vitest';
import { SseLineTooLongError, SseParser } from '../../../src-main/core/cloud/sse.js';

const all = (parser: SseParser, chunks: (string | Uint8Array)[]) => chunks.flatMap((c) => parser.push(c));

describe('SseParser', () => {
  it('reads events, joins multi-line data, keeps ids and names, ignores comments', () => {
    const p = new SseParser();
    const evs = all(p, [
      ': keep-alive\n',
      'id: 1\nevent: AGENT_STARTED\ndata: {"a":1}\n\n',
      'data: line one\ndata: line two\n\n',
    ]);
    expect(evs).toEqual([
      { event: 'AGENT_STARTED', data: '{"a":1}', id: '1' },
      // The last event id carries over to an event that names none.
      { event: 'message', data: 'line one\nline two', id: '1' },
    ]);
  });

  it('handles chunks cut anywhere: inside lines, inside UTF-8 sequences, between CR and LF', () => {
    const text = 'id: 7\r\ndata: héllo – wörld\r\n\r\nevent: x\rdata: y\r\r';
    const bytes = new TextEncoder().encode(text);
    for (let size = 1; size <= 5; size++) {
      const p = new SseParser();
      const chunks: Uint8Array[] = [];
      for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
      expect(all(p, chunks)).toEqual([
        { event: 'message', data: 'héllo – wörld', id: '7' },
        { event: 'x', data: 'y', id: '7' },
      ]);
    }
  });

  it('skips a leading BOM, drops one space after the colon only, takes fields without a colon', () => {
    const p = new SseParser();
    expect(all(p, ['\ufeffdata:  two spaces\ndata\n\n'])).toEqual([
      { event: 'message', data: ' two spaces\n', id: undefined },
    ]);
  });

  it('does not dispatch an event without data, but keeps its id; ignores ids with NUL and non-numeric retry', () => {
    const p = new SseParser();
    expect(all(p, ['id: 5\nevent: ping\n\n', 'id: a\u0000b\nretry: soon\ndata: x\n\n'])).toEqual([
      { event: 'message', data: 'x', id: '5' },
    ]);
    expect(p.lastEventId).toBe('5');
    expect(p.retry).toBeUndefined();
    expect(all(p, ['retry: 250\ndata: y\n\n'])).toEqual([{ event: 'message', data: 'y', id: '5', retry: 250 }]);
    expect(p.retry).toBe(250);
  });

  it('drops an event the stream ended in the middle of', () => {
    const p = new SseParser();
    expect(all(p, ['data: complete\n\ndata: cut'])).toHaveLength(1);
    p.end();
    expect(p.push('\n\n')).toEqual([]);
  });

  it('refuses a line longer than the limit', () => {
    const p = new SseParser({ maxLineBytes: 100 });
    expect(() => p.push(`data: ${'x'.repeat(200)}`)).toThrow(SseLineTooLongError);
    const q = new SseParser({ maxLineBytes: 100 });
    expect(() => q.push(`data: ${'x'.repeat(200)}\n\n`)).toThrow(SseLineTooLongError);
  });
});
