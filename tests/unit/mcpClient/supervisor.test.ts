/**
 * The supervisor's timing with a scripted connector and a hand-driven clock: probes every 30 s ±20%,
 * backoff 5 s → 10 s → 20 s → 30 s, dormant after 6 failed attempts, reconnect on demand, degraded after
 * one failed probe and lost after two.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  NeedsPersonError,
  Supervisor,
  type Clock,
  type Connector,
} from '../../../src-main/core/mcpClient/supervisor.js';

/** A clock whose time moves only when the test says so; random() is fixed. */
class ManualClock implements Clock {
  t = 1_000_000;
  rnd = 0.5;
  timers: { at: number; fn: () => void; id: number }[] = [];
  #next = 0;
  setTimeout(fn: () => void, ms: number) {
    const id = ++this.#next;
    this.timers.push({ at: this.t + ms, fn, id });
    return id;
  }
  clearTimeout(h: unknown) {
    this.timers = this.timers.filter((x) => x.id !== h);
  }
  now() {
    return this.t;
  }
  random() {
    return this.rnd;
  }
  /** The delay of the one pending timer. */
  get pending(): number | undefined {
    return this.timers.length === 1 ? this.timers[0]!.at - this.t : undefined;
  }
  async fire(): Promise<void> {
    const next = [...this.timers].sort((a, b) => a.at - b.at)[0];
    if (!next) throw new Error('no timer');
    this.timers = this.timers.filter((x) => x !== next);
    this.t = next.at;
    next.fn();
    await flush();
  }
}

const flush = async () => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

interface Conn {
  id: number;
  closed: boolean;
}

function scripted() {
  const outcomes: ('ok' | 'fail' | 'person')[] = [];
  const probes: ('ok' | 'fail')[] = [];
  let n = 0;
  const log: string[] = [];
  const connector: Connector<Conn> = {
    async connect() {
      const o = outcomes.shift() ?? 'ok';
      log.push(`connect:${o}`);
      if (o === 'fail') throw new Error('refused');
      if (o === 'person') throw new NeedsPersonError('sign in');
      return { id: ++n, closed: false };
    },
    async probe() {
      const o = probes.shift() ?? 'ok';
      log.push(`probe:${o}`);
      if (o === 'fail') throw new Error('no pong');
    },
    async dispose(c) {
      c.closed = true;
    },
    isClosed: (c) => c.closed,
  };
  return { connector, outcomes, probes, log };
}

