/**
 * The service for one run in this process: `rein run`. The CLI is a face like the daemon and the
 * desktop window, but it makes one run and exits, so it gets the smallest service there is rather than a
 * ReinService (no bus, desk, router, search index or HTTP server to load: the command must start fast).
 * It builds the agent's runtime, starts the run on it, and closes what the run opened (its MCP servers).
 */
import type { AsyncDisposable } from '../base/lifecycle.js';
import {
  closeRuntime,
  createRuntime,
  startRun,
  type Runtime,
  type RuntimeOptions,
  type StartedRun,
  type StartRunOptions,
} from '../runtime/runtime.js';

export class OneShotService implements AsyncDisposable {
  readonly #runtime: Runtime;
  #closing: Promise<void> | undefined;

  private constructor(runtime: Runtime) {
    this.#runtime = runtime;
  }

  /** The agent's runtime for the run, as the options say (origin, faces, overrides, its MCP servers). */
  static async open(opts: RuntimeOptions): Promise<OneShotService> {
    return new OneShotService(await createRuntime(opts));
  }

  /** Starts the run: its events to render, its session to note for the search index. */
  start(opts: StartRunOptions): Promise<StartedRun> {
    return startRun(this.#runtime, opts);
  }

  /**
   * The process groups of the run's own stdio MCP servers, connected now: signalled on a `process.exit`
   * that skips dispose() (a closed pipe, a second Ctrl-C), so none outlives the command.
   */
  mcpPids(): number[] {
    const manager = this.#runtime.mcp?.owned ? this.#runtime.mcp.manager : undefined;
    return manager ? [...manager.pids()] : [];
  }

  /** Does the run own MCP servers that must not outlive it? */
  get ownsMcpServers(): boolean {
    return this.#runtime.mcp?.owned === true;
  }

  /** Closes the run's own MCP servers (once). */
  dispose(): Promise<void> {
    return (this.#closing ??= closeRuntime(this.#runtime));
  }
}
