/**
 * The daemon's HTTP endpoints, one table. Each handler turns a request into a call of the service
 * (core/service) — its body and query checked against the contract's schemas (core/api) — and the
 * answer into JSON (or SSE). The service's ReinErrors become HTTP statuses in one table (httpError.ts).
 * docs/daemon-api.md describes the endpoints for people; keep the two in step.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { MessageRequest, type MessageResult } from '../api/protocol.js';
import { AgentName, ApprovalId, ChangeId, SOURCE_PATTERN } from '../api/patterns.js';
import { ApprovalRequest } from '../api/events.js';
import { reinOperations } from '../api/reinApi.js';
import { DEFAULT_AGENT } from '../config/paths.js';
import { runRequestFromMessage, type EntryPoint, type RunRequest } from '../runtime/runRequest.js';
import type { BusEntry } from '../service/eventBus.js';
import { isLoopbackHost } from '../util/loopback.js';
import { CONFIRM_HEADER } from './confirmSecret.js';
import type { DaemonContext } from './context.js';
import { HttpError, errorBody, toHttpError } from './httpError.js';
import { parseJson, readBody, readBodyJson, snakeCaseBody, validate } from './httpBody.js';
import { sendJson } from './httpReply.js';
import { sameSecret } from './security.js';
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
  (
    fn: (ctx: DaemonContext, req: IncomingMessage, args: RouteArgs) => Promise<unknown> | unknown,
    status = 200,
  ): Handler =>
  async (ctx, req, res, args) =>
    sendJson(res, status, await fn(ctx, req, args));

/** The body checked against an operation's input schema (camelCase names accepted for one release). */
const body = async <K extends keyof typeof reinOperations>(
  req: IncomingMessage,
  op: K,
): Promise<z.output<(typeof reinOperations)[K]['input']>> =>
  validate(reinOperations[op].input, await readBodyJson(req)) as z.output<(typeof reinOperations)[K]['input']>;

/** The query string as an operation's input: `limit` as a number, nothing else. */
function queryInput<K extends keyof typeof reinOperations>(
  op: K,
  query: URLSearchParams,
  extra: Record<string, unknown> = {},
): z.output<(typeof reinOperations)[K]['input']> {
  const raw: Record<string, unknown> = { ...Object.fromEntries(query.entries()), ...extra };
  if (typeof raw.limit === 'string' && /^\d+$/.test(raw.limit)) raw.limit = Number(raw.limit);
  return validate(reinOperations[op].input, snakeCaseBody(raw), 'query') as z.output<
    (typeof reinOperations)[K]['input']
  >;
}

const pathName = (params: Record<string, string>) => validate(AgentName, params.name, 'path.name');

/** GET /mcp/servers: `agent` is the one key, and must be an agent name. */
function mcpServersQuery(query: URLSearchParams): { agent?: string } {
  const raw = snakeCaseBody(Object.fromEntries(query.entries())) as Record<string, unknown>;
  return validate(z.strictObject({ agent: AgentName.optional() }), raw, 'query');
}

/** POST /mcp/servers/{name}/…: the server from the path, the agent from the body (`{agent?}`; an empty body is the built-in agent). */
async function mcpServerTarget(
  req: IncomingMessage,
  op: 'mcpLogin' | 'mcpReconnect',
  params: Record<string, string>,
): Promise<{ agent?: string; name: string }> {
  const raw = await readBody(req);
  const parsed = raw.length === 0 ? {} : snakeCaseBody(parseJson(raw));
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new HttpError(400, 'invalid_request', 'body: expected a JSON object ({"agent": NAME})');
  if ('name' in parsed)
    throw new HttpError(400, 'invalid_request', 'body.name: the server is named by the path', 'name');
  return validate(reinOperations[op].input, { ...parsed, name: params.name });
}

/** `status` with what `fn` returns, or 202 when it is a change left for a person to confirm (ChangePending). */
const changeOrPending =
  (fn: (ctx: DaemonContext, req: IncomingMessage, args: RouteArgs) => Promise<unknown>, status = 200): Handler =>
  async (ctx, req, res, args) => {
    const result = await fn(ctx, req, args);
    const pending = !!result && typeof result === 'object' && (result as { pending?: unknown }).pending === true;
    sendJson(res, pending ? 202 : status, result);
  };