describe('MCP supervisor', () => {
  it('probes a healthy server every 30 s, jittered ±20%', async () => {
    const clock = new ManualClock();
    const s = scripted();
    const sup = new Supervisor(s.connector, {}, {}, clock);
    await sup.start();
    expect(sup.state).toBe('healthy');
    expect(clock.pending).toBe(30_000);
    await clock.fire();
    expect(s.log).toEqual(['connect:ok', 'probe:ok']);
    clock.rnd = 0;
    await clock.fire();
    expect(clock.pending).toBe(24_000);
    clock.rnd = 1;
    await clock.fire();
    expect(clock.pending).toBe(36_000);
    await sup.dispose();
    expect(clock.timers).toEqual([]);
  });

  it('with idleCloseMs (keep_alive: false), closes a connection unused that long and reconnects on the next call', async () => {
    const clock = new ManualClock();
    const s = scripted();
    let busy = false;
    const sup = new Supervisor(s.connector, { inUse: () => busy }, { idleCloseMs: 300_000 }, clock);
    await sup.start();
    const first = sup.connection!;
    // Used now and then: stays open past five minutes.
    for (let i = 0; i < 12; i++) {
      await clock.fire();
      sup.touch();
    }
    expect(clock.t - 1_000_000).toBeGreaterThan(300_000);
    expect(sup.state).toBe('healthy');
    // A call that runs long keeps it open too.
    busy = true;
    for (let i = 0; i < 12; i++) await clock.fire();
    expect(sup.state).toBe('healthy');
    // Unused for five minutes: closed at the next probe, and nothing is scheduled.
    busy = false;
    sup.touch();
    for (let i = 0; i < 11 && sup.state === 'healthy'; i++) await clock.fire();
    expect(sup.state).toBe('idle');
    expect(first.closed).toBe(true);
    expect(sup.connection).toBeUndefined();
    expect(clock.timers).toEqual([]);
    expect(s.log.filter((l) => l.startsWith('connect'))).toEqual(['connect:ok']);
    // The next call starts it again.
    const again = await sup.ensure();
    expect(again.id).toBe(2);
    expect(sup.state).toBe('healthy');
    await sup.dispose();
  });

  it('without idleCloseMs an unused connection stays open', async () => {
    const clock = new ManualClock();
    const s = scripted();
    const sup = new Supervisor(s.connector, {}, {}, clock);
    await sup.start();
    for (let i = 0; i < 30; i++) await clock.fire();
    expect(sup.state).toBe('healthy');
    expect(sup.connection!.closed).toBe(false);
    await sup.dispose();
  });

  it('backs off 5 s, 10 s, 20 s, 30 s, 30 s, then goes dormant after 6 failures', async () => {
    const clock = new ManualClock();
    const s = scripted();
    s.outcomes.push('fail', 'fail', 'fail', 'fail', 'fail', 'fail');
    const states: string[] = [];
    const sup = new Supervisor(s.connector, { onState: (x) => states.push(x) }, {}, clock);
    await sup.start();
    const delays: number[] = [];
    while (clock.timers.length > 0) {
      delays.push(clock.pending!);
      await clock.fire();
    }
    expect(delays).toEqual([5_000, 10_000, 20_000, 30_000, 30_000]);
    expect(sup.state).toBe('dormant');
    expect(sup.status()).toMatchObject({ failures: 6, lastError: 'refused', needsPerson: false });
    expect(states.filter((x) => x === 'dormant')).toHaveLength(1);
  });

  it('a call reconnects a dormant server on demand, and success resets the count', async () => {
    const clock = new ManualClock();
    const s = scripted();
    s.outcomes.push('fail', 'fail', 'fail', 'fail', 'fail', 'fail', 'ok');
    const sup = new Supervisor(s.connector, {}, {}, clock);
    await sup.start();
    while (clock.timers.length > 0) await clock.fire();
    expect(sup.state).toBe('dormant');
    const conn = await sup.ensure();
    expect(conn.id).toBe(1);
    expect(sup.status()).toMatchObject({ state: 'healthy', failures: 0 });
    await sup.dispose();
  });

  it('one failed probe is degraded (probed again after 5 s), two in a row are lost and reconnected', async () => {
    const clock = new ManualClock();
    const s = scripted();
    s.probes.push('fail', 'ok', 'fail', 'fail');
    const sup = new Supervisor(s.connector, {}, {}, clock);
    await sup.start();
    await clock.fire();
    expect(sup.state).toBe('degraded');
    expect(clock.pending).toBe(5_000);
    await clock.fire();
    expect(sup.state).toBe('healthy');
    await clock.fire();
    await clock.fire();
    expect(sup.state).toBe('disconnected');
    const first = s.log.filter((l) => l.startsWith('connect')).length;
    expect(clock.pending).toBe(5_000);
    await clock.fire();
    expect(s.log.filter((l) => l.startsWith('connect')).length).toBe(first + 1);
    expect(sup.state).toBe('healthy');
    expect(sup.connection?.id).toBe(2);
    await sup.dispose();
  });

  it('a lost connection is retried after 5 s, or at once by a call', async () => {
    const clock = new ManualClock();
    const s = scripted();
    const sup = new Supervisor(s.connector, {}, {}, clock);
    await sup.start();
    const c1 = sup.connection!;
    sup.lost(c1, 'the server exited with code 1');
    expect(sup.status()).toMatchObject({ state: 'disconnected', lastError: 'the server exited with code 1' });
    expect(clock.pending).toBe(5_000);
    const c2 = await sup.ensure();
    expect(c2.id).toBe(2);
    expect(clock.pending).toBe(30_000);
    // A connection already closed under us is noticed by the next call.
    c2.closed = true;
    expect((await sup.ensure()).id).toBe(3);
    await sup.dispose();
  });

  it('a failure that needs a person (a sign-in) is not retried in the background', async () => {
    const clock = new ManualClock();
    const s = scripted();
    s.outcomes.push('person', 'ok');
    const sup = new Supervisor(s.connector, {}, {}, clock);
    await sup.start();
    expect(sup.status()).toMatchObject({ state: 'disconnected', needsPerson: true });
    expect(clock.timers).toEqual([]);
    await sup.ensure();
    expect(sup.status()).toMatchObject({ state: 'healthy', needsPerson: false });
    await sup.dispose();
  });

  it('calls that arrive together share one attempt; dispose closes what is open', async () => {
    const clock = new ManualClock();
    const s = scripted();
    const sup = new Supervisor(s.connector, {}, {}, clock);
    const [a, b] = await Promise.all([sup.ensure(), sup.ensure()]);
    expect(a).toBe(b);
    expect(s.log).toEqual(['connect:ok']);
    await sup.dispose();
    expect(a.closed).toBe(true);
    await expect(sup.ensure()).rejects.toThrow(/shut down/);
  });
});

describe('MCP supervisor on the system clock (fake timers)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('probes within 24–36 s and reconnects 4–6 s after a loss', async () => {
    vi.useFakeTimers();
    const s = scripted();
    const sup = new Supervisor(s.connector);
    await sup.start();
    await vi.advanceTimersByTimeAsync(23_999);
    expect(s.log).toEqual(['connect:ok']);
    await vi.advanceTimersByTimeAsync(12_001);
    expect(s.log).toEqual(['connect:ok', 'probe:ok']);
    sup.lost(sup.connection!, 'gone');
    await vi.advanceTimersByTimeAsync(3_999);
    expect(s.log.filter((l) => l.startsWith('connect'))).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(2_001);
    expect(s.log.filter((l) => l.startsWith('connect'))).toHaveLength(2);
    expect(sup.state).toBe('healthy');
    await sup.dispose();
    expect(vi.getTimerCount()).toBe(0);
  });
});
