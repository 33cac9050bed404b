/**
 * The daemon's HTTP endpoints, one table. Each handler turns a request into a call of the service
 * (core/service) — its body and query checked against the contract's schemas (core/api) — and the
 * answer into JSON (or SSE). The service's ReinErrors become HTTP statuses in one table (httpError.ts).
 * docs/daemon-api.md describes the endpoints for people; keep the two in step.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { MessageRequest, type MessageResult } from '../api/protocol.js';
import { AgentName, SOURCE_PATTERN } from '../api/patterns.js';
import { reinOperations } from '../api/reinApi.js';
import { runRequestFromMessage, type EntryPoint, type RunRequest } from '../runtime/runRequest.js';
import type { BusEntry } from '../service/eventBus.js';
import { pendingApprovalJson } from '../service/approvalDesk.js';
import type { DaemonContext } from './context.js';
import { HttpError, errorBody, toHttpError } from './httpError.js';
import { parseJson, readBody, readBodyJson, snakeCaseBody, validate } from './httpBody.js';
import { sendJson } from './httpReply.js';
import { keepAlive, sseFrame, startSse, writeSse } from './sse.js';
import { mapWebhookBody, secretOf, verifyWebhook } from './webhooks.js';

export interface RouteArgs {
  params: Record<string, string>;
  query: URLSearchParams;
}

export interface Route {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Literal segments and `{param}` segments. */
  path: string;
  /** No token needed (Host and Origin still checked). */
  public?: boolean;
  handler(ctx: DaemonContext, req: IncomingMessage, res: ServerResponse, args: RouteArgs): Promise<void>;
}

type Handler = Route['handler'];

/** A handler that answers 200 (or `status`) with whatever `fn` returns. */
const json =
  (fn: (ctx: DaemonContext, req: IncomingMessage, args: RouteArgs) => Promise<unknown> | unknown, status = 200): Handler =>
  async (ctx, req, res, args) =>
    sendJson(res, status, await fn(ctx, req, args));

/** The body checked against an operation's input schema (camelCase names accepted for one release). */
const body = async <K extends keyof typeof reinOperations>(req: IncomingMessage, op: K): Promise<z.output<(typeof reinOperations)[K]['input']>> =>
  validate(reinOperations[op].input, await readBodyJson(req)) as z.output<(typeof reinOperations)[K]['input']>;

/** The query string as an operation's input: `limit` as a number, nothing else. */
function queryInput<K extends keyof typeof reinOperations>(op: K, query: URLSearchParams, extra: Record<string, unknown> = {}): z.output<(typeof reinOperations)[K]['input']> {
  const raw: Record<string, unknown> = { ...Object.fromEntries(query.entries()), ...extra };
  if (typeof raw.limit === 'string' && /^\d+$/.test(raw.limit)) raw.limit = Number(raw.limit);
  return validate(reinOperations[op].input, snakeCaseBody(raw), 'query') as z.output<(typeof reinOperations)[K]['input']>;
}

const pathName = (params: Record<string, string>) => validate(AgentName, params.name, 'path.name');

