/** What every daemon endpoint may use: one object built by startDaemon, passed to the adapters. */
import type { GlobalConfig } from '../config/schema.js';
import type { SessionIndex } from '../search/sessionIndex.js';
import type { ApprovalDesk } from './approvalDesk.js';
import type { EventBus } from './eventBus.js';
import type { RunRouter } from './runRouter.js';
import type { SecurityPolicy } from './security.js';
import type { StaticHandler } from './staticFiles.js';
import type { WebhookConfig } from './webhooks.js';

export interface DaemonContext {
  home: string;
  version: string;
  startedAt: Date;
  env: NodeJS.ProcessEnv;
  /** Mutable: PUT /settings replaces it, and the router's copy, for the runs that start afterwards. */
  config: GlobalConfig;
  bus: EventBus;
  desk: ApprovalDesk;
  router: RunRouter;
  /** Mutable: `token` changes on rotation. */
  security: SecurityPolicy;
  webhooks: WebhookConfig;
  staticFiles?: StaticHandler;
  /** Mutable: the agent the desktop and web UI talk to (PUT /active-agent); `default` at start. */
  activeAgent: string;
  /** Connected event clients, for /status. */
  clients: { events: number; ws: number };
  /** The search index, opened on first use. */
  sessionIndex(): Promise<SessionIndex>;
  /** Replaces the token (file, daemon.json, policy) and disconnects clients holding the old one. */
  rotateToken(): Promise<string>;
  /** Asks the daemon to shut down (answering the current request first). */
  requestShutdown(): void;
  /** Listeners told when the token changes (event streams and sockets close themselves). */
  onTokenRotated: Set<() => void>;
  /** Listeners told when the daemon stops (event streams end, sockets close with 1001). */
  onShutdown: Set<() => void>;
  warn(message: string): void;
}
