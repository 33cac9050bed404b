/**
 * The model behind one streaming method. `turn()` yields text deltas (and retry notices) as they
 * arrive and returns the whole assistant message. Retries: 429, 500, 502, 503, 504, 529, transport
 * errors, a stalled stream and a stream cut before `message_stop`; 3 attempts, exponential backoff with
 * jitter, `retry-after` honoured. Text already shown to the user is never shown twice: a retried
 * attempt's deltas are held back until they pass the point the user has already seen.
 */
import type { ClientOptions } from '@anthropic-ai/sdk/client';
import type { Messages } from '@anthropic-ai/sdk/resources/messages/messages';
import type {
  ContentBlockParam,
  MessageParam,
  RawMessageStreamEvent,
  TextBlockParam,
  Tool as ApiTool,
} from '@anthropic-ai/sdk/resources/messages';
import { ReinError } from '../errors.js';
import { networkDownCode } from './networkDown.js';
import { nodeFetch, type Fetch } from './nodeFetch.js';
import type { RequestUsage } from './pricing.js';

type Sdk = typeof import('./anthropicSdk.js');
/** Loaded by the first request of any client (see anthropicSdk.ts); set before an SDK error can exist. */
let sdk: Sdk | undefined;
let sdkLoading: Promise<Sdk> | undefined;
function loadSdk(): Promise<Sdk> {
  sdkLoading ??= import('./anthropicSdk.js').then(
    (m) => (sdk = m),
    (e: unknown) => {
      sdkLoading = undefined;
      throw e;
    },
  );
  return sdkLoading;
}

export interface ModelRequest {
  model: string;
  maxTokens: number;
  temperature?: number;
  system: TextBlockParam[];
  messages: MessageParam[];
  tools: ApiTool[];
  /** `none`: the model must answer in text (a forced final answer); tools stay declared for the history. */
  toolChoice?: 'auto' | 'none';
  /**
   * The longest TTL among the request's cache marks (cacheBreakpoints.ts). Only for the accounting: a
   * server that does not say which writes were 1-hour ones (`usage.cache_creation`) has them all counted
   * as 1-hour when this is `1h`, so a cost cap errs on the safe side.
   */
  cacheTtl?: '5m' | '1h';
}

export type AssistantBlock =
  { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: unknown };

export interface ModelResponse {
  content: AssistantBlock[];
  stopReason: string | null;
  usage: RequestUsage;
  model: string;
}

export type LlmEvent =
  | { type: 'text_delta'; text: string }
  | { type: 'retry'; attempt: number; maxAttempts: number; reason: string; delayMs: number };

export interface LlmClient {
  /** Streams one model turn. Throws ReinError `llm_failed` / `llm_cancelled`. */
  turn(req: ModelRequest, signal: AbortSignal): AsyncGenerator<LlmEvent, ModelResponse>;
}

export interface AnthropicLlmOptions {
  apiKey: string;
  baseURL?: string;
  maxAttempts?: number;
  /** First backoff step; doubles each retry (jittered). */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** A stream that sends nothing for this long is abandoned and retried. */
  idleTimeoutMs?: number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** HTTP transport for the SDK; defaults to the pooled node:http one (see nodeFetch.ts). */
  fetch?: Fetch;
}

export const RETRYABLE_STATUS = new Set([429, 500, 502, 503, 504, 529]);

/** Where the SDK sends requests when no base URL is given. */
export const DEFAULT_API_URL = 'https://api.anthropic.com';

/**
 * The address a connection error names: the base URL without credentials, query or fragment (a URL
 * pasted with `user:pass@` must not end up in a log or on screen).
 */
export function describeBaseUrl(baseURL: string | undefined): string {
  if (!baseURL) return DEFAULT_API_URL;
  try {
    const u = new URL(baseURL);
    return `${u.protocol}//${u.host}${u.pathname === '/' ? '' : u.pathname}`;
  } catch {
    return baseURL;
  }
}

