/**
 * The generic inbound webhook, `POST /hooks/{source}`: a relay (Slack, Telegram, a CI system…) posts
 * its own JSON; `<REIN_HOME>/webhooks.yaml` says where in that JSON the text, channel, thread and
 * sender are, and how the caller proves it is the relay. No code per service.
 *
 * ```yaml
 * sources:
 *   slack:
 *     auth: hmac                 # hmac: X-Rein-Signature: sha256=<hex HMAC-SHA256(secret, raw body)>
 *                                # header: X-Rein-Secret: <secret>
 *     secret_env: REIN_SLACK_HOOK_SECRET   # or `secret: "…"` in this file (keep it mode 0600)
 *     agent: ops                 # optional: a named agent
 *     reply: wait                # wait: answer with the result; accept: 202 at once
 *     map: { text: event.text, channel: event.channel, thread: event.thread_ts, sender: event.user }
 *     skip_if_present: [event.bot_id]      # answer 204 and do nothing (e.g. the bot's own messages)
 * ```
 * The file is re-read when it changes, so adding a source needs no restart.
 */
import { createHmac } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { errorMessage } from '../errors.js';
import { describeIssues } from '../util/zodIssues.js';
import { HttpError } from './httpError.js';
import type { MessageRequest } from '../api/protocol.js';
import { sameSecret } from './security.js';
import { AgentName, SourceName } from '../api/patterns.js';

export const WEBHOOKS_FILE = 'webhooks.yaml';
export const SIGNATURE_HEADER = 'x-rein-signature';
export const SECRET_HEADER = 'x-rein-secret';

/** `a.b[0].c` — dotted keys and list indices into the posted JSON. */
const JsonPath = z.string().regex(/^[A-Za-z0-9_$-]+(\[\d+\])*(\.[A-Za-z0-9_$-]+(\[\d+\])*)*$/, 'expected a path like event.text or items[0].id');

const WebhookSource = z
  .strictObject({
    auth: z.enum(['hmac', 'header']).default('hmac'),
    secret: z.string().min(16, 'use at least 16 characters').optional(),
    secret_env: z.string().regex(/^[A-Z_][A-Z0-9_]*$/, 'expected an environment variable name').optional(),
    agent: AgentName.optional(),
    reply: z.enum(['wait', 'accept']).default('wait'),
    map: z.strictObject({
      text: JsonPath,
      channel: JsonPath.optional(),
      thread: JsonPath.optional(),
      sender: JsonPath.optional(),
    }),
    skip_if_present: z.array(JsonPath).default([]),
  })
  .refine((s) => (s.secret === undefined) !== (s.secret_env === undefined), { path: ['secret'], message: 'give exactly one of secret or secret_env' });
export type WebhookSource = z.infer<typeof WebhookSource>;

export const WebhooksFile = z.strictObject({
  sources: z.record(SourceName, WebhookSource).default({}),
});
export type WebhooksFile = z.infer<typeof WebhooksFile>;

export class WebhookConfig {
  readonly file: string;
  #cache: { mtimeMs: number; size: number; value: WebhooksFile } | undefined;

  constructor(home: string) {
    this.file = join(home, WEBHOOKS_FILE);
  }

