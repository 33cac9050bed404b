/**
 * The SSE event store of one Streamable HTTP session of `rein mcp serve`. Having one makes the SDK's
 * transport send the priming event that starts every POST stream (an `id` with empty data, and
 * `retry`) to clients of protocol 2025-11-25 and later, and lets a client whose stream broke resume it
 * with `Last-Event-ID` (SEP-1699) instead of losing the call's answer. The standalone GET stream, which
 * the SDK does not prime, is primed by serve.ts with `prime()`.
 *
 * Kept in memory and bounded: the newest MAX_EVENTS events and MAX_BYTES of them per session; a
 * client that resumes after older events were dropped gets what is left of its stream.
 */
import type { EventStore } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export const MAX_EVENTS = 1_000;
export const MAX_BYTES = 8 * 1024 * 1024;
/** The `retry` (ms) the priming event tells clients to wait before reconnecting a broken stream. */
export const SSE_RETRY_MS = 2_000;
/**
 * The stream id the SDK's transport (1.32) stores the standalone GET stream's events under, and
 * registers a resumed GET stream as (its `_standaloneSseStreamId`). tests/integration/mcp-serve-sse.test.ts
 * resumes a GET stream from its priming event, so a change in the SDK shows there.
 */
export const STANDALONE_STREAM_ID = '_GET_stream';
/** The first protocol version whose clients read an event with empty data (the SDK's own threshold). */
export const PRIMING_MIN_VERSION = '2025-11-25';

interface Stored {
  seq: number;
  streamId: string;
  message: JSONRPCMessage;
  bytes: number;
}

export class BoundedEventStore implements EventStore {
  readonly #events: Stored[] = [];
  /** Event id → its stream, for every id still stored. */
  readonly #streams = new Map<string, string>();
  #seq = 0;
  #bytes = 0;

  constructor(
    readonly maxEvents = MAX_EVENTS,
    readonly maxBytes = MAX_BYTES,
  ) {}

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    return this.#store(streamId, message);
  }

  /** Stores a priming event (`{}`, never replayed) on `streamId` at once; its id, for the event's `id:`. */
  prime(streamId: string): string {
    return this.#store(streamId, {} as JSONRPCMessage);
  }

  #store(streamId: string, message: JSONRPCMessage): string {
    const seq = ++this.#seq;
    const bytes = JSON.stringify(message).length;
    this.#events.push({ seq, streamId, message, bytes });
    this.#streams.set(String(seq), streamId);
    this.#bytes += bytes;
    while (this.#events.length > 1 && (this.#events.length > this.maxEvents || this.#bytes > this.maxBytes)) {
      const old = this.#events.shift()!;
      this.#bytes -= old.bytes;
      this.#streams.delete(String(old.seq));
    }
    return String(seq);
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return this.#streams.get(eventId);
  }

  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const streamId = this.#streams.get(lastEventId);
    if (streamId === undefined) return '';
    const after = Number(lastEventId);
    // Priming events are stored as `{}`: nothing to send again.
    for (const e of this.#events.filter(
      (x) => x.seq > after && x.streamId === streamId && Object.keys(x.message).length > 0,
    )) {
      await send(String(e.seq), e.message);
    }
    return streamId;
  }
}
