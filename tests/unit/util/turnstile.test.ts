import { describe, expect, it } from 'vitest';
import { Turnstile } from '../../../src-main/core/util/turnstile.js';

/** A clock the test moves by hand: "work" is an advance of the clock. */
function clock() {
  let t = 0;
  return { now: () => t, work: (ms: number) => void (t += ms) };
}

describe('Turnstile', () => {
  it('lets work through at once while the slice has budget', () => {
    const c = clock();
    const gate = new Turnstile(4, c.now);
    c.work(1);
    expect(gate.pass()).toBeUndefined();
    c.work(2);
    expect(gate.pass()).toBeUndefined();
    c.work(2);
    expect(gate.pass()).toBeInstanceOf(Promise);
  });

  it('puts I/O that is ready ahead of runs that have used up the slice', async () => {
    const c = clock();
    const gate = new Turnstile(1, c.now);
    const order: string[] = [];
    const run = async (name: string, steps: number) => {
      for (let i = 0; i < steps; i++) {
        await gate.pass();
        order.push(name);
        c.work(2); // every step is longer than the slice
      }
    };
    const a = run('a', 3);
    const b = run('b', 3);
    // A "new message" that becomes ready while the runs are going.
    setImmediate(() => order.push('message'));
    await Promise.all([a, b]);
    // Both runs progress in turns, and the message is not left until they are done.
    expect(order.filter((x) => x === 'a')).toHaveLength(3);
    expect(order.filter((x) => x === 'b')).toHaveLength(3);
    expect(order.indexOf('message')).toBeLessThan(order.length - 2);
    const as = order.map((x, i) => (x === 'a' ? i : -1)).filter((i) => i >= 0);
    const bs = order.map((x, i) => (x === 'b' ? i : -1)).filter((i) => i >= 0);
    // Round robin: neither run finishes all its steps before the other has started.
    expect(bs[0]!).toBeLessThan(as[2]!);
    expect(as[0]!).toBeLessThan(bs[2]!);
  });

  it('always lets the first waiter of a turn go on, so every run finishes', async () => {
    const c = clock();
    const gate = new Turnstile(1, c.now);
    let steps = 0;
    for (let i = 0; i < 20; i++) {
      await gate.pass();
      steps++;
      c.work(50);
    }
    expect(steps).toBe(20);
  });

  it('yieldTurn waits for a later turn even with budget left, behind what is ready now', async () => {
    const c = clock();
    const gate = new Turnstile(1000, c.now);
    const order: string[] = [];
    // Requests that arrived together with the one whose run now gives way: they are already queued.
    setImmediate(() => order.push('other request'));
    const run = (async () => {
      expect(gate.pass()).toBeUndefined(); // budget left: pass would not wait
      await gate.yieldTurn();
      order.push('run goes on');
    })();
    await run;
    expect(order).toEqual(['other request', 'run goes on']);
  });
});
