/**
 * A session file that is not valid UTF-8 (issue 26, item 6): read with U+FFFD it would be rewritten by
 * the next turn without its original bytes. It is refused instead, naming the file and the byte offset,
 * listed as damaged, and never written.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isReinError, type ReinError } from '../../../src-main/core/errors.js';
import { SessionStore, firstInvalidUtf8 } from '../../../src-main/core/sessions/store.js';
import { isDamaged } from '../../../src-main/core/sessions/types.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rein-utf8-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A saved session whose text "café" has its é (C3 A9) replaced by a lone continuation byte. */
async function savedWithBadByte(): Promise<{
  store: SessionStore;
  id: string;
  file: string;
  bytes: Buffer;
  offset: number;
}> {
  const store = new SessionStore(dir);
  const s = store.create({ agent: 'default', cwd: dir, source: 'cli', title: 'Order at the café' });
  s.messages.push({ role: 'user', content: [{ type: 'text', text: 'one café au lait' }] });
  s.message_meta.push({ source: 'cli', timestamp: new Date().toISOString() });
  await store.save(s);
  const file = join(dir, `${s.id}.json`);
  const good = await readFile(file);
  const at = good.lastIndexOf(Buffer.from('café au lait')) + 3;
  expect(good.subarray(at, at + 2)).toEqual(Buffer.from([0xc3, 0xa9]));
  const bytes = Buffer.concat([good.subarray(0, at), Buffer.from([0xa9]), good.subarray(at + 2)]);
  await writeFile(file, bytes);
  return { store, id: s.id, file, bytes, offset: at };
}

describe('a session file that is not valid UTF-8', () => {
  it('is refused when loaded, naming the file and the byte offset, and left as it is', async () => {
    const { store, id, file, bytes, offset } = await savedWithBadByte();
    const err = (await new SessionStore(dir).load(id).then(
      () => undefined,
      (e: unknown) => e,
    )) as ReinError;
    expect(isReinError(err, 'session_corrupt')).toBe(true);
    expect(err.message).toBe(`${file}: not valid UTF-8 at byte ${offset}`);
    expect(err.details).toMatchObject({ file, offset });
    // The store that saved it does not answer from what it remembers either.
    await expect(store.load(id)).rejects.toMatchObject({ code: 'session_corrupt' });
    expect((await readFile(file)).equals(bytes)).toBe(true);
  });

  it('is listed as damaged with its problem and what can be read of it', async () => {
    const { id, file } = await savedWithBadByte();
    const [row] = await new SessionStore(dir).listWithDamaged();
    expect(row && isDamaged(row)).toBe(true);
    expect(row).toMatchObject({ id, file, damaged: true, source: 'cli', agent: 'default' });
    expect((row as { problem: string }).problem).toMatch(/^not valid UTF-8 at byte \d+$/);
  });

  it('finds the first bad sequence: lone continuation bytes, overlongs, surrogates, truncated ends', () => {
    const at = (...b: number[]) => firstInvalidUtf8(Uint8Array.from(b));
    expect(at(0x61, 0x62)).toBe(2); // valid: the length
    expect(at(0x61, 0xc3, 0xa9, 0x62)).toBe(4);
    expect(at(0x61, 0xa9)).toBe(1);
    expect(at(0xc0, 0xaf)).toBe(0); // overlong "/"
    expect(at(0x61, 0xed, 0xa0, 0x80)).toBe(1); // a UTF-16 surrogate
    expect(at(0xf4, 0x90, 0x80, 0x80)).toBe(0); // past U+10FFFF
    expect(at(0x61, 0x62, 0xe2, 0x82)).toBe(2); // cut off mid-character
    expect(at(0xf0, 0x9f, 0x98, 0x80)).toBe(4); // an emoji is fine
  });
});