/** What an error's cause chain says went wrong: a code (ECONNREFUSED), else the innermost message. */
export function causeDetail(err: unknown): string | undefined {
  let found: string | undefined;
  for (
    let e: unknown = err, depth = 0;
    e && typeof e === 'object' && depth < 6;
    e = (e as { cause?: unknown }).cause, depth++
  ) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Z][A-Z0-9_]+$/.test(code)) return code;
    const message = (e as { message?: unknown }).message;
    if (depth > 0 && typeof message === 'string' && message !== '') found = message;
  }
  return found;
}

class RetryableFailure extends Error {
  constructor(
    readonly reason: string,
    readonly retryAfterMs?: number,
    /** The connection failed because the network is not there (networkDown.ts): the code. */
    readonly network?: string,
  ) {
    super(reason);
  }
}

export class AnthropicLlm implements LlmClient {
  readonly #clientOptions: ClientOptions;
  #client: Messages | undefined;
  readonly #maxAttempts: number;
  readonly #baseDelayMs: number;
  readonly #maxDelayMs: number;
  readonly #idleTimeoutMs: number;
  readonly #sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Named in connection errors (describeBaseUrl). */
  readonly #where: string;

  constructor(opts: AnthropicLlmOptions) {
    this.#where = describeBaseUrl(opts.baseURL);
    this.#clientOptions = {
      apiKey: opts.apiKey,
      ...(opts.baseURL ? { baseURL: opts.baseURL } : {}),
      maxRetries: 0, // retries are ours: they must not duplicate streamed text
      timeout: 10 * 60_000,
      fetch: opts.fetch ?? nodeFetch,
    };
    this.#maxAttempts = opts.maxAttempts ?? 3;
    this.#baseDelayMs = opts.baseDelayMs ?? 1000;
    this.#maxDelayMs = opts.maxDelayMs ?? 60_000;
    this.#idleTimeoutMs = opts.idleTimeoutMs ?? 120_000;
    this.#sleep = opts.sleep ?? abortableSleep;
  }

  async *turn(req: ModelRequest, signal: AbortSignal): AsyncGenerator<LlmEvent, ModelResponse> {
    let shown = 0; // characters of text the user has already seen across attempts
    for (let attempt = 1; ; attempt++) {
      try {
        const gen = this.#attempt(req, signal);
        let seen = 0;
        for (;;) {
          const step = await gen.next();
          if (step.done) return step.value;
          const delta = step.value;
          const end = seen + delta.length;
          if (end > shown) {
            yield { type: 'text_delta', text: delta.slice(Math.max(0, shown - seen)) };
            shown = end;
          }
          seen = end;
        }
      } catch (err) {
        if (signal.aborted) throw new ReinError('llm_cancelled', 'LLM call cancelled', undefined, { cause: err });
        const failure = classify(err, this.#where);
        if (!(failure instanceof RetryableFailure)) throw failure;
        if (attempt >= this.#maxAttempts) {
          // `network`: an unattended run may wait for the network and try again (networkWait.ts).
          throw new ReinError('llm_failed', `LLM call failed after ${attempt} attempts: ${failure.reason}`, {
            retryable: true,
            ...(failure.network ? { network: failure.network } : {}),
          });
        }
        const backoff = this.#baseDelayMs * 2 ** (attempt - 1);
        const jittered = backoff / 2 + Math.random() * (backoff / 2);
        const delayMs = Math.min(this.#maxDelayMs, Math.max(jittered, failure.retryAfterMs ?? 0));
        yield {
          type: 'retry',
          attempt: attempt + 1,
          maxAttempts: this.#maxAttempts,
          reason: failure.reason,
          delayMs: Math.round(delayMs),
        };
        try {
          await this.#sleep(delayMs, signal);
        } catch (e) {
          throw new ReinError('llm_cancelled', 'LLM call cancelled during retry backoff', undefined, { cause: e });
        }
      }
    }
  }

  /** One streamed attempt; yields raw text pieces, returns the assembled message. */
  async *#attempt(req: ModelRequest, outer: AbortSignal): AsyncGenerator<string, ModelResponse> {
    const ac = new AbortController();
    const onAbort = () => ac.abort(outer.reason);
    outer.addEventListener('abort', onAbort, { once: true });
    let stalled = false;
    let idle: NodeJS.Timeout | undefined;
    const arm = () => {
      clearTimeout(idle);
      idle = setTimeout(() => {
        stalled = true;
        ac.abort();
      }, this.#idleTimeoutMs);
    };
    try {
      arm();
      this.#client ??= (await loadSdk()).messagesClient(this.#clientOptions);
      const stream = await this.#client.create(
        {
          // Key order is byte order on the wire: what changes least comes first, so consecutive
          // request bodies share the longest prefix.
          model: req.model,
          max_tokens: req.maxTokens,
          ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
          stream: true,
          ...(req.tools.length > 0 ? { tools: req.tools } : {}),
          ...(req.toolChoice === 'none' && req.tools.length > 0 ? { tool_choice: { type: 'none' as const } } : {}),
          system: req.system,
          messages: req.messages,
        },
        { signal: ac.signal },
      );
      const blocks: Array<AssistantBlock & { json?: string }> = [];
      const usage: RequestUsage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0 };
      let model = req.model;
      let stopReason: string | null = null;
      let stopped = false;
      for await (const ev of stream as AsyncIterable<RawMessageStreamEvent>) {
        arm();
        switch (ev.type) {
          case 'message_start': {
            model = ev.message.model || model;
            const u = ev.message.usage;
            usage.inputTokens = u.input_tokens ?? 0;
            usage.cacheReadTokens = u.cache_read_input_tokens ?? 0;
            usage.cacheCreationTokens = u.cache_creation_input_tokens ?? 0;
            const oneHour = u.cache_creation?.ephemeral_1h_input_tokens;
            if (typeof oneHour === 'number') usage.cacheCreation1hTokens = oneHour;
            usage.outputTokens = u.output_tokens ?? 0;
            break;
          }
          case 'content_block_start': {
            const b = ev.content_block;
            if (b.type === 'text') blocks[ev.index] = { type: 'text', text: b.text ?? '' };
            else if (b.type === 'tool_use')
              blocks[ev.index] = { type: 'tool_use', id: b.id, name: b.name, input: {}, json: '' };
            break;
          }
          case 'content_block_delta': {
            const b = blocks[ev.index];
            if (ev.delta.type === 'text_delta' && b?.type === 'text') {
              b.text += ev.delta.text;
              if (ev.delta.text) yield ev.delta.text;
            } else if (ev.delta.type === 'input_json_delta' && b?.type === 'tool_use') {
              b.json = (b.json ?? '') + ev.delta.partial_json;
            }
            break;
          }
          case 'content_block_stop': {
            const b = blocks[ev.index];
            if (b?.type === 'tool_use') b.input = parseToolInput(b.json ?? '');
            break;
          }
          case 'message_delta': {
            stopReason = ev.delta.stop_reason ?? stopReason;
            const u = ev.usage as unknown as Partial<Record<string, number | null>>;
            if (typeof u.output_tokens === 'number') usage.outputTokens = u.output_tokens;
            if (typeof u.input_tokens === 'number' && u.input_tokens > usage.inputTokens)
              usage.inputTokens = u.input_tokens;
            if (typeof u.cache_read_input_tokens === 'number' && u.cache_read_input_tokens > usage.cacheReadTokens)
              usage.cacheReadTokens = u.cache_read_input_tokens;
            if (
              typeof u.cache_creation_input_tokens === 'number' &&
              u.cache_creation_input_tokens > usage.cacheCreationTokens
            )
              usage.cacheCreationTokens = u.cache_creation_input_tokens;
            break;
          }
          case 'message_stop':
            stopped = true;
            break;
        }
      }
      if (!stopped) throw new RetryableFailure('stream interrupted before message_stop');
      if (usage.cacheCreation1hTokens === undefined && req.cacheTtl === '1h' && usage.cacheCreationTokens > 0)
        usage.cacheCreation1hTokens = usage.cacheCreationTokens;
      const content = blocks
        .filter((b): b is AssistantBlock & { json?: string } => b !== undefined)
        .map(({ json: _json, ...b }) => b as AssistantBlock)
        .filter((b) => b.type !== 'text' || b.text.length > 0);
      return { content, stopReason, usage, model };
    } catch (err) {
      if (stalled && !outer.aborted)
        throw new RetryableFailure(`stream stalled (no data for ${Math.round(this.#idleTimeoutMs / 1000)} s)`);
      throw err;
    } finally {
      clearTimeout(idle);
      outer.removeEventListener('abort', onAbort);
    }
  }
}

