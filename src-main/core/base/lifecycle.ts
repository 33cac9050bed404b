/**
 * Whatever must be torn down is a Disposable: a subprocess, a socket, a server, a watcher, a timer, a
 * pooled connection, a listener. An owner keeps what it made in a DisposableStore and disposes the store
 * when it goes away; the store tears its items down in reverse order of adding, so something made from
 * an earlier item (a client of a server, a watcher of a folder) goes before what it depends on.
 *
 * Disposing twice is harmless. Something added to a store that is already disposed is disposed at once,
 * so a late arrival (a connection that finished opening after shutdown began) cannot leak.
 * Pure TypeScript, no Node built-ins: any layer may use it.
 */

export interface Disposable {
  dispose(): void;
}

/** Teardown that needs to wait (a server closing its connections, a child exiting). */
export interface AsyncDisposable {
  dispose(): Promise<void> | void;
}

export function toDisposable(fn: () => void): Disposable {
  let done = false;
  return {
    dispose() {
      if (done) return;
      done = true;
      fn();
    },
  };
}

export function isDisposable(v: unknown): v is Disposable {
  return typeof v === 'object' && v !== null && typeof (v as { dispose?: unknown }).dispose === 'function';
}

/** The errors of a teardown that went on after some items failed. */
export class DisposeError extends AggregateError {
  override readonly name = 'DisposeError';
}

/**
 * Items torn down in reverse order of adding. `dispose()` is synchronous and ignores the promises of
 * async items (their teardown is started, not awaited); `disposeAsync()` awaits each one before the
 * next. Either way every item is tried, and the failures are thrown together at the end.
 */
export class DisposableStore implements Disposable {
  #items: AsyncDisposable[] = [];
  #disposed = false;

  get isDisposed(): boolean {
    return this.#disposed;
  }

  get size(): number {
    return this.#items.length;
  }

  add<T extends AsyncDisposable>(item: T): T {
    if (this.#disposed) {
      void Promise.resolve()
        .then(() => item.dispose())
        .catch(() => undefined);
      return item;
    }
    this.#items.push(item);
    return item;
  }

  /** Adds a teardown function; returns a Disposable that runs it early (and takes it out of the store). */
  defer(fn: () => void | Promise<void>): Disposable {
    let done = false;
    const item: AsyncDisposable = {
      dispose: () => {
        if (done) return;
        done = true;
        return fn();
      },
    };
    this.add(item);
    return {
      dispose: () => {
        this.delete(item);
        void Promise.resolve(item.dispose()).catch(() => undefined);
      },
    };
  }

  /** Takes an item out without disposing it (its owner disposed it by other means). */
  delete(item: AsyncDisposable): void {
    const i = this.#items.indexOf(item);
    if (i >= 0) this.#items.splice(i, 1);
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    const errors: unknown[] = [];
    for (const item of this.#takeAll()) {
      try {
        const r = item.dispose();
        if (r && typeof (r as Promise<void>).catch === 'function') (r as Promise<void>).catch(() => undefined);
      } catch (e) {
        errors.push(e);
      }
    }
    if (errors.length > 0) throw new DisposeError(errors, `${errors.length} teardown step(s) failed`);
  }

  async disposeAsync(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    const errors: unknown[] = [];
    for (const item of this.#takeAll()) {
      try {
        await item.dispose();
      } catch (e) {
        errors.push(e);
      }
    }
    if (errors.length > 0) throw new DisposeError(errors, `${errors.length} teardown step(s) failed`);
  }

  #takeAll(): AsyncDisposable[] {
    const items = this.#items.reverse();
    this.#items = [];
    return items;
  }
}

/** A slot holding at most one disposable: setting a new value disposes the old one. */
export class MutableDisposable<T extends Disposable> implements Disposable {
  #value: T | undefined;
  #disposed = false;

  get value(): T | undefined {
    return this.#value;
  }

  set value(next: T | undefined) {
    if (this.#disposed) {
      next?.dispose();
      return;
    }
    if (next === this.#value) return;
    const old = this.#value;
    this.#value = next;
    old?.dispose();
  }

  dispose(): void {
    this.#disposed = true;
    const old = this.#value;
    this.#value = undefined;
    old?.dispose();
  }
}

/** A set of listeners whose subscription is a Disposable. */
export class Emitter<T> implements Disposable {
  readonly #listeners = new Set<(value: T) => void>();

  readonly event = (listener: (value: T) => void): Disposable => {
    this.#listeners.add(listener);
    return toDisposable(() => this.#listeners.delete(listener));
  };

  get listenerCount(): number {
    return this.#listeners.size;
  }

  fire(value: T): void {
    for (const l of [...this.#listeners]) {
      try {
        l(value);
      } catch {
        // One broken listener must not stop the others.
      }
    }
  }

  dispose(): void {
    this.#listeners.clear();
  }
}