export function apiRoutes(): Route[] {
  return [
    {
      method: 'GET',
      path: '/health',
      public: true,
      handler: json((ctx) => ({ status: 'ok', version: ctx.service.version })),
    },
    { method: 'GET', path: '/status', handler: json((ctx) => ctx.service.status()) },
    { method: 'POST', path: '/message', handler: postMessage },
    {
      method: 'POST',
      path: '/cancel',
      handler: json(async (ctx, req) => ctx.service.cancel(await body(req, 'cancel'))),
    },
    {
      method: 'POST',
      path: '/approval',
      handler: json(async (ctx, req) => ctx.service.answerApproval(await body(req, 'answerApproval'), 'daemon')),
    },
    { method: 'GET', path: '/approvals', handler: json((ctx) => ctx.service.listApprovals()) },
    // MCP servers per agent (state, tools, last error, sign-in); ?agent=NAME for one agent.
    {
      method: 'GET',
      path: '/mcp/servers',
      handler: json((ctx, _req, { query }) => ctx.service.mcpServers(mcpServersQuery(query))),
    },
    // A person in the web page signs in to an http server: its page opens in the browser of the machine the daemon runs on ($BROWSER).
    {
      method: 'POST',
      path: '/mcp/servers/{name}/login',
      handler: json(async (ctx, req, { params }) =>
        ctx.service.mcpLogin(await mcpServerTarget(req, 'mcpLogin', params)),
      ),
    },
    {
      method: 'POST',
      path: '/mcp/servers/{name}/reconnect',
      handler: json(async (ctx, req, { params }) =>
        ctx.service.mcpReconnect(await mcpServerTarget(req, 'mcpReconnect', params)),
      ),
    },
    // Another Rein process on this machine (`rein mcp serve`) asks the desk; see askApproval below.
    { method: 'POST', path: '/approvals/ask', handler: askApproval },
    { method: 'GET', path: '/events', handler: getEvents },
    { method: 'POST', path: '/token/rotate', handler: rotateToken },
    { method: 'POST', path: '/shutdown', handler: shutdown },
    // The webhook proves itself with its per-source secret instead of the daemon token.
    { method: 'POST', path: '/hooks/{source}', public: true, handler: postHook },
    {
      method: 'GET',
      path: '/skills',
      handler: json((ctx, _req, { query }) => ctx.service.listSkills(queryInput('listSkills', query))),
    },
    {
      method: 'PUT',
      path: '/active-agent',
      handler: json(async (ctx, req) => ctx.service.switchAgent(await body(req, 'switchAgent'))),
    },
    // Sessions: `/sessions/search` before `/sessions/{id}`.
    {
      method: 'GET',
      path: '/sessions',
      handler: json((ctx, _req, { query }) => ctx.service.listSessions(queryInput('listSessions', query))),
    },
    {
      method: 'GET',
      path: '/sessions/search',
      handler: json((ctx, _req, { query }) => ctx.service.searchSessions(queryInput('searchSessions', query))),
    },
    {
      method: 'GET',
      path: '/sessions/{id}',
      handler: json((ctx, _req, { params, query }) =>
        ctx.service.getSession(queryInput('getSession', query, { id: params.id })),
      ),
    },
    // Agents.
    { method: 'GET', path: '/agents', handler: json((ctx) => ctx.service.listAgents()) },
    // A change that raises an agent's permissions waits for a person (a shell on this machine, the desktop app): 202 with the pending change.
    {
      method: 'POST',
      path: '/agents',
      handler: changeOrPending(
        async (ctx, req) => ctx.service.createAgent(await body(req, 'createAgent'), 'remote'),
        201,
      ),
    },
    {
      method: 'GET',
      path: '/agents/{name}',
      handler: json((ctx, _req, { params }) => ctx.service.getAgent({ name: pathName(params) })),
    },
    {
      method: 'PUT',
      path: '/agents/{name}',
      handler: changeOrPending(async (ctx, req, { params }) =>
        ctx.service.saveAgent(await agentUpdate(req, pathName(params)), 'remote'),
      ),
    },
    {
      method: 'DELETE',
      path: '/agents/{name}',
      handler: json((ctx, _req, { params }) => ctx.service.deleteAgent({ name: pathName(params) })),
    },
    {
      method: 'GET',
      path: '/agents/{name}/activity',
      handler: json((ctx, _req, { params }) => ctx.service.agentActivity({ name: pathName(params) })),
    },
    { method: 'POST', path: '/agents/{name}/heartbeat', handler: postHeartbeat },
    // Settings.
    { method: 'GET', path: '/settings', handler: json((ctx) => ctx.service.getSettings()) },
    {
      method: 'PUT',
      path: '/settings',
      handler: changeOrPending(async (ctx, req) => ctx.service.saveSettings(await body(req, 'saveSettings'), 'remote')),
    },
    // Pending changes; confirmed only where a person is known to be: the desktop app's window, or a shell on this machine (below).
    { method: 'GET', path: '/changes', handler: json((ctx) => ctx.service.listChanges()) },
    // `rein changes accept|reject`: the token and the confirm secret only a local shell of this user can read.
    { method: 'POST', path: '/changes/{id}/answer', handler: answerChangeFromShell },
    // `rein mcp serve` hands over an "always allow" its client (or this desk) gave: always a pending change (202), or 403.
    {
      method: 'POST',
      path: '/changes/always-allow',
      handler: changeOrPending(async (ctx, req) =>
        ctx.service.proposeAlwaysAllow(validate(AlwaysAllowBody, await readBodyJson(req))),
      ),
    },
    {
      method: 'POST',
      path: '/settings/test',
      handler: json(async (ctx, req) => ctx.service.testConnection(await body(req, 'testConnection'))),
    },
    // Schedules.
    { method: 'GET', path: '/schedules', handler: json((ctx) => ctx.service.listSchedules()) },
    {
      method: 'POST',
      path: '/schedules',
      handler: json(async (ctx, req) => ctx.service.createSchedule(await body(req, 'createSchedule')), 201),
    },
    {
      method: 'GET',
      path: '/schedules/{id}',
      handler: json((ctx, _req, { params }) =>
        ctx.service.getSchedule(validate(reinOperations.getSchedule.input, { id: params.id }, 'path')),
      ),
    },
    {
      method: 'PUT',
      path: '/schedules/{id}',
      handler: json(async (ctx, req, { params }) =>
        ctx.service.updateSchedule(
          validate(reinOperations.updateSchedule.input, { ...((await readBodyJson(req)) as object), id: params.id }),
        ),
      ),
    },
    {
      method: 'DELETE',
      path: '/schedules/{id}',
      handler: json((ctx, _req, { params }) =>
        ctx.service.removeSchedule(validate(reinOperations.removeSchedule.input, { id: params.id }, 'path')),
      ),
    },
    { method: 'POST', path: '/schedules/{id}/run', handler: postScheduleRun },
    {
      method: 'GET',
      path: '/schedules/{id}/logs',
      handler: json((ctx, _req, { params }) =>
        ctx.service.scheduleLogs(validate(reinOperations.scheduleLogs.input, { id: params.id }, 'path')),
      ),
    },
    {
      method: 'GET',
      path: '/schedules/{id}/log',
      handler: json((ctx, _req, { params }) =>
        ctx.service.readScheduleLog(validate(reinOperations.readScheduleLog.input, { id: params.id }, 'path')),
      ),
    },
    {
      method: 'GET',
      path: '/schedules/{id}/logs/{name}',
      handler: json((ctx, _req, { params }) =>
        ctx.service.readScheduleLog(
          validate(reinOperations.readScheduleLog.input, { id: params.id, name: params.name }, 'path'),
        ),
      ),
    },
  ];
}

