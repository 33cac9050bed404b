/**
 * "Test connection" in the settings view: one Messages API request of at most one output token to the
 * model, base URL and key a run would use (or the ones being tried), answered as a result a person can
 * read. A failure is an answer (`ok: false` with what went wrong), not an error of the request.
 *
 * The stored key goes only where runs send it: to the configured base URL (config `base_url`, else
 * ANTHROPIC_BASE_URL, else the Anthropic API). A request naming another base URL must bring its own
 * `api_key`; without one the test is refused (400, field `api_key`), except for a server on this
 * machine, which is tried with no key at all. Otherwise anyone able to call this operation (a page
 * in the desktop window, a client of the daemon) could have the key sent to a server of their choosing.
 */
import type { GlobalConfig } from '../config/schema.js';
import { errorMessage, fieldError, isReinError } from '../errors.js';
import { causeDetail, describeBaseUrl } from '../llm/client.js';
import { nodeFetch } from '../llm/nodeFetch.js';
import { resolveModelAccess } from '../runtime/runtime.js';
import { sameBaseUrl } from '../util/baseUrl.js';
import { isLocalOrWildcard } from '../util/loopback.js';

export interface ConnectionTestInput {
  api_key?: string;
  base_url?: string;
  model?: string;
}

export interface ConnectionTestResult {
  ok: boolean;
  message: string;
  model: string;
  latency_ms?: number;
  code?: string;
}

export const CONNECTION_TEST_TIMEOUT_MS = 20_000;
/** Where the SDK sends requests when no base URL is configured. */
export const ANTHROPIC_API_URL = 'https://api.anthropic.com';

export async function testModelConnection(
  input: ConnectionTestInput,
  ctx: { env: NodeJS.ProcessEnv; config: GlobalConfig; home: string; timeoutMs?: number },
): Promise<ConnectionTestResult> {
  const model = input.model ?? ctx.config.model;
  const configured = ctx.config.base_url ?? (ctx.env.ANTHROPIC_BASE_URL?.trim() || ANTHROPIC_API_URL);
  const elsewhere = input.base_url !== undefined && !sameBaseUrl(input.base_url, configured);
  if (elsewhere && !input.api_key && !isLocalUrl(input.base_url!)) {
    throw fieldError(
      'invalid_request',
      `api_key: the stored API key is only sent to the configured base URL (${configured}); to try ${input.base_url}, give the key for it too`,
      'api_key',
    );
  }
  // Trying another server: the stored credentials stay out of it (a local server gets no key).
  const env = elsewhere ? withoutStoredKeys(ctx.env) : ctx.env;
  let access;
  try {
    access = await resolveModelAccess(
      input.api_key ? { ...env, ANTHROPIC_API_KEY: input.api_key } : env,
      input.base_url ? { ...ctx.config, base_url: input.base_url } : ctx.config,
      ctx.home,
      // The stored key (secrets/apiKey.ts) goes only to the configured base URL, like the environment's.
      { storedKey: !elsewhere },
    );
  } catch (e) {
    return { ok: false, model, code: isReinError(e) ? e.code : 'internal', message: errorMessage(e) };
  }
  // The SDK is loaded by the test itself, not with the service (docs/architecture.md, *Startup*).
  const sdk = await import('../llm/anthropicSdk.js');
  const client = sdk.messagesClient({
    apiKey: access.apiKey,
    // Always named: the SDK would otherwise read ANTHROPIC_BASE_URL from this process's environment.
    baseURL: access.baseURL ?? ANTHROPIC_API_URL,
    maxRetries: 0,
    timeout: ctx.timeoutMs ?? CONNECTION_TEST_TIMEOUT_MS,
    fetch: nodeFetch, // the transport runs use, so the test proves what they will meet
  });
  const where = access.baseURL ?? 'the Anthropic API';
  const started = performance.now();
  try {
    await client.create({ model, max_tokens: 1, messages: [{ role: 'user', content: 'Reply with OK.' }] });
    const latency_ms = Math.round(performance.now() - started);
    return { ok: true, model, latency_ms, message: `Connected: ${model} answered through ${where}.` };
  } catch (e) {
    return {
      ok: false,
      model,
      ...describeFailure(sdk, e, model, where, describeBaseUrl(access.baseURL ?? ANTHROPIC_API_URL)),
    };
  }
}

function isLocalUrl(u: string): boolean {
  try {
    return isLocalOrWildcard(new URL(u).hostname);
  } catch {
    return false;
  }
}

function withoutStoredKeys(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { ANTHROPIC_API_KEY: _key, ANTHROPIC_AUTH_TOKEN: _token, ...rest } = env;
  return rest;
}

function describeFailure(
  sdk: typeof import('../llm/anthropicSdk.js'),
  e: unknown,
  model: string,
  where: string,
  url: string,
): { code: string; message: string } {
  const { APIConnectionError, APIConnectionTimeoutError, APIError } = sdk;
  if (e instanceof APIConnectionTimeoutError) return { code: 'timeout', message: `No answer from ${url} in time.` };
  if (e instanceof APIConnectionError) {
    // The SDK says only "Connection error.": the address and what the socket said are what help.
    const detail = causeDetail(e);
    return {
      code: 'unreachable',
      message: `Cannot reach ${url}${detail ? ` (${detail})` : ''}: is the server running, and is the address right?`,
    };
  }
  if (e instanceof APIError && typeof e.status === 'number') {
    const body = e.error as { error?: { message?: string; type?: string } } | undefined;
    const detail = body?.error?.message ?? e.message;
    if (e.status === 401 || e.status === 403)
      return { code: 'auth_failed', message: `The key was refused (HTTP ${e.status}): ${detail}` };
    if (e.status === 404)
      return { code: 'model_not_found', message: `${where} does not know the model "${model}" (HTTP 404): ${detail}` };
    if (e.status === 429) return { code: 'rate_limited', message: `Rate limited (HTTP 429): ${detail}` };
    return { code: 'api_error', message: `HTTP ${e.status}: ${detail}` };
  }
  return { code: 'internal', message: errorMessage(e) };
}
