/**
 * The MCP stdio transport on core's one child-process runner (core/process/subprocess.ts), not the
 * SDK's own spawner: the server leads its own process group, so closing the connection — or the server
 * exiting, or Rein shutting down — ends stdin, waits, then SIGTERMs and SIGKILLs the whole group, and a
 * server started through `npx` or a shell wrapper takes its children with it.
 *
 * Messages are newline-delimited JSON-RPC on stdin/stdout (the SDK's framing). The last 4 KiB of stderr
 * are kept for the error message when the server fails to start or dies.
 */
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { startProcess, type ProcessHandle } from '../process/subprocess.js';

const STDERR_TAIL = 4_096;

export interface StdioTransportOptions {
  command: string;
  args: readonly string[];
  /** The child's whole environment. */
  env: NodeJS.ProcessEnv;
  cwd?: string;
  /** After stdin is closed, how long the server may take to exit before SIGTERM (default 2 s). */
  closeGraceMs?: number;
  /** SIGTERM → SIGKILL (default 2 s). */
  killGraceMs?: number;
}

export class ProcessStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;

  readonly #opts: StdioTransportOptions;
  readonly #buffer = new ReadBuffer();
  #handle: ProcessHandle | undefined;
  #stderr = '';
  #closed = false;
  #exit: string | undefined;

  constructor(opts: StdioTransportOptions) {
    this.#opts = opts;
  }

  /** The server's process id once started (its process group id too). */
  get pid(): number | undefined {
    return this.#handle?.child.pid;
  }

  /** The end of what the server wrote to stderr. */
  get stderrTail(): string {
    return this.#stderr;
  }

  /** How the server ended (`exited with code 1`), once it has. */
  get exitDescription(): string | undefined {
    return this.#exit;
  }

  async start(): Promise<void> {
    if (this.#handle) throw new Error('ProcessStdioTransport already started');
    const handle = startProcess({
      file: this.#opts.command,
      args: this.#opts.args,
      env: this.#opts.env,
      ...(this.#opts.cwd ? { cwd: this.#opts.cwd } : {}),
      stderr: 'pipe',
      ...(this.#opts.closeGraceMs !== undefined ? { closeGraceMs: this.#opts.closeGraceMs } : {}),
      ...(this.#opts.killGraceMs !== undefined ? { killGraceMs: this.#opts.killGraceMs } : {}),
    });
    this.#handle = handle;
    handle.stdout.on('data', (chunk: Buffer) => this.#read(chunk));
    handle.stdout.on('error', (e: Error) => this.onerror?.(e));
    handle.stderr?.setEncoding('utf8').on('data', (text: string) => {
      this.#stderr = (this.#stderr + text).slice(-STDERR_TAIL);
    });
    void handle.exited.then((exit) => {
      this.#exit =
        exit.kind === 'spawn_failed'
          ? `could not be started: ${exit.error.message}`
          : exit.exitSignal
            ? `was stopped by ${exit.exitSignal}`
            : `exited with code ${exit.exitCode}`;
      this.#finish();
    });
    const started = await handle.started;
    if (!started.ok) throw new Error(`${this.#opts.command} could not be started: ${started.error.message}`);
  }

  #read(chunk: Buffer): void {
    try {
      this.#buffer.append(chunk);
    } catch (e) {
      this.onerror?.(e as Error);
      return;
    }
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.#buffer.readMessage();
      } catch (e) {
        // A line that is not JSON-RPC (a server printing logs on stdout): reported, the stream goes on.
        this.onerror?.(e as Error);
        continue;
      }
      if (message === null) break;
      this.onmessage?.(message);
    }
  }

  send(message: JSONRPCMessage, _options?: TransportSendOptions): Promise<void> {
    const stdin = this.#handle?.stdin;
    if (!stdin || this.#closed || !this.#handle?.alive)
      return Promise.reject(new Error('the MCP server is not running'));
    return new Promise((resolve, reject) => {
      const ok = stdin.write(serializeMessage(message), (err) => (err ? reject(err) : undefined));
      if (ok) resolve();
      else stdin.once('drain', () => resolve());
    });
  }

  // eslint-disable-next-line no-restricted-syntax -- the MCP SDK's Transport interface names its teardown close()
  async close(): Promise<void> {
    const handle = this.#handle;
    if (handle) await handle.dispose();
    this.#finish();
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#buffer.clear();
    this.onclose?.();
  }
}