const ScheduleRunBody = z
  .strictObject({
    /** Who fires it: launchd (a job handing its run to the daemon) or a person (default). */
    trigger: z.enum(['launchd', 'hand']).optional(),
    /** A line for the head of the run's log (why it runs: a catch-up after sleep). */
    note: z.string().max(1_000).optional(),
    /** Wait for the run to end and answer its outcome (launchd's hand-off does). */
    wait: z.boolean().optional(),
  })
  .optional();

/**
 * POST /schedules/{id}/run: runs the schedule now, unattended. Answers 202 `{started, id}` at once
 * (its progress comes on the bus), or with `wait: true` the run's outcome when it is over. A waiting
 * client that goes away (a launchd-started `rein schedule run` told to stop: SIGTERM at logout,
 * `launchctl bootout`) stops the run with it: cancelled, its session saved, recorded `interrupted`.
 */
async function postScheduleRun(
  ctx: DaemonContext,
  req: IncomingMessage,
  res: ServerResponse,
  { params }: RouteArgs,
): Promise<void> {
  const { id } = validate(reinOperations.runSchedule.input, { id: params.id }, 'path');
  const raw = await readBody(req);
  const opts = validate(ScheduleRunBody, raw.length === 0 ? undefined : snakeCaseBody(parseJson(raw)));
  await ctx.service.getSchedule({ id });
  if (opts?.wait) {
    const gone = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) gone.abort(new Error('the process that started it was stopped'));
    });
    sendJson(res, 200, await ctx.service.runScheduleNow(id, opts.trigger ?? 'hand', opts.note, gone.signal));
    return;
  }
  const running = ctx.service.runScheduleNow(id, opts?.trigger ?? 'hand', opts?.note);
  running.catch((e: unknown) => ctx.warn(`schedule ${id}: ${String(e)}`));
  sendJson(res, 202, { started: true, id });
}

