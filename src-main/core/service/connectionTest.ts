/**
 * "Test connection" in the settings view: one Messages API request of at most one output token to the
 * model, base URL and key a run would use (or the ones being tried), answered as a result a person can
 * read. A failure is an answer (`ok: false` with what went wrong), not an error of the request.
 */
import Anthropic, { APIConnectionError, APIConnectionTimeoutError, APIError } from '@anthropic-ai/sdk';
import type { GlobalConfig } from '../config/schema.js';
import { errorMessage, isReinError } from '../errors.js';
import { nodeFetch } from '../llm/nodeFetch.js';
import { resolveModelAccess } from '../runtime/runtime.js';

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

export async function testModelConnection(
  input: ConnectionTestInput,
  ctx: { env: NodeJS.ProcessEnv; config: GlobalConfig; home: string; timeoutMs?: number },
): Promise<ConnectionTestResult> {
  const model = input.model ?? ctx.config.model;
  let access;
  try {
    access = resolveModelAccess(
      input.api_key ? { ...ctx.env, ANTHROPIC_API_KEY: input.api_key } : ctx.env,
      input.base_url ? { ...ctx.config, base_url: input.base_url } : ctx.config,
      ctx.home,
    );
  } catch (e) {
    return { ok: false, model, code: isReinError(e) ? e.code : 'internal', message: errorMessage(e) };
  }
  const client = new Anthropic({
    apiKey: access.apiKey,
    ...(access.baseURL ? { baseURL: access.baseURL } : {}),
    maxRetries: 0,
    timeout: ctx.timeoutMs ?? CONNECTION_TEST_TIMEOUT_MS,
    fetch: nodeFetch, // the transport runs use, so the test proves what they will meet
  });
  const where = access.baseURL ?? 'the Anthropic API';
  const started = performance.now();
  try {
    await client.messages.create({ model, max_tokens: 1, messages: [{ role: 'user', content: 'Reply with OK.' }] });
    const latency_ms = Math.round(performance.now() - started);
    return { ok: true, model, latency_ms, message: `Connected: ${model} answered through ${where}.` };
  } catch (e) {
    return { ok: false, model, ...describeFailure(e, model, where) };
  }
}

function describeFailure(e: unknown, model: string, where: string): { code: string; message: string } {
  if (e instanceof APIConnectionTimeoutError) return { code: 'timeout', message: `No answer from ${where} in time.` };
  if (e instanceof APIConnectionError) return { code: 'unreachable', message: `Cannot reach ${where}: ${e.message}` };
  if (e instanceof APIError && typeof e.status === 'number') {
    const body = e.error as { error?: { message?: string; type?: string } } | undefined;
    const detail = body?.error?.message ?? e.message;
    if (e.status === 401 || e.status === 403) return { code: 'auth_failed', message: `The key was refused (HTTP ${e.status}): ${detail}` };
    if (e.status === 404) return { code: 'model_not_found', message: `${where} does not know the model "${model}" (HTTP 404): ${detail}` };
    if (e.status === 429) return { code: 'rate_limited', message: `Rate limited (HTTP 429): ${detail}` };
    return { code: 'api_error', message: `HTTP ${e.status}: ${detail}` };
  }
  return { code: 'internal', message: errorMessage(e) };
}