export function apiRoutes(): Route[] {
  return [
    { method: 'GET', path: '/health', public: true, handler: json((ctx) => ({ status: 'ok', version: ctx.service.version })) },
    { method: 'GET', path: '/status', handler: json((ctx) => ctx.service.status()) },
    { method: 'POST', path: '/message', handler: postMessage },
    { method: 'POST', path: '/cancel', handler: json(async (ctx, req) => ctx.service.cancel(await body(req, 'cancel'))) },
    { method: 'POST', path: '/approval', handler: json(async (ctx, req) => ctx.service.answerApproval(await body(req, 'answerApproval'), 'daemon')) },
    { method: 'GET', path: '/approvals', handler: json((ctx) => ctx.service.listApprovals()) },
    { method: 'GET', path: '/events', handler: getEvents },
    { method: 'POST', path: '/token/rotate', handler: rotateToken },
    { method: 'POST', path: '/shutdown', handler: shutdown },
    // The webhook proves itself with its per-source secret instead of the daemon token.
    { method: 'POST', path: '/hooks/{source}', public: true, handler: postHook },
    { method: 'GET', path: '/skills', handler: json((ctx, _req, { query }) => ctx.service.listSkills(queryInput('listSkills', query))) },
    { method: 'PUT', path: '/active-agent', handler: json(async (ctx, req) => ctx.service.switchAgent(await body(req, 'switchAgent'))) },
    // Sessions: `/sessions/search` before `/sessions/{id}`.
    { method: 'GET', path: '/sessions', handler: json((ctx, _req, { query }) => ctx.service.listSessions(queryInput('listSessions', query))) },
    { method: 'GET', path: '/sessions/search', handler: json((ctx, _req, { query }) => ctx.service.searchSessions(queryInput('searchSessions', query))) },
    {
      method: 'GET',
      path: '/sessions/{id}',
      handler: json((ctx, _req, { params, query }) => ctx.service.getSession(queryInput('getSession', query, { id: params.id }))),
    },
    // Agents.
    { method: 'GET', path: '/agents', handler: json((ctx) => ctx.service.listAgents()) },
    { method: 'POST', path: '/agents', handler: json(async (ctx, req) => ctx.service.createAgent(await body(req, 'createAgent')), 201) },
    { method: 'GET', path: '/agents/{name}', handler: json((ctx, _req, { params }) => ctx.service.getAgent({ name: pathName(params) })) },
    { method: 'PUT', path: '/agents/{name}', handler: json(async (ctx, req, { params }) => ctx.service.saveAgent(await agentUpdate(req, pathName(params)))) },
    { method: 'DELETE', path: '/agents/{name}', handler: json((ctx, _req, { params }) => ctx.service.deleteAgent({ name: pathName(params) })) },
    // Settings.
    { method: 'GET', path: '/settings', handler: json((ctx) => ctx.service.getSettings()) },
    { method: 'PUT', path: '/settings', handler: json(async (ctx, req) => ctx.service.saveSettings(await body(req, 'saveSettings'))) },
    { method: 'POST', path: '/settings/test', handler: json(async (ctx, req) => ctx.service.testConnection(await body(req, 'testConnection'))) },
  ];
}

/** PUT /agents/{name}: the name comes from the path, the changes from the body. */
async function agentUpdate(req: IncomingMessage, name: string) {
  const raw = await readBodyJson(req);
  if (raw && typeof raw === 'object' && !Array.isArray(raw) && 'name' in raw) {
    throw new HttpError(400, 'invalid_request', 'body.name: the agent is named by the path; renaming is not supported', 'name');
  }
  return validate(reinOperations.saveAgent.input, { ...(raw as object), name });
}

/**
 * POST /message. With `Accept: text/event-stream` the run's events stream back and a last `result`
 * frame carries the same JSON a synchronous call gets; otherwise the call waits for that JSON.
 */
async function postMessage(ctx: DaemonContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const msg = validate(MessageRequest, await readBodyJson(req));
  await answerMessage(ctx, req, res, runRequestFromMessage(msg, 'http', 'http'));
}

export async function answerMessage(ctx: DaemonContext, req: IncomingMessage, res: ServerResponse, request: RunRequest): Promise<void> {
  const streaming = /\btext\/event-stream\b/.test(req.headers.accept ?? '');
  if (!streaming) {
    const outcome = await ctx.service.submit(request);
    const result = outcome.injected ? outcome.result : await outcome.run.done;
    sendJson(res, 200, result);
    return;
  }
  let started = false;
  const ensureStarted = () => {
    if (started) return;
    started = true;
    startSse(res);
  };
  const listener = (entry: BusEntry) => {
    ensureStarted();
    writeSse(res, sseFrame(entry.event.type, entry.json));
  };
  // Errors before the run exists (bad agent, shutting down) are plain JSON errors: nothing streamed yet.
  const outcome = await ctx.service.submit(request, { listener });
  ensureStarted();
  const stopKeepAlive = keepAlive(res);
  try {
    const result: MessageResult = outcome.injected ? outcome.result : await outcome.run.done;
    writeSse(res, sseFrame('result', JSON.stringify(result)));
  } catch (err) {
    writeSse(res, sseFrame('error', JSON.stringify(errorBody(toHttpError(err)))));
  } finally {
    stopKeepAlive();
    res.end();
  }
}