/**
 * POST /agents/{name}/heartbeat: one beat of the agent now, as `rein heartbeat run` makes it (trigger
 * `hand`, unattended), answered with its record when it is over. Here, in the daemon, an alert waits
 * for the person's run on the same conversation and goes on the bus; a client that goes away cancels it.
 */
async function postHeartbeat(
  ctx: DaemonContext,
  req: IncomingMessage,
  res: ServerResponse,
  { params }: RouteArgs,
): Promise<void> {
  const name = pathName(params);
  await readBody(req);
  if (name === DEFAULT_AGENT)
    throw new HttpError(400, 'invalid_request', 'the built-in agent has no heartbeat: name one of your agents', 'name');
  sendJson(res, 200, await ctx.service.runHeartbeat({ name }, whileConnected(res, 'the client went away')));
}

/** Aborted when the client goes away before its answer was written. */
function whileConnected(res: ServerResponse, why: string): AbortSignal {
  const gone = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) gone.abort(new Error(why));
  });
  return gone.signal;
}

/**
 * `POST /changes/always-allow`'s body: the call an "always allow" was given for, as it ran in
 * `rein mcp serve` (the input unmasked: the grant is made from it, and the change desk masks what it
 * shows), and the folder it ran in. The daemon works out the grant itself, as for a run of the agent.
 */
const AlwaysAllowBody = z.strictObject({
  agent: AgentName,
  tool: z.string().min(1).max(200),
  input: z.unknown().refine((v) => v !== undefined, "expected the call's input"),
  cwd: z
    .string()
    .min(1)
    .max(4_096)
    .refine((p) => p.startsWith('/'), 'expected an absolute path')
    .optional(),
});

const ChangeAnswerBody = z.strictObject({ decision: z.enum(['apply', 'reject']) });

/**
 * POST /changes/{id}/answer `{decision: "apply" | "reject"}`: a person's answer to a pending change from
 * `rein changes accept|reject` in a shell on the daemon's machine. The token is not enough — every token
 * holder has it: the web page, a relay, a script — so the request must also carry the confirm secret
 * (`X-Rein-Confirm`, from `$REIN_HOME/secrets/confirm.token`, which only a local process of this user can
 * read and no tool may), come over loopback, and not come from a browser (no Origin header). Anything
 * else is 403 `confirm_refused`, checked before the change is looked up, so a refused caller learns
 * nothing about it. See docs/permissions.md, *Threat model*.
 */
