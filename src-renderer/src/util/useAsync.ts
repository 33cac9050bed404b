import { useCallback, useEffect, useRef, useState } from 'react';
import { toApiError, type ApiError } from '../api/apiError.js';

export type AsyncState<T> =
  { status: 'loading'; value?: T } | { status: 'ready'; value: T } | { status: 'failed'; error: ApiError; value?: T };

/**
 * Runs `load` when `deps` change and on `reload()`; keeps the last value while reloading so lists do
 * not flash empty. A result that arrives after a newer load started is dropped.
 */
export function useAsync<T>(load: () => Promise<T>, deps: readonly unknown[]): [AsyncState<T>, () => void] {
  const [state, setState] = useState<AsyncState<T>>({ status: 'loading' });
  const [tick, setTick] = useState(0);
  const generation = useRef(0);
  useEffect(() => {
    const mine = ++generation.current;
    setState((s) => ({ status: 'loading', ...(s.value !== undefined ? { value: s.value } : {}) }));
    load().then(
      (value) => mine === generation.current && setState({ status: 'ready', value }),
      (e: unknown) =>
        mine === generation.current &&
        setState((s) => ({
          status: 'failed',
          error: toApiError(e),
          ...(s.value !== undefined ? { value: s.value } : {}),
        })),
    );
    // The caller lists what `load` depends on in `deps`.
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return [state, reload];
}
