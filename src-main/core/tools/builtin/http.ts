/** `http`: one GET or POST request, with the egress policy asked first. */
import { callSummaryOf } from '../../api/toolSummary.js';
import { z } from 'zod';
import { errorResult, okResult, type Tool } from '../tool.js';
import { groupDigits } from '../../util/groupDigits.js';
import { HTTP_TRAITS } from './builtinTraits.js';

export const HTTP_DEFAULT_TIMEOUT_S = 30;
export const HTTP_MAX_TIMEOUT_S = 300;
export const HTTP_BODY_LIMIT_BYTES = 10_240;

const input = z.strictObject({
  url: z.string().min(1).describe('Full http:// or https:// URL.'),
  method: z.enum(['GET', 'POST']).optional().describe('GET (default) or POST.'),
  headers: z
    .record(z.string(), z.string())
    .optional()
    .describe('Request headers, e.g. {"Accept": "application/json"}.'),
  body: z.string().optional().describe('Request body (POST only), e.g. a JSON string; set Content-Type in headers.'),
  timeout: z
    .number()
    .positive()
    .optional()
    .describe(`Seconds to wait for the response (default ${HTTP_DEFAULT_TIMEOUT_S}, max ${HTTP_MAX_TIMEOUT_S}).`),
});
export type HttpInput = z.infer<typeof input>;

export const httpTool: Tool<HttpInput> = {
  name: 'http',
  traits: HTTP_TRAITS,
  source: 'local',
  description: [
    'Send one HTTP GET or POST request and return the status line, the response headers and the body',
    `(cut at ${groupDigits(HTTP_BODY_LIMIT_BYTES)} bytes). Redirects are not followed: a 3xx answer is returned with its Location header,`,
    'request that URL next if you want it. Good for APIs and small pages; requests to hosts that are not allowed are refused.',
  ].join(' '),
  input,
  isReadOnly: (i) => (i.method ?? 'GET') === 'GET',
  isDestructive: () => false,
  summarize: (i) => callSummaryOf('http', i),

  async call(i, ctx, signal) {
    const method = i.method ?? 'GET';
    if (method !== 'GET' && method !== 'POST')
      return errorResult('validation', `method must be GET or POST, not ${String(method)}`);
    let url: URL;
    try {
      url = new URL(i.url);
    } catch {
      return errorResult('validation', `url ${JSON.stringify(i.url)} is not a valid URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      return errorResult('validation', `only http and https URLs are supported, not ${url.protocol}`);
    }
    if (method === 'GET' && i.body !== undefined && i.body !== '') {
      return errorResult('validation', 'a GET request cannot carry a body; use POST');
    }

    let headers: Headers;
    try {
      headers = new Headers(i.headers);
    } catch (e) {
      return errorResult('validation', `headers: ${e instanceof Error ? e.message : String(e)}`);
    }

    const verdict = await ctx.egress(url, method);
    if (!verdict.allowed) return errorResult('permission', `request to ${url.host} is not allowed: ${verdict.reason}`);

    const notes: string[] = [];
    let timeoutS = i.timeout ?? HTTP_DEFAULT_TIMEOUT_S;
    if (timeoutS > HTTP_MAX_TIMEOUT_S) {
      notes.push(`(timeout ${timeoutS} s is above the ${HTTP_MAX_TIMEOUT_S} s maximum; used ${HTTP_MAX_TIMEOUT_S} s)`);
      timeoutS = HTTP_MAX_TIMEOUT_S;
    }

    // One controller for both ends: the caller cancelling and our own timeout. The timer covers the body too.
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(
      () => {
        timedOut = true;
        controller.abort();
      },
      Math.round(timeoutS * 1000),
    );
    const onAbort = (): void => controller.abort();
    if (signal.aborted) controller.abort();
    else signal.addEventListener('abort', onAbort, { once: true });

    try {
      const res = await fetch(url, {
        method,
        headers,
        body: method === 'POST' ? (i.body ?? '') : undefined,
        // A redirect could lead to a host the egress policy never saw.
        redirect: 'manual',
        signal: controller.signal,
      });
      const head = [`HTTP ${res.status} ${res.statusText}`.trimEnd()];
      for (const [name, value] of res.headers) head.push(`${name}: ${value}`);
      const body = await readCappedBody(res);
      return okResult([...notes, head.join('\n'), '', body].join('\n'));
    } catch (e) {
      if (timedOut) return errorResult('transient', `request to ${url.host} timed out after ${timeoutS} s`);
      if (signal.aborted) return errorResult('transient', 'request was cancelled');
      return errorResult('transient', `request to ${url.host} failed: ${transportMessage(e)}`);
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    }
  },
};

/** Reads at most the body limit, then stops the download. */
async function readCappedBody(res: Response): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  let cut = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const room = HTTP_BODY_LIMIT_BYTES - bytes;
    if (value.byteLength > room) {
      chunks.push(value.subarray(0, room));
      bytes += room;
      cut = true;
      await reader.cancel();
      break;
    }
    chunks.push(value);
    bytes += value.byteLength;
  }
  const buf = Buffer.concat(chunks);
  const type = res.headers.get('content-type') ?? 'unknown type';
  if (buf.includes(0)) return `(binary body of ${type}; ${cut ? 'more than ' : ''}${bytes} bytes, not shown)`;
  // stream: true holds back a character split by the cut instead of printing a replacement mark.
  let text = new TextDecoder('utf-8').decode(buf, { stream: cut });
  if (cut) {
    const declared = res.headers.get('content-length');
    const total = declared ? ` of ${declared}` : '';
    text += `\n\n... (body cut at ${HTTP_BODY_LIMIT_BYTES} bytes${total})`;
  }
  return text;
}

function transportMessage(e: unknown): string {
  const cause = (e as { cause?: unknown }).cause;
  if (cause && typeof cause === 'object') {
    const c = cause as { code?: string; message?: string };
    if (c.code && c.message) return `${c.code}: ${c.message}`;
    if (c.message) return c.message;
  }
  return e instanceof Error ? e.message : String(e);
}
