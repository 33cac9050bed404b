/**
 * The WebSocket adapter (`GET /ws`). The upgrade is checked by the same `checkRequest` as HTTP before
 * the handshake is accepted; a browser presents the token as the subprotocol `token.<token>` next to
 * `rein.v1`, and the daemon answers with `rein.v1` only (the token is never echoed).
 *
 * Server → client: `{frame: "event", id?, event}` for every bus event (after a replay from
 * `?last_event_id=` and the pending approvals), exactly one `{frame: "reply", ref, ok, …}` answering
 * each client frame, and `{frame: "result", ref, ok, …}` when a run started by a `message` frame ends:
 * its result, or (`ok: false`) why it could not start. A run that fails after its message was accepted
 * is never a second reply: the route hears it as `error` + `session_end` events (runDriver.ts), and the
 * `result` frame carries the error for a client that matches refs.
 * Client → server: `{type: "message" | "cancel" | "approval", ref?, …}` with the HTTP bodies.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { acceptCamelCaseKeys } from '../api/fieldNames.js';
import { WsFrameEnvelope, wsFrameBodies, type WsServerFrame } from '../api/protocol.js';
import { DisposableStore, type Disposable } from '../base/lifecycle.js';
import { runRequestFromMessage } from '../runtime/runRequest.js';
import type { BusEntry } from '../service/eventBus.js';
import type { DaemonContext } from './context.js';
import { HttpError, toHttpError } from './httpError.js';
import { MAX_BODY_BYTES, parseJson, validate } from './httpBody.js';
import { checkRequest, WS_PROTOCOL } from './security.js';

/** Unsent bytes a client may accumulate before it is cut off (it can reconnect with last_event_id). */
const WS_MAX_BACKLOG = 4 * 1024 * 1024;
const PING_EVERY_MS = 30_000;

export function attachWebSocket(server: Server, ctx: DaemonContext): Disposable {
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_BODY_BYTES,
    handleProtocols: (offered) => (offered.has(WS_PROTOCOL) ? WS_PROTOCOL : false),
  });

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = req.url ?? '/';
    const pathname = url.split('?')[0];
    if (pathname !== '/ws')
      return refuseUpgrade(socket, new HttpError(404, 'not_found', `no WebSocket endpoint at ${pathname}`));
    const verdict = checkRequest(ctx.security, { headers: req.headers, url, isPublic: false, isWebSocket: true });
    if (!verdict.ok) return refuseUpgrade(socket, new HttpError(verdict.status, verdict.code, verdict.message));
    const offered = req.headers['sec-websocket-protocol'];
    if (offered !== undefined && !offered.split(',').some((p) => p.trim() === WS_PROTOCOL)) {
      return refuseUpgrade(socket, new HttpError(400, 'bad_subprotocol', `offer the subprotocol ${WS_PROTOCOL}`));
    }
    wss.handleUpgrade(req, socket, head, (ws) => onConnection(ctx, ws, req));
  };
  server.on('upgrade', onUpgrade);

  return {
    dispose() {
      server.off('upgrade', onUpgrade);
      for (const ws of wss.clients) ws.close(1001, 'daemon shutting down');
      wss.close();
    },
  };
}