function parseToolInput(json: string): unknown {
  if (json.trim() === '') return {};
  try {
    return JSON.parse(json);
  } catch {
    // A truncated tool_use (max_tokens mid-arguments): hand the raw text on; input validation reports it.
    return { __unparsed: json };
  }
}

function classify(err: unknown, where: string): RetryableFailure | ReinError {
  if (err instanceof RetryableFailure) return err;
  if (err instanceof ReinError) return err;
  // Without the SDK loaded (its import failed) no error can be one of its classes.
  const { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } = sdk ?? {};
  if (APIUserAbortError && err instanceof APIUserAbortError)
    return new ReinError('llm_cancelled', 'LLM call cancelled');
  if (APIConnectionError && err instanceof APIConnectionError) {
    // A connect timeout is the SDK's APIConnectionTimeoutError, without a cause.
    const network =
      networkDownCode(err) ??
      (APIConnectionTimeoutError && err instanceof APIConnectionTimeoutError ? 'ETIMEDOUT' : undefined);
    // The SDK's own message is only "Connection error.": say which address, and what the socket said.
    const detail = network ?? causeDetail(err);
    return new RetryableFailure(
      `connection error: could not reach ${where}${detail ? ` (${detail})` : ''}`,
      undefined,
      network,
    );
  }
  if (APIError && err instanceof APIError && typeof err.status === 'number') {
    if (RETRYABLE_STATUS.has(err.status)) {
      const reason =
        err.status === 429
          ? 'rate limited (429)'
          : err.status === 529
            ? 'API overloaded (529)'
            : `server error (${err.status})`;
      return new RetryableFailure(reason, retryAfterMs(err.headers));
    }
    return new ReinError('llm_failed', `LLM call failed: HTTP ${err.status}: ${apiMessage(err)}`, {
      status: err.status,
      retryable: false,
    });
  }
  // A stream that errors while reading (socket reset) surfaces as a plain Error from the SDK.
  const msg = err instanceof Error ? err.message : String(err);
  if (/terminated|socket|ECONNRESET|EPIPE|premature|aborted|network/i.test(msg))
    return new RetryableFailure(`stream interrupted: ${msg}`);
  return new ReinError('llm_failed', `LLM call failed: ${msg}`, { retryable: false }, { cause: err });
}

function apiMessage(err: InstanceType<Sdk['APIError']>): string {
  const e = err.error as { error?: { message?: string } } | undefined;
  return e?.error?.message ?? err.message;
}

function retryAfterMs(headers: Headers | undefined): number | undefined {
  const raw = headers?.get('retry-after-ms') ?? undefined;
  if (raw && !Number.isNaN(Number(raw))) return Number(raw);
  const ra = headers?.get('retry-after');
  if (!ra) return undefined;
  const secs = Number(ra);
  if (!Number.isNaN(secs)) return secs * 1000;
  const at = Date.parse(ra);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason ?? new Error('aborted'));
    const t = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal.reason ?? new Error('aborted'));
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Re-export for callers building histories. */
export type { ContentBlockParam, MessageParam, TextBlockParam, ApiTool };
