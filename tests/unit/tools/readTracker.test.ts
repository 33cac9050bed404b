import { describe, expect, it } from 'vitest';
import { SessionReadTracker, WRITTEN_OFFSET } from '../../../src-main/core/tools/readTracker.js';

describe('SessionReadTracker', () => {
  const clock = () => new Date('2030-01-02T03:04:05.000Z');

  it('remembers the last read of a path with its range, state and time', () => {
    const tr = new SessionReadTracker(clock);
    tr.markRead('/a/b.txt', { mtimeMs: 10, size: 3, offset: 0, limit: null });
    tr.markRead('/a/b.txt', { mtimeMs: 11, size: 4, offset: 5, limit: 10 });
    expect(tr.lastRead('/a/b.txt')).toEqual({
      mtimeMs: 11,
      size: 4,
      offset: 5,
      limit: 10,
      at: '2030-01-02T03:04:05.000Z',
    });
    expect(tr.lastRead('/a/other.txt')).toBeUndefined();
  });

  it('treats unnormalised spellings of a path as the same file', () => {
    const tr = new SessionReadTracker(clock);
    tr.markRead('/a/./x/../b.txt', { mtimeMs: 1, size: 1, offset: 0, limit: null });
    expect(tr.lastRead('/a/b.txt')).toBeDefined();
  });

  it('records a write with an offset no read can match', () => {
    const tr = new SessionReadTracker(clock);
    tr.markRead('/f', { mtimeMs: 1, size: 1, offset: 0, limit: null });
    tr.markWritten('/f', { mtimeMs: 2, size: 5 });
    expect(tr.lastRead('/f')).toEqual({
      mtimeMs: 2,
      size: 5,
      offset: WRITTEN_OFFSET,
      limit: null,
      at: '2030-01-02T03:04:05.000Z',
    });
    expect(WRITTEN_OFFSET).toBeLessThan(0);
  });

  it('forgets an invalidated path', () => {
    const tr = new SessionReadTracker(clock);
    tr.markRead('/f', { mtimeMs: 1, size: 1, offset: 0, limit: null });
    tr.invalidate('/f');
    expect(tr.lastRead('/f')).toBeUndefined();
    expect(tr.paths()).toEqual([]);
  });

  it('hands out copies, so callers cannot change what it remembers', () => {
    const tr = new SessionReadTracker(clock);
    tr.markRead('/f', { mtimeMs: 1, size: 1, offset: 0, limit: null });
    const seen = tr.lastRead('/f')!;
    seen.size = 999;
    expect(tr.lastRead('/f')!.size).toBe(1);
  });
});

describe('SessionReadTracker after compaction', () => {
  it('keeps file states for edits but no longer matches any read range', () => {
    const tr = new SessionReadTracker();
    tr.markRead('/f', { mtimeMs: 1, size: 2, offset: 0, limit: null });
    tr.forgetShownContent();
    expect(tr.lastRead('/f')).toMatchObject({ mtimeMs: 1, size: 2, offset: WRITTEN_OFFSET, limit: null });
  });
});