  /** The current file, re-read when it changed; an empty config when there is none. */
  async load(): Promise<WebhooksFile> {
    const info = await stat(this.file).catch(() => undefined);
    if (!info) return { sources: {} };
    if (this.#cache && this.#cache.mtimeMs === info.mtimeMs && this.#cache.size === info.size) return this.#cache.value;
    const value = parseWebhooksText(this.file, await readFile(this.file, 'utf8'));
    this.#cache = { mtimeMs: info.mtimeMs, size: info.size, value };
    return value;
  }
}

export function parseWebhooksText(file: string, text: string): WebhooksFile {
  let raw: unknown;
  try {
    raw = parseYaml(text) ?? {};
  } catch (e) {
    throw new HttpError(500, 'webhooks_config_invalid', `${file}: YAML syntax error: ${errorMessage(e).split('\n')[0]}`);
  }
  const parsed = WebhooksFile.safeParse(raw);
  if (!parsed.success) {
    const p = describeIssues(parsed.error.issues, raw)[0]!;
    throw new HttpError(500, 'webhooks_config_invalid', `${file}: ${p.field}: ${p.message}`, p.field);
  }
  return parsed.data;
}

/** The source's secret (from the file or the environment); a missing env variable is a config error. */
export function secretOf(source: string, cfg: WebhookSource, env: NodeJS.ProcessEnv): string {
  if (cfg.secret !== undefined) return cfg.secret;
  const v = env[cfg.secret_env!];
  if (!v || v.length < 16) {
    throw new HttpError(500, 'webhooks_config_invalid', `webhook source "${source}": environment variable ${cfg.secret_env} is unset or shorter than 16 characters`);
  }
  return v;
}

export function signBody(secret: string, body: Buffer | string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** Pure check of the caller's proof; the raw body bytes are what was signed. */
export function verifyWebhook(
  cfg: Pick<WebhookSource, 'auth'>,
  secret: string,
  headers: Record<string, string | string[] | undefined>,
  body: Buffer,
): { ok: true } | { ok: false; status: 401; code: string; message: string } {
  const h = (name: string) => {
    const v = headers[name];
    return Array.isArray(v) ? v[0] : v;
  };
  if (cfg.auth === 'header') {
    const got = h(SECRET_HEADER);
    if (!got) return { ok: false, status: 401, code: 'webhook_unauthorized', message: `missing ${SECRET_HEADER} header` };
    return sameSecret(secret, got) ? { ok: true } : { ok: false, status: 401, code: 'webhook_unauthorized', message: 'wrong webhook secret' };
  }
  const sig = h(SIGNATURE_HEADER);
  if (!sig) return { ok: false, status: 401, code: 'webhook_unauthorized', message: `missing ${SIGNATURE_HEADER} header (sha256=<hex HMAC of the body>)` };
  return sameSecret(signBody(secret, body), sig.trim().toLowerCase())
    ? { ok: true }
    : { ok: false, status: 401, code: 'webhook_unauthorized', message: 'webhook signature does not match the body' };
}

export function valueAt(root: unknown, path: string): unknown {
  let cur: unknown = root;
  for (const part of path.split('.')) {
    const m = /^([^[]+)((?:\[\d+\])*)$/.exec(part);
    if (!m) return undefined;
    cur = cur !== null && typeof cur === 'object' && !Array.isArray(cur) ? (cur as Record<string, unknown>)[m[1]!] : undefined;
    for (const idx of m[2]!.match(/\d+/g) ?? []) cur = Array.isArray(cur) ? cur[Number(idx)] : undefined;
    if (cur === undefined) return undefined;
  }
  return cur;
}

/**
 * The message the posted JSON maps to, or `skip` when a skip path is present. Every mapped field must
 * be a string or a number; a missing optional field is just absent.
 */
export function mapWebhookBody(source: string, cfg: WebhookSource, body: unknown): MessageRequest | 'skip' {
  for (const p of cfg.skip_if_present) {
    const v = valueAt(body, p);
    if (v !== undefined && v !== null && v !== '') return 'skip';
  }
  const pick = (field: keyof WebhookSource['map'], required: boolean): string | undefined => {
    const path = cfg.map[field];
    if (!path) return undefined;
    const v = valueAt(body, path);
    if (v === undefined || v === null || v === '') {
      if (required) throw new HttpError(400, 'invalid_request', `body.${path} (mapped to ${field}): missing`, path);
      return undefined;
    }
    if (typeof v !== 'string' && typeof v !== 'number') {
      throw new HttpError(400, 'invalid_request', `body.${path} (mapped to ${field}): expected a string or number`, path);
    }
    return String(v);
  };
  const text = pick('text', true)!;
  const channel = pick('channel', false);
  const thread = pick('thread', false);
  const sender = pick('sender', false);
  return {
    text,
    source,
    ...(cfg.agent ? { agent: cfg.agent } : {}),
    ...(channel ? { channel } : {}),
    ...(channel && thread ? { thread_id: thread } : {}),
    ...(sender ? { sender } : {}),
  };
}
