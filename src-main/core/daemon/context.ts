/** What every daemon endpoint may use: one object built by startDaemon, passed to the adapters. */
import type { Emitter } from '../base/lifecycle.js';
import type { ReinService } from '../service/reinService.js';
import type { SecurityPolicy } from './security.js';
import type { StaticHandler } from './staticFiles.js';
import type { WebhookConfig } from './webhooks.js';

export interface DaemonContext {
  /** Every operation; the adapters only turn requests into calls and answers into responses. */
  service: ReinService;
  /** Mutable: `token` changes on rotation. */
  security: SecurityPolicy;
  /**
   * What `rein changes accept|reject` proves itself with besides the token (`$REIN_HOME/secrets/confirm.token`,
   * made at start): only a local process of this user can read it; the web page never gets it.
   */
  confirmSecret: string;
  webhooks: WebhookConfig;
  staticFiles?: StaticHandler;
  /** How long a request's body may take to arrive (default BODY_TIMEOUT_MS, 30 s). */
  bodyTimeoutMs?: number;
  /** Replaces the token (file, daemon.json, policy) and disconnects clients holding the old one. */
  rotateToken(): Promise<string>;
  /** Asks the daemon to shut down (answering the current request first). */
  requestShutdown(): void;
  /** Fires when the token changes: event streams and sockets close themselves. */
  tokenRotated: Emitter<void>;
  /** Fires when the daemon stops: event streams end, sockets close with 1001. */
  shuttingDown: Emitter<void>;
  warn(message: string): void;
}
