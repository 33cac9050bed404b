/**
 * A run nobody watches waits for the network before it fails. A Mac that wakes for a scheduled run (or
 * a heartbeat, a watcher's batch) often has no Wi-Fi for the first seconds to a minute: the model's host
 * does not resolve, or the connection is refused or unreachable. The model client's own retries (three
 * attempts over about three seconds) end before the network is back; for an unattended run this wrapper
 * then tries the turn again with a growing pause — 2 s, 4 s, 8 s … at most a minute apart, for
 * `totalMs` in all (3 minutes; `REIN_NETWORK_WAIT_MS`) — announcing each pause as a `retry` whose reason
 * starts "waiting for the network", which the schedule's run log shows.
 *
 * Only "the network is not there" waits: DNS failures, ECONNREFUSED, ENETUNREACH, EHOSTUNREACH,
 * ENETDOWN, a connect timeout. An answer from the server (401, 400, 529…) never does — the client's
 * own policy handles those — and neither does a failure after text was streamed. Attended runs are not
 * wrapped: a person at the terminal gets today's quick failure.
 */
import { ReinError, isReinError } from '../errors.js';
import { abortableSleep, type LlmClient, type LlmEvent, type ModelRequest, type ModelResponse } from './client.js';
export { networkDownCode } from './networkDown.js';

export const DEFAULT_NETWORK_WAIT_MS = 180_000;
const FIRST_PAUSE_MS = 2_000;
const MAX_PAUSE_MS = 60_000;

/** The code the model client put on a failure whose every attempt found the network down. */
export function networkDownOf(err: unknown): string | undefined {
  if (!isReinError(err, 'llm_failed')) return undefined;
  const code = err.details?.['network'];
  return typeof code === 'string' ? code : undefined;
}

export interface NetworkWaitOptions {
  /** How long to wait in all before the turn fails (ms). */
  totalMs: number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  now?: () => number;
}

/** The pauses between tries: 2 s, doubling, at most a minute, adding up to `totalMs`. */
export function networkPauses(totalMs: number): number[] {
  const pauses: number[] = [];
  let left = totalMs;
  for (let next = FIRST_PAUSE_MS; left > 0; next = Math.min(next * 2, MAX_PAUSE_MS)) {
    const pause = Math.min(next, left);
    pauses.push(pause);
    left -= pause;
  }
  return pauses;
}

export function waitForNetwork(inner: LlmClient, opts: NetworkWaitOptions): LlmClient {
  const sleep = opts.sleep ?? abortableSleep;
  const now = opts.now ?? Date.now;
  const pauses = networkPauses(opts.totalMs);
  return {
    async *turn(req: ModelRequest, signal: AbortSignal): AsyncGenerator<LlmEvent, ModelResponse> {
      const started = now();
      for (let round = 0; ; round++) {
        let streamed = false;
        try {
          const gen = inner.turn(req, signal);
          for (;;) {
            const step = await gen.next();
            if (step.done) return step.value;
            if (step.value.type === 'text_delta') streamed = true;
            yield step.value;
          }
        } catch (err) {
          const down = networkDownOf(err);
          if (down === undefined || streamed || signal.aborted) throw err;
          const waited = now() - started;
          const pause = Math.min(pauses[round] ?? 0, Math.max(0, opts.totalMs - waited));
          if (pause <= 0) {
            throw new ReinError(
              'llm_failed',
              `the model could not be reached (${down}) after waiting ${seconds(waited)} for the network: ${(err as Error).message}`,
              { retryable: true, network: down },
              { cause: err },
            );
          }
          yield {
            type: 'retry',
            attempt: round + 2,
            maxAttempts: pauses.length + 1,
            reason: `waiting for the network (${down}): the model's host cannot be reached yet`,
            delayMs: pause,
          };
          try {
            await sleep(pause, signal);
          } catch (e) {
            throw new ReinError('llm_cancelled', 'LLM call cancelled while waiting for the network', undefined, {
              cause: e,
            });
          }
        }
      }
    },
  };
}

/** `REIN_NETWORK_WAIT_MS` (0 turns the wait off), else the default. */
export function networkWaitMs(env: NodeJS.ProcessEnv): number {
  const raw = env.REIN_NETWORK_WAIT_MS?.trim();
  if (!raw) return DEFAULT_NETWORK_WAIT_MS;
  const n = Number(raw);
  return Number.isFinite(n) && n >= 0 ? n : DEFAULT_NETWORK_WAIT_MS;
}

function seconds(ms: number): string {
  return ms < 90_000 ? `${Math.round(ms / 1000)} s` : `${(ms / 60_000).toFixed(1)} min`;
}
