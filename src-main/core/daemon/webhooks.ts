/**
 * The generic inbound webhook, `POST /hooks/{source}`: a relay (Slack, Telegram, a CI system…) posts
 * its own JSON; `<REIN_HOME>/webhooks.yaml` says where in that JSON the text, channel, thread and
 * sender are, and how the caller proves it is the relay. No code per service.
 *
 * ```yaml
 * sources:
 *   slack:
 *     auth: hmac                 # hmac: X-Rein-Timestamp: <unix seconds> and
 *                                #   X-Rein-Signature: sha256=<hex HMAC-SHA256(secret, "<timestamp>.<raw body>")>
 *                                # header: X-Rein-Secret: <secret>
 *     secret_env: REIN_SLACK_HOOK_SECRET   # or `secret: "…"` in this file (keep it mode 0600)
 *     agent: ops                 # optional: a named agent
 *     reply: wait                # wait: answer with the result; accept: 202 at once
 *     map: { text: event.text, channel: event.channel, thread: event.thread_ts, sender: event.user }
 *     skip_if_present: [event.bot_id]      # answer 204 and do nothing (e.g. the bot's own messages)
 * ```
 * The file is re-read when it changes, so adding a source needs no restart.
 *
 * Replays: an `hmac` request is accepted only while its signed timestamp is within 5 minutes of the
 * daemon's clock, and only once: the signature of every accepted request is remembered until its
 * timestamp leaves the window (ReplayGuard), so the same signed request a second time is 409
 * `webhook_replayed`. A shared secret (`auth: header`) proves nothing about the request it rides on
 * and cannot be protected that way; docs/daemon-api.md says so.
 */
import { createHmac } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { configTooLarge, yamlDocToJs } from '../config/yamlLimits.js';
import { z } from 'zod';
import { errorMessage } from '../errors.js';
import { describeIssues } from '../util/zodIssues.js';
import { HttpError } from './httpError.js';
import type { MessageRequest } from '../api/protocol.js';
import { sameSecret } from './security.js';
import { AgentName, SourceName } from '../api/patterns.js';

export const WEBHOOKS_FILE = 'webhooks.yaml';
export const SIGNATURE_HEADER = 'x-rein-signature';
export const TIMESTAMP_HEADER = 'x-rein-timestamp';
export const SECRET_HEADER = 'x-rein-secret';
/** How far a signed timestamp may be from the daemon's clock, either way. */
export const REPLAY_WINDOW_SECONDS = 300;
/** Signatures remembered at most; the oldest is forgotten first beyond it. */
export const REPLAY_CACHE_MAX = 10_000;

/** `a.b[0].c` — dotted keys and list indices into the posted JSON. */
const JsonPath = z
  .string()
  .regex(/^[A-Za-z0-9_$-]+(\[\d+\])*(\.[A-Za-z0-9_$-]+(\[\d+\])*)*$/, 'expected a path like event.text or items[0].id');

