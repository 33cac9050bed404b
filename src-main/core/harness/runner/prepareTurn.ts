/**
 * Turn preparation before each model request: the warnings gathered since the last step told as
 * notices, and the messages that arrived mid-run drained into one user message (`[New message from user]`).
 */
import type { ReinEvent } from '../../api/events.js';
import { injectedMessageText } from '../inbox.js';
import { flushWarnings, type RunState } from '../runState.js';
import { appendUser } from './transcript.js';

export function* prepareTurn(state: RunState): Generator<ReinEvent> {
  yield* flushWarnings(state);
  const injected = state.input.inbox?.drain() ?? [];
  if (injected.length > 0) {
    appendUser(state, [{ type: 'text', text: injectedMessageText(injected) }], true);
    yield state.stamp({ type: 'injected', texts: injected });
  }
}