function refuseUpgrade(socket: Duplex, e: HttpError): void {
  const body = JSON.stringify({ error: e.message, code: e.code });
  socket.end(
    `HTTP/1.1 ${e.status} ${e.status === 401 ? 'Unauthorized' : e.status === 403 ? 'Forbidden' : e.status === 404 ? 'Not Found' : 'Bad Request'}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

function onConnection(ctx: DaemonContext, ws: WebSocket, req: IncomingMessage): void {
  const send = (text: string) => {
    if (ws.readyState !== ws.OPEN) return;
    if (ws.bufferedAmount > WS_MAX_BACKLOG) {
      ws.terminate();
      return;
    }
    ws.send(text);
  };
  const sendFrame = (frame: WsServerFrame) => send(JSON.stringify(frame));
  const eventFrame = (e: BusEntry) => `{"frame":"event","id":${JSON.stringify(e.id)},"event":${e.json}}`;

  const service = ctx.service;
  const lastId = new URLSearchParams((req.url ?? '').split('?')[1] ?? '').get('last_event_id') ?? undefined;
  const { replayed, pendingApprovals } = service.replaySince(lastId);
  for (const e of replayed) send(eventFrame(e));
  for (const json of pendingApprovals) send(`{"frame":"event","event":${json}}`);

  // Everything this connection holds, torn down together when it closes.
  const held = new DisposableStore();
  held.add(service.subscribe((e) => send(eventFrame(e))));
  held.add(ctx.tokenRotated.event(() => ws.close(4001, 'token rotated; reconnect with the new token')));
  held.add(ctx.shuttingDown.event(() => ws.close(1001, 'daemon shutting down')));
  // A socket is the web UI (or a client like it): it hears approvals and can answer them.
  held.add(service.attachClient('ws'));
  let alive = true;
  ws.on('pong', () => (alive = true));
  const ping = setInterval(() => {
    if (!alive) return ws.terminate();
    alive = false;
    ws.ping();
  }, PING_EVERY_MS);
  ping.unref();
  held.defer(() => clearInterval(ping));

  ws.on('message', (data: RawData, isBinary: boolean) => {
    void onFrame(ctx, isBinary ? undefined : rawText(data), sendFrame).catch(() => undefined);
  });
  ws.on('close', () => held.dispose());
  ws.on('error', () => undefined);
}

function rawText(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}

type FrameSender = (frame: WsServerFrame) => void;

async function onFrame(ctx: DaemonContext, text: string | undefined, sendFrame: FrameSender): Promise<void> {
  let ref: string | undefined;
  // One reply per client frame, whatever happens after it (a client waits on exactly one).
  let replied = false;
  const answer = (frame: Extract<WsServerFrame, { frame: 'reply' }>) => {
    if (replied) return;
    replied = true;
    sendFrame(frame);
  };
  const refOf = () => (ref !== undefined ? { ref } : {});
  const failure = (e: unknown) => {
    const h = toHttpError(e);
    return { ...refOf(), ok: false as const, status: h.status, error: h.message, code: h.code };
  };
  try {
    if (text === undefined) throw new HttpError(400, 'invalid_json', 'frames are JSON text, not binary');
    // The same limits as an HTTP body (nesting depth included).
    const raw = parseJson(text, 'frame');
    const envelope = validate(WsFrameEnvelope, raw, 'frame');
    ref = envelope.ref;
    const { type: _type, ref: _ref, ...given } = envelope;
    const renamed = acceptCamelCaseKeys(given);
    if (!renamed.ok) throw new HttpError(400, 'invalid_request', renamed.message, renamed.field);
    const rest = renamed.value;
    const reply = (result: unknown) => answer({ frame: 'reply', ...refOf(), ok: true, result });

    if (envelope.type === 'message') {
      const msg = validate(wsFrameBodies.message, rest, 'frame');
      const outcome = await ctx.service.submit(runRequestFromMessage(msg, 'ws', 'ws'));
      if (outcome.injected) return reply(outcome.result);
      reply({ accepted: true, injected: false, route: outcome.run.key });
      // The run's events reach this client through the bus; the end comes as its own frame, never a reply.
      outcome.run.done.then(
        (result) => sendFrame({ frame: 'result', ...refOf(), ok: true, result }),
        (e: unknown) => sendFrame({ frame: 'result', ...failure(e) }),
      );
      return;
    }
    if (envelope.type === 'cancel') {
      return reply(ctx.service.cancel(validate(wsFrameBodies.cancel, rest, 'frame')));
    }
    reply(ctx.service.answerApproval(validate(wsFrameBodies.approval, rest, 'frame'), 'daemon'));
  } catch (e) {
    answer({ frame: 'reply', ...failure(e) });
  }
}
