import { describe, expect, it } from 'vitest';
import { releasedWhenOver } from '../../../src-main/core/runtime/releasedWhenOver.js';

const nextTurn = () => new Promise<void>((r) => setImmediate(r));

async function* events(n: number, fail?: Error): AsyncGenerator<number, string> {
  for (let i = 0; i < n; i++) yield i;
  if (fail) throw fail;
  return 'done';
}

describe('releasedWhenOver', () => {
  it('passes the events and the return value through and releases once, on the next turn after the end', async () => {
    let released = 0;
    const { events: wrapped } = releasedWhenOver(events(2), () => released++);
    const seen: number[] = [];
    let step = await wrapped.next();
    while (!step.done) {
      seen.push(step.value);
      step = await wrapped.next();
    }
    expect(seen).toEqual([0, 1]);
    expect(step.value).toBe('done');
    expect(released).toBe(0); // the consumer still reads the session as the run left it
    await nextTurn();
    expect(released).toBe(1);
    await wrapped.next();
    await nextTurn();
    expect(released).toBe(1);
  });

  it('releases after a thrown error, which still reaches the consumer', async () => {
    let released = 0;
    const { events: wrapped } = releasedWhenOver(events(0, new Error('boom')), () => released++);
    await expect(wrapped.next()).rejects.toThrow('boom');
    await nextTurn();
    expect(released).toBe(1);
  });

  it('releases when the consumer closes it before the first step', async () => {
    let released = 0;
    const { events: wrapped } = releasedWhenOver(events(3), () => released++);
    await wrapped.return('closed');
    await nextTurn();
    expect(released).toBe(1);
  });

  it('an early release does nothing before the end, and releases at once after it (never twice)', async () => {
    let released = 0;
    const { events: wrapped, release } = releasedWhenOver(events(1), () => released++);
    release();
    expect(released).toBe(0);
    for await (const _ of wrapped) void _;
    release();
    expect(released).toBe(1);
    await nextTurn();
    expect(released).toBe(1);
  });
});