const WebhookSource = z
  .strictObject({
    auth: z.enum(['hmac', 'header']).default('hmac'),
    secret: z.string().min(16, 'use at least 16 characters').optional(),
    secret_env: z
      .string()
      .regex(/^[A-Z_][A-Z0-9_]*$/, 'expected an environment variable name')
      .optional(),
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
  .refine((s) => (s.secret === undefined) !== (s.secret_env === undefined), {
    path: ['secret'],
    message: 'give exactly one of secret or secret_env',
  });
export type WebhookSource = z.infer<typeof WebhookSource>;

export const WebhooksFile = z.strictObject({
  sources: z.record(SourceName, WebhookSource).default({}),
});
export type WebhooksFile = z.infer<typeof WebhooksFile>;

export class WebhookConfig {
  readonly file: string;
  /** The signatures of accepted requests, while their timestamps are in the window. */
  readonly replays = new ReplayGuard();
  #cache: { mtimeMs: number; size: number; value: WebhooksFile } | undefined;

  constructor(home: string) {
    this.file = join(home, WEBHOOKS_FILE);
  }

  /**
   * The current file, re-read when it changed; an empty config when there is none. Errors name the
   * file as `webhooks.yaml`, never by its path: they go to callers who have not proved anything yet.
   */
  async load(): Promise<WebhooksFile> {
    const info = await stat(this.file).catch(() => undefined);
    if (!info) return { sources: {} };
    if (this.#cache && this.#cache.mtimeMs === info.mtimeMs && this.#cache.size === info.size) return this.#cache.value;
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (e) {
      throw new HttpError(
        500,
        'webhooks_config_invalid',
        `${WEBHOOKS_FILE}: cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'})`,
      );
    }
    const value = parseWebhooksText(WEBHOOKS_FILE, text);
    this.#cache = { mtimeMs: info.mtimeMs, size: info.size, value };
    return value;
  }
}

export function parseWebhooksText(file: string, text: string): WebhooksFile {
  const tooLarge = configTooLarge(text);
  if (tooLarge) throw new HttpError(500, 'webhooks_config_invalid', `${file}: ${tooLarge}`);
  const doc = parseDocument(text, { prettyErrors: false });
  if (doc.errors.length > 0) {
    throw new HttpError(
      500,
      'webhooks_config_invalid',
      `${file}: YAML syntax error: ${errorMessage(doc.errors[0]).split('\n')[0]}`,
    );
  }
  const js = yamlDocToJs(doc);
  if (!js.ok) throw new HttpError(500, 'webhooks_config_invalid', `${file}: ${js.message}`);
  const raw = js.value ?? {};
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
    throw new HttpError(
      500,
      'webhooks_config_invalid',
      `webhook source "${source}": environment variable ${cfg.secret_env} is unset or shorter than 16 characters`,
    );
  }
  return v;
}

/**
 * The `X-Rein-Signature` value for a body sent at `timestamp` (unix seconds): `sha256=` and the hex
 * HMAC-SHA256, keyed with the secret, of the timestamp's decimal digits, a `.`, and the raw body bytes.
 */
export function signBody(secret: string, body: Buffer | string, timestamp: number | string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex')}`;
}

/** The two headers an `hmac` relay sends with `body`, signed now (what a relay must do, as code). */
export function signedHeaders(secret: string, body: Buffer | string, nowMs = Date.now()): Record<string, string> {
  const timestamp = Math.floor(nowMs / 1000);
  return { [TIMESTAMP_HEADER]: String(timestamp), [SIGNATURE_HEADER]: signBody(secret, body, timestamp) };
}

export type WebhookProof =
  /** `replayKey`: what the replay guard remembers until `expiresAtMs` (signed requests only). */
  { ok: true; replayKey?: string; expiresAtMs?: number } | { ok: false; status: 401; code: string; message: string };

/** Pure check of the caller's proof; the raw body bytes and the timestamp header are what was signed. */
export function verifyWebhook(
  cfg: Pick<WebhookSource, 'auth'>,
  secret: string,
  headers: Record<string, string | string[] | undefined>,
  body: Buffer,
  nowMs = Date.now(),
): WebhookProof {
  const refuse = (message: string, code = 'webhook_unauthorized'): WebhookProof => ({
    ok: false,
    status: 401,
    code,
    message,
  });
  const h = (name: string) => {
    const v = headers[name];
    return Array.isArray(v) ? v[0] : v;
  };
  if (cfg.auth === 'header') {
    const got = h(SECRET_HEADER);
    if (!got) return refuse(`missing ${SECRET_HEADER} header`);
    return sameSecret(secret, got) ? { ok: true } : refuse('wrong webhook secret');
  }
  const sig = h(SIGNATURE_HEADER);
  if (!sig) return refuse(`missing ${SIGNATURE_HEADER} header (sha256=<hex HMAC of "<timestamp>.<body>">)`);
  const stamp = h(TIMESTAMP_HEADER)?.trim();
  if (!stamp) return refuse(`missing ${TIMESTAMP_HEADER} header (the unix time in seconds, signed with the body)`);
  if (!/^\d{1,12}$/.test(stamp)) return refuse(`${TIMESTAMP_HEADER} must be the unix time in whole seconds`);
  const signature = sig.trim().toLowerCase();
  if (!sameSecret(signBody(secret, body, stamp), signature))
    return refuse(`webhook signature does not match the timestamp and body`);
  // Checked after the signature, so only the relay learns about its clock.
  const skew = nowMs / 1000 - Number(stamp);
  if (Math.abs(skew) > REPLAY_WINDOW_SECONDS) {
    return refuse(
      `${TIMESTAMP_HEADER} is ${Math.round(Math.abs(skew))} s ${skew > 0 ? 'old' : 'in the future'}; a signed request is accepted for ${REPLAY_WINDOW_SECONDS} s (check the relay's clock)`,
      'webhook_replayed',
    );
  }
  // Remembered a second past the end of the window, so no rounding lets a replay through at its edge.
  return { ok: true, replayKey: signature, expiresAtMs: (Number(stamp) + REPLAY_WINDOW_SECONDS + 1) * 1000 };
}

/**
 * Remembers what was accepted until it expires, so a second delivery of the same signed request is
 * recognised. Bounded: beyond REPLAY_CACHE_MAX entries the expired ones go, then the oldest.
 */
export class ReplayGuard {
  readonly #seen = new Map<string, number>();
  constructor(readonly max = REPLAY_CACHE_MAX) {}

  /** True the first time `key` is claimed (before `expiresAtMs`); false for a replay. */
  claim(key: string, expiresAtMs: number, nowMs = Date.now()): boolean {
    const known = this.#seen.get(key);
    if (known !== undefined && known > nowMs) return false;
    if (known !== undefined) this.#seen.delete(key);
    if (this.#seen.size >= this.max) {
      for (const [k, exp] of this.#seen) if (exp <= nowMs) this.#seen.delete(k);
      while (this.#seen.size >= this.max) this.#seen.delete(this.#seen.keys().next().value!);
    }
    this.#seen.set(key, expiresAtMs);
    return true;
  }

  get size(): number {
    return this.#seen.size;
  }
}

export function valueAt(root: unknown, path: string): unknown {
  let cur: unknown = root;
  for (const part of path.split('.')) {
    const m = /^([^[]+)((?:\[\d+\])*)$/.exec(part);
    if (!m) return undefined;
    // Own keys only: `constructor` or `__proto__` in a path must not reach into Object.prototype.
    cur =
      cur !== null && typeof cur === 'object' && !Array.isArray(cur) && Object.hasOwn(cur, m[1]!)
        ? (cur as Record<string, unknown>)[m[1]!]
        : undefined;
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
      throw new HttpError(
        400,
        'invalid_request',
        `body.${path} (mapped to ${field}): expected a string or number`,
        path,
      );
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
