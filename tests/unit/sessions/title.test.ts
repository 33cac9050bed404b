import { describe, expect, it } from 'vitest';
import { DEFAULT_SESSION_TITLE, titleFromPrompt } from '../../../src-main/core/sessions/title.js';

describe('titleFromPrompt', () => {
  it('keeps a short prompt as it is, trimmed', () => {
    expect(titleFromPrompt('  Fix the login bug  ')).toBe('Fix the login bug');
  });

  it('uses the first non-empty line only', () => {
    expect(titleFromPrompt('\n   \n  Summarise this\nlots of pasted text\nmore')).toBe('Summarise this');
    expect(titleFromPrompt('first\r\nsecond')).toBe('first');
  });

  it('returns the default title for empty or blank text', () => {
    expect(titleFromPrompt('')).toBe(DEFAULT_SESSION_TITLE);
    expect(titleFromPrompt(' \n\t\n ')).toBe('New session');
  });

  it('keeps exactly 50 characters without an ellipsis', () => {
    const s = 'x'.repeat(50);
    expect(titleFromPrompt(s)).toBe(s);
  });

  it('cuts a long line at the last space when that space is past the halfway point', () => {
    // 45 chars, a space at index 45, then more words: the cut falls back to the space.
    const head = 'a'.repeat(20) + ' ' + 'b'.repeat(24); // 45 chars, spaces at 20
    const text = `${head} cccccccccc dddd`;
    expect(titleFromPrompt(text)).toBe(`${head}…`);
  });

  it('cuts hard at 50 when the last space is in the first half', () => {
    const text = `${'a'.repeat(10)} ${'b'.repeat(60)}`;
    expect(titleFromPrompt(text)).toBe(`${'a'.repeat(10)} ${'b'.repeat(39)}…`);
  });

  it('cuts hard at 50 when there is no space at all', () => {
    expect(titleFromPrompt('z'.repeat(80))).toBe(`${'z'.repeat(50)}…`);
  });

  it('counts characters, not UTF-16 units, so emoji are never split', () => {
    const text = '😀'.repeat(60);
    const title = titleFromPrompt(text);
    expect(Array.from(title)).toHaveLength(51);
    expect(title).toBe(`${'😀'.repeat(50)}…`);
  });
});
