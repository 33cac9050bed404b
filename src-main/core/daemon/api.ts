/**
 * The daemon's HTTP endpoints, one table. Each handler validates its input with the protocol schemas
 * and answers JSON (or SSE); refusals are thrown as HttpError. docs/daemon-api.md describes them for
 * people; keep the two in step.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { listAgents } from '../agents/index.js';
import { DEFAULT_AGENT } from '../config/paths.js';
import { bundledSkillsDir, loadSkills } from '../skills/index.js';
import { pendingApprovalJson } from './approvalDesk.js';
import type { DaemonContext } from './context.js';
import type { BusEntry } from './eventBus.js';
import { HttpError, errorBody, toHttpError } from './httpError.js';
import { parseJson, readBody, readJson, validate } from './httpBody.js';
import { sendJson } from './httpReply.js';
import { AGENT_NAME_PATTERN, ApprovalAnswerRequest, CancelRequest, MessageRequest, SOURCE_PATTERN, type MessageResult } from './protocol.js';
import type { RouteRun } from './runRouter.js';
import { keepAlive, sseFrame, startSse, writeSse } from './sse.js';
import { mapWebhookBody, secretOf, verifyWebhook } from './webhooks.js';
import { agentRoutes } from './agentsApi.js';
import { sessionRoutes } from './sessionsApi.js';
import { settingsRoutes } from './settingsApi.js';

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

export function apiRoutes(): Route[] {
  return [
    { method: 'GET', path: '/health', public: true, handler: health },
    { method: 'GET', path: '/status', handler: status },
    { method: 'POST', path: '/message', handler: postMessage },
    { method: 'POST', path: '/cancel', handler: postCancel },
    { method: 'POST', path: '/approval', handler: postApproval },
    { method: 'GET', path: '/approvals', handler: getApprovals },
    { method: 'GET', path: '/events', handler: getEvents },
    { method: 'POST', path: '/token/rotate', handler: rotateToken },
    { method: 'POST', path: '/shutdown', handler: shutdown },
    // The webhook proves itself with its per-source secret instead of the daemon token.
    { method: 'POST', path: '/hooks/{source}', public: true, handler: postHook },
    { method: 'GET', path: '/skills', handler: getSkills },
    { method: 'PUT', path: '/active-agent', handler: putActiveAgent },
    ...sessionRoutes(),
    ...agentRoutes(),
    ...settingsRoutes(),
  ];
}

/**
 * switchAgent: the agent the desktop and web UI talk to from now on. Every window and the tray follow
 * it through the `agent_changed` event; messages that name no agent still go to their own route.
 */
async function putActiveAgent(ctx: DaemonContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = await readJson(req, z.strictObject({ name: z.string().regex(AGENT_NAME_PATTERN, 'expected an agent name') }));
  if (body.name !== DEFAULT_AGENT && !(await listAgents(ctx.home)).includes(body.name)) {
    throw new HttpError(404, 'not_found', `no agent named "${body.name}"`);
  }
  ctx.activeAgent = body.name;
  ctx.bus.publish({ type: 'agent_changed', at: new Date().toISOString(), agent: body.name, change: 'activated' });
  sendJson(res, 200, { version: ctx.version, activeAgent: ctx.activeAgent });
}

async function health(ctx: DaemonContext, _req: IncomingMessage, res: ServerResponse): Promise<void> {
  sendJson(res, 200, { status: 'ok', version: ctx.version });
}

async function status(ctx: DaemonContext, _req: IncomingMessage, res: ServerResponse): Promise<void> {
  const running = ctx.router.running.map((r) => ({ route: r.key, agent: r.agent, session_id: r.sessionId ?? null, started_at: r.startedAt ?? null }));
  const queued = ctx.router.queued.map((r, i) => ({ route: r.key, agent: r.agent, position: i + 1 }));
  sendJson(res, 200, {
    version: ctx.version,
    pid: process.pid,
    started_at: ctx.startedAt.toISOString(),
    uptime_seconds: Math.round((Date.now() - ctx.startedAt.getTime()) / 1000),
    active_runs: running.length,
    runs: running,
    queued,
    pending_approvals: ctx.desk.size,
    clients: { ...ctx.clients },
    rss_bytes: process.memoryUsage.rss(),
    activeAgent: ctx.activeAgent,
    agents: ['default', ...(await listAgents(ctx.home))],
  });
}

/**
 * POST /message. With `Accept: text/event-stream` the run's events stream back and a last `result`
 * frame carries the same JSON a synchronous call gets; otherwise the call waits for that JSON.
 */
async function postMessage(ctx: DaemonContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const msg = await readJson(req, MessageRequest);
  await answerMessage(ctx, req, res, msg, 'http');
}