/** GET /events: the bus as SSE. `Last-Event-ID` replays what the client missed; pending approvals are re-sent. */
async function getEvents(ctx: DaemonContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const lastIdHeader = req.headers['last-event-id'];
  const lastId = Array.isArray(lastIdHeader) ? lastIdHeader[0] : lastIdHeader;
  const service = ctx.service;
  startSse(res);
  writeSse(res, ': connected\n\n');
  const replayed = service.bus.since(lastId);
  for (const e of replayed) writeSse(res, sseFrame(e.event.type, e.json, e.id));
  for (const frame of pendingApprovalJson(service.desk, replayed)) writeSse(res, sseFrame('approval_request', frame));
  const subscription = service.subscribe((e) => writeSse(res, sseFrame(e.event.type, e.json, e.id)));
  const stopKeepAlive = keepAlive(res);
  const end = () => res.end();
  const onRotate = ctx.tokenRotated.event(end);
  const onShutdown = ctx.shuttingDown.event(end);
  // A stream that asks for approvals' events is a client that can answer them (a page, a relay).
  const client = service.attachClient('events');
  res.on('close', () => {
    subscription.dispose();
    stopKeepAlive();
    onRotate.dispose();
    onShutdown.dispose();
    client.dispose();
  });
}

async function rotateToken(ctx: DaemonContext, _req: IncomingMessage, res: ServerResponse): Promise<void> {
  const token = await ctx.rotateToken();
  sendJson(res, 200, { token });
  // After the answer: streams and sockets opened with the old token must authenticate again.
  setImmediate(() => ctx.tokenRotated.fire());
}

async function shutdown(ctx: DaemonContext, _req: IncomingMessage, res: ServerResponse): Promise<void> {
  sendJson(res, 202, { status: 'shutting_down' });
  ctx.requestShutdown();
}

async function postHook(ctx: DaemonContext, req: IncomingMessage, res: ServerResponse, { params }: RouteArgs): Promise<void> {
  const source = params.source!;
  if (!SOURCE_PATTERN.test(source)) throw new HttpError(404, 'webhook_unknown_source', `no webhook source "${source}"`);
  const config = await ctx.webhooks.load();
  const cfg = config.sources[source];
  if (!cfg) {
    req.resume();
    throw new HttpError(404, 'webhook_unknown_source', `no webhook source "${source}" in ${ctx.webhooks.file}`);
  }
  const raw = await readBody(req);
  const proof = verifyWebhook(cfg, secretOf(source, cfg, ctx.service.env), req.headers, raw);
  if (!proof.ok) throw new HttpError(proof.status, proof.code, proof.message);
  const mapped = mapWebhookBody(source, cfg, parseJson(raw));
  if (mapped === 'skip') {
    res.writeHead(204).end();
    return;
  }
  const msg = validate(MessageRequest, mapped, 'message');
  const request = runRequestFromMessage(msg, 'webhook' satisfies EntryPoint, source);
  if (cfg.reply === 'accept') {
    const outcome = await ctx.service.submit(request);
    const route = outcome.injected ? outcome.result.route : outcome.run.key;
    sendJson(res, 202, { accepted: true, injected: outcome.injected, route });
    return;
  }
  await answerMessage(ctx, req, res, request);
}