async function answerChangeFromShell(
  ctx: DaemonContext,
  req: IncomingMessage,
  res: ServerResponse,
  { params }: RouteArgs,
): Promise<void> {
  const refuse = (why: string) => {
    req.resume();
    return new HttpError(
      403,
      'confirm_refused',
      `${why}: a permission change is confirmed by a person, with \`rein changes accept ID\` in a shell on the daemon's machine (or in the Rein desktop app)`,
    );
  };
  if (req.headers.origin !== undefined) throw refuse('a web page cannot confirm a change');
  if (!isLoopbackHost(req.socket.remoteAddress ?? '')) throw refuse('only this machine can confirm a change');
  const presented = req.headers[CONFIRM_HEADER];
  const secret = Array.isArray(presented) ? presented[0] : presented;
  if (secret === undefined || !sameSecret(ctx.confirmSecret, secret.trim()))
    throw refuse('the daemon token alone cannot confirm a change');
  const { decision } = validate(ChangeAnswerBody, await readBodyJson(req));
  const change_id = validate(ChangeId, params.id, 'path.id');
  sendJson(res, 200, await ctx.service.answerChange({ change_id, decision }, 'shell'));
}

/** `POST /approvals/ask`'s body: one approval request, exactly as the executor builds it. */
const AskApprovalBody = z.strictObject({ ...ApprovalRequest.shape, request_id: ApprovalId });

/**
 * POST /approvals/ask: a question from a Rein process that has no person of its own to ask —
 * `rein mcp serve` when its MCP client cannot show a form. The request goes on the bus as an
 * `approval_request` event and into the desk, exactly like a run's own question, so every connected
 * client (the desktop app, the web UI, event streams, WebSocket clients) sees it and answers it with
 * `POST /approval`; the answer (`{request_id, decision, by}`) goes back as this request's response.
 * Nobody answering within `permissions.approval_timeout_seconds` is a deny (`by: timeout`); a caller
 * that goes away withdraws the question. The daemon runs nothing for it: the answer is only the asker's,
 * and asking needs the daemon's token like every endpoint.
 */
async function askApproval(ctx: DaemonContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const request = validate(AskApprovalBody, await readBodyJson(req));
  const answer = await ctx.service.askApproval(request, whileConnected(res, 'the asker went away'));
  if (!res.destroyed) sendJson(res, 200, answer);
}

/** PUT /agents/{name}: the name comes from the path, the changes from the body. */
async function agentUpdate(req: IncomingMessage, name: string) {
  const raw = await readBodyJson(req);
  if (raw && typeof raw === 'object' && !Array.isArray(raw) && 'name' in raw) {
    throw new HttpError(
      400,
      'invalid_request',
      'body.name: the agent is named by the path; renaming is not supported',
      'name',
    );
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

export async function answerMessage(
  ctx: DaemonContext,
  req: IncomingMessage,
  res: ServerResponse,
  request: RunRequest,
): Promise<void> {
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
  const { replayed, pendingApprovals } = service.replaySince(lastId);
  for (const e of replayed) writeSse(res, sseFrame(e.event.type, e.json, e.id));
  for (const frame of pendingApprovals) writeSse(res, sseFrame('approval_request', frame));
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

async function postHook(
  ctx: DaemonContext,
  req: IncomingMessage,
  res: ServerResponse,
  { params }: RouteArgs,
): Promise<void> {
  const source = params.source!;
  if (!SOURCE_PATTERN.test(source)) throw new HttpError(404, 'webhook_unknown_source', `no webhook source "${source}"`);
  // The caller has proved nothing yet: answers up to the proof never name a path.
  const config = await ctx.webhooks.load();
  const cfg = Object.hasOwn(config.sources, source) ? config.sources[source] : undefined;
  if (!cfg) {
    req.resume();
    throw new HttpError(404, 'webhook_unknown_source', `no webhook source "${source}" in webhooks.yaml`);
  }
  const raw = await readBody(req);
  const proof = verifyWebhook(cfg, secretOf(source, cfg, ctx.service.env), req.headers, raw);
  if (!proof.ok) throw new HttpError(proof.status, proof.code, proof.message);
  if (
    proof.replayKey !== undefined &&
    !ctx.webhooks.replays.claim(`${source}:${proof.replayKey}`, proof.expiresAtMs!)
  ) {
    throw new HttpError(
      409,
      'webhook_replayed',
      'this signed request was already accepted; a relay signs every delivery with its own timestamp',
    );
  }
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