export async function answerMessage(ctx: DaemonContext, req: IncomingMessage, res: ServerResponse, msg: MessageRequest, defaultSource: string): Promise<void> {
  const streaming = /\btext\/event-stream\b/.test(req.headers.accept ?? '');
  if (!streaming) {
    const outcome = await ctx.router.submit(msg, { defaultSource });
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
  const outcome = await ctx.router.submit(msg, { listener, defaultSource });
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

const SkillsQuery = z.strictObject({ agent: z.string().regex(AGENT_NAME_PATTERN, 'expected an agent name').default(DEFAULT_AGENT) });

/** GET /skills?agent: the skills that agent may use (its own, attached global ones, bundled), with any problems. */
async function getSkills(ctx: DaemonContext, _req: IncomingMessage, res: ServerResponse, { query }: RouteArgs): Promise<void> {
  const q = validate(SkillsQuery, Object.fromEntries(query.entries()), 'query');
  const bundledDir = bundledSkillsDir();
  const loaded = await loadSkills({ home: ctx.home, agent: q.agent, ...(bundledDir ? { bundledDir } : {}) });
  sendJson(res, 200, {
    skills: loaded.skills.map((s) => ({ name: s.name, description: s.description, source: s.source })),
    problems: loaded.problems,
  });
}

async function postCancel(ctx: DaemonContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = await readJson(req, CancelRequest);
  const run: RouteRun | undefined = ctx.router.cancel(body);
  if (!run) throw new HttpError(404, 'not_running', 'no run in flight matches that route, session or agent');
  sendJson(res, 200, { cancelled: true, route: run.key, ...(run.sessionId ? { session_id: run.sessionId } : {}) });
}

async function postApproval(ctx: DaemonContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = await readJson(req, ApprovalAnswerRequest);
  const outcome = ctx.desk.answer(body.request_id, body.decision, 'daemon');
  if (!outcome.ok) throw new HttpError(outcome.status, outcome.code, outcome.message);
  sendJson(res, 200, { ok: true, request_id: body.request_id, decision: body.decision });
}

async function getApprovals(ctx: DaemonContext, _req: IncomingMessage, res: ServerResponse): Promise<void> {
  sendJson(res, 200, { approvals: ctx.desk.list() });
}

/** GET /events: the bus as SSE. `Last-Event-ID` replays what the client missed; pending approvals are re-sent. */
async function getEvents(ctx: DaemonContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const lastIdHeader = req.headers['last-event-id'];
  const lastId = Array.isArray(lastIdHeader) ? lastIdHeader[0] : lastIdHeader;
  startSse(res);
  writeSse(res, ': connected\n\n');
  const replayed = ctx.bus.since(lastId);
  for (const e of replayed) writeSse(res, sseFrame(e.event.type, e.json, e.id));
  for (const frame of pendingApprovalJson(ctx.desk, replayed)) writeSse(res, sseFrame('approval_request', frame));
  const unsubscribe = ctx.bus.subscribe((e) => writeSse(res, sseFrame(e.event.type, e.json, e.id)));
  const stopKeepAlive = keepAlive(res);
  const end = () => res.end();
  ctx.onTokenRotated.add(end);
  ctx.onShutdown.add(end);
  ctx.clients.events++;
  res.on('close', () => {
    unsubscribe();
    stopKeepAlive();
    ctx.onTokenRotated.delete(end);
    ctx.onShutdown.delete(end);
    ctx.clients.events--;
  });
}

async function rotateToken(ctx: DaemonContext, _req: IncomingMessage, res: ServerResponse): Promise<void> {
  const token = await ctx.rotateToken();
  sendJson(res, 200, { token });
  // After the answer: streams and sockets opened with the old token must authenticate again.
  setImmediate(() => {
    for (const close of [...ctx.onTokenRotated]) close();
  });
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
  const proof = verifyWebhook(cfg, secretOf(source, cfg, ctx.env), req.headers, raw);
  if (!proof.ok) throw new HttpError(proof.status, proof.code, proof.message);
  const mapped = mapWebhookBody(source, cfg, parseJson(raw));
  if (mapped === 'skip') {
    res.writeHead(204).end();
    return;
  }
  const msg = validate(MessageRequest, mapped, 'message');
  if (cfg.reply === 'accept') {
    const outcome = await ctx.router.submit(msg, { defaultSource: source });
    const route = outcome.injected ? outcome.result.route : outcome.run.key;
    sendJson(res, 202, { accepted: true, injected: outcome.injected, route });
    return;
  }
  await answerMessage(ctx, req, res, msg, source);
}
