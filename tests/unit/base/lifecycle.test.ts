/** Disposables: owners tear down what they made in reverse order, once, and nothing added late leaks. */
import { describe, expect, it } from 'vitest';
import { DisposableStore, Emitter, MutableDisposable, toDisposable } from '../../../src-main/core/base/lifecycle.js';

const recorder = () => {
  const order: string[] = [];
  return { order, item: (name: string) => toDisposable(() => order.push(name)) };
};

describe('DisposableStore', () => {
  it('tears down in reverse order of adding, once', () => {
    const { order, item } = recorder();
    const store = new DisposableStore();
    store.add(item('server'));
    store.add(item('watcher'));
    store.add(item('client of the server'));
    store.dispose();
    store.dispose();
    expect(order).toEqual(['client of the server', 'watcher', 'server']);
    expect(store.isDisposed).toBe(true);
  });

  it('awaits each async teardown before the next with disposeAsync', async () => {
    const order: string[] = [];
    const store = new DisposableStore();
    store.add({ dispose: async () => void order.push('first added') });
    store.add({
      dispose: async () => {
        await new Promise((r) => setTimeout(r, 20));
        order.push('slow, added second');
      },
    });
    await store.disposeAsync();
    expect(order).toEqual(['slow, added second', 'first added']);
  });

  it('goes on past a failing item and reports every failure at the end', () => {
    const { order, item } = recorder();
    const store = new DisposableStore();
    store.add(item('a'));
    store.add({
      dispose: () => {
        throw new Error('b broke');
      },
    });
    store.add(item('c'));
    expect(() => store.dispose()).toThrow(/1 teardown step/);
    expect(order).toEqual(['c', 'a']);
  });

  it('disposes at once what is added after it was disposed', async () => {
    const { order, item } = recorder();
    const store = new DisposableStore();
    store.dispose();
    store.add(item('late connection'));
    await Promise.resolve();
    await Promise.resolve();
    expect(order).toEqual(['late connection']);
  });

  it('runs a deferred teardown early when asked, and not again', () => {
    const order: string[] = [];
    const store = new DisposableStore();
    const early = store.defer(() => void order.push('timer'));
    early.dispose();
    store.dispose();
    expect(order).toEqual(['timer']);
  });
});

describe('MutableDisposable and Emitter', () => {
  it('disposes the old value when a new one is set, and the last one with itself', () => {
    const { order, item } = recorder();
    const slot = new MutableDisposable();
    slot.value = item('one');
    slot.value = item('two');
    slot.dispose();
    slot.value = item('after');
    expect(order).toEqual(['one', 'two', 'after']);
  });

  it('gives each listener a subscription that is a Disposable', () => {
    const seen: number[] = [];
    const e = new Emitter<number>();
    const sub = e.event((n) => seen.push(n));
    e.event(() => {
      throw new Error('a broken listener');
    });
    e.fire(1);
    sub.dispose();
    e.fire(2);
    expect(seen).toEqual([1]);
    expect(e.listenerCount).toBe(1);
  });
});
