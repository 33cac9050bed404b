/**
 * `events` as they are (same events, same return value, same errors), calling `release` once it is
 * over: run to its end, thrown, or closed by the consumer (`return()`, even before the first step).
 * Called on the next turn of the event loop, not at once: what the consumer does on seeing the end —
 * the daemon hands the session to its search index — still reads the session as this run left it,
 * before another run can take it from the store. A consumer that knows when it is done calls the
 * returned `release` itself: a busy daemon may read the route's next message before that next turn.
 */
export function releasedWhenOver<T, R>(
  events: AsyncGenerator<T, R>,
  release: () => void,
): { events: AsyncGenerator<T, R>; release: () => void } {
  let over = false;
  let released = false;
  const releaseOnce = () => {
    if (released) return;
    released = true;
    release();
  };
  const end = () => {
    if (over) return;
    over = true;
    setImmediate(releaseOnce);
  };
  const settle = async (step: Promise<IteratorResult<T, R>>): Promise<IteratorResult<T, R>> => {
    let result: IteratorResult<T, R>;
    try {
      result = await step;
    } catch (err) {
      end();
      throw err;
    }
    if (result.done) end();
    return result;
  };
  const wrapped: AsyncGenerator<T, R> = {
    next: (...args) => settle(events.next(...args)),
    return: (value) => settle(events.return(value)),
    throw: (err) => settle(events.throw(err)),
    [Symbol.asyncIterator]: () => wrapped,
  };
  return { events: wrapped, release: () => over && releaseOnce() };
}
