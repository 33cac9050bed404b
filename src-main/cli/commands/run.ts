/** `rein run [options] PROMPT` */
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../core/config/load.js';
import { reinHome } from '../../core/config/paths.js';
import { PermissionMode } from '../../core/config/schema.js';
import { isReinError } from '../../core/errors.js';
import type { StartedRun } from '../../core/runtime/runtime.js';
import { OneShotService } from '../../core/service/oneShot.js';
import { signalGroup } from '../../core/process/processGroup.js';
import { pageOpener } from '../../core/mcpClient/browser.js';
import { isSourceName } from '../../core/api/patterns.js';
import { originFor } from '../../core/runtime/runRequest.js';
import { originTraits } from '../../core/permissions/runPolicy.js';
import { isSessionId } from '../../core/sessions/id.js';
import { sessionWaitMs } from '../../core/sessions/sessionLock.js';
import { setLockHolderName } from '../../core/util/ownedLock.js';
import { commandPaths, expandSlashCommand, loadCommands } from '../../core/commands/index.js';
import { readAll, UsageError, type CliIo } from '../io.js';
import { jsonRenderer, textRenderer } from '../render.js';
import { ttyFace } from '../ttyFace.js';
import { terminalTrust } from '../folderTrust.js';
import { noteSavedSession } from '../../core/search/pendingIndex.js';
import type { SessionFile } from '../../core/sessions/types.js';
import { errorMessage } from '../../core/errors.js';
import { stopOnSignals } from '../stopSignals.js';

/**
 * Keeps the search index current: the session is noted for the next process that opens the index
 * (search/pendingIndex.ts), so a run never loads SQLite. The JSON file is the truth: a failure only warns.
 */
async function indexSession(home: string, session: SessionFile, io: CliIo): Promise<void> {
  try {
    await noteSavedSession(home, { agent: session.agent, id: session.id });
  } catch (err) {
    io.stderr.write(
      `rein: warning: the search index was not told about session ${session.id} (${errorMessage(err)}); \`rein sessions reindex\` repairs it\n`,
    );
  }
}

export async function runCommand(argv: string[], io: CliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        agent: { type: 'string' },
        session: { type: 'string' },
        new: { type: 'boolean' },
        source: { type: 'string' },
        mode: { type: 'string' },
        yes: { type: 'boolean', short: 'y' },
        json: { type: 'boolean' },
        cwd: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    const { HELP } = await import('../index.js');
    io.stdout.write(HELP);
    return 0;
  }
  if (values.session && values.new) throw new UsageError('--session and --new cannot be used together');
  if (values.session && !isSessionId(values.session))
    throw new UsageError(`--session: "${values.session}" is not a session id (YYYY-MM-DD-<12 hex>)`);
  let mode: PermissionMode | undefined;
  if (values.mode !== undefined) {
    const m = PermissionMode.safeParse(values.mode);
    if (!m.success) throw new UsageError(`--mode: "${values.mode}" is not one of ${PermissionMode.options.join(', ')}`);
    mode = m.data;
  }
  const source = values.source ?? 'cli';
  if (!isSourceName(source)) throw new UsageError(`--source: "${source}" must be a short lowercase word`);

  let prompt = positionals.join(' ').trim();
  if (!prompt && !io.stdin.isTTY) prompt = (await readAll(io.stdin)).trim();
  if (!prompt) throw new UsageError('no prompt: pass it as an argument or on stdin');

  const cwd = values.cwd ? resolve(io.cwd, values.cwd) : io.cwd;
  const home = reinHome(io.env);
  const render = values.json ? jsonRenderer(io.stdout) : textRenderer(io.stdout, io.stderr);
  const fail = (code: number, message: string) => {
    io.stderr.write(`rein: ${message}\n`);
    return code;
  };

  // SIGINT, SIGTERM, SIGHUP cancel the run; the loop saves the session and the command exits (within
  // a few seconds: cli/stopSignals.ts). Only a second Ctrl-C from the person at the terminal quits at once.
  const stop = stopOnSignals({ forceOnSecondInterrupt: true });
  // Every way out closes the run's own MCP servers (each a process group of its own, which would outlive
  // the command and, while connected, keep it from exiting): see the finally below and exitGuard.
  let service: OneShotService | undefined;
  let run: StartedRun | undefined;
  let over = false;
  let unguard: () => void = () => undefined;
  try {
    const origin = originFor('cli', source);
    const warn = (m: string) => void io.stderr.write(`rein: ${m}\n`);
    // A project overlay's hooks, MCP servers, base_url and wider permissions wait for the person to
    // trust the folder: asked here when someone is at the terminal, else left out with a warning.
    const present = originTraits(origin).personPresent;
    const trust = terminalTrust({
      home,
      ask: present && io.stdin.isTTY === true && io.stdout.isTTY === true,
      input: io.stdin,
      output: io.stderr,
      warn,
    });
    const { config } = await loadConfig({ home, cwd, trust, warn });
    if (trust.interrupted) return 130;
    if (prompt.startsWith('/')) {
      const { commands } = await loadCommands({ home, ...(values.agent ? { agent: values.agent } : {}) });
      const expanded = expandSlashCommand(prompt, commands);
      if (expanded && 'error' in expanded)
        return fail(2, `${expanded.error} ${whereCommandsLive(home, values.agent, prompt)}`);
      if (expanded) prompt = expanded.prompt;
    }
    // A person at this terminal, unless the source says nobody is watching (a schedule run through the
    // CLI): then a call that needs approval is denied at once (core/permissions/runPolicy.ts). A prompt
    // on stdin leaves no terminal to answer on; the terminal face then denies.
    // The run goes through the service like every face's (core/service/oneShot.ts), made for this one run.
    service = await OneShotService.open({
      home,
      cwd,
      env: io.env,
      config,
      ...(values.agent ? { agent: values.agent } : {}),
      source,
      origin,
      route: 'cli',
      ...(mode ? { overrides: { mode } } : {}),
      yes: values.yes ?? false,
      // The agent's MCP servers, started for this run and stopped when it is over.
      mcp: true,
      ...(present
        ? { faces: [ttyFace({ input: io.stdin, output: io.stderr })], openUrl: pageOpener(io.env, io.stderr) }
        : {}),
      signal: stop.signal,
    });
    unguard = exitGuard(service);
    // What another process waiting for this session is told holds it.
    setLockHolderName('rein run');
    run = await service.start({
      prompt,
      cwd,
      home,
      ...(values.session ? { sessionId: values.session } : {}),
      signal: stop.signal,
      // The daemon or the app may be running a turn of the session: wait for it, then go on from there.
      sessionWaitMs: sessionWaitMs(io.env),
      onSessionWait: warn,
    });
    const { events, session } = run;
    for (;;) {
      const step = await events.next();
      if (step.done) {
        over = true;
        await indexSession(home, session, io);
        return step.value.stopReason === 'final' ? 0 : 1;
      }
      render.event(step.value);
    }
  } catch (err) {
    if (stop.signal.aborted && !run)
      return fail(1, `${stop.stoppedBy ?? 'a signal'}: the run was stopped before it started`);
    if (isReinError(err, 'no_api_key')) return fail(2, err.message);
    if (isReinError(err))
      return fail(err.code === 'invalid_input' || err.code === 'config_invalid' ? 2 : 1, err.message);
    return fail(1, err instanceof Error ? (err.stack ?? err.message) : String(err));
  } finally {
    // A run left before its end (a renderer that threw) is closed, which saves it and ends its events.
    if (run && !over) await run.events.return(undefined as never).catch(() => undefined);
    if (service) await service.dispose();
    unguard();
    stop.dispose();
  }
}

/** Where the file of an unknown `/name` would go, so the person can make it. */
function whereCommandsLive(home: string, agent: string | undefined, prompt: string): string {
  const name = /^\/(\S+)/.exec(prompt.trimStart())?.[1]?.toLowerCase() ?? 'NAME';
  const global = join(commandPaths.globalCommandsDir(home), `${name}.md`);
  const own = agent ? `${join(commandPaths.agentCommandsDir(home, agent), `${name}.md`)} (this agent's only) or ` : '';
  return `A command is a prompt in a file: create ${own}${global} (every agent's); see docs/skills.md, *Slash commands*.`;
}

/**
 * `process.exit` skips every pending await: a closed pipe (closedPipe.ts), the stop deadline and a second
 * Ctrl-C (stopSignals.ts) end the command there. On the way out the run's connected stdio MCP servers
 * are signalled, so none is left behind. Returns the undo, for a command that closed them itself.
 */
function exitGuard(service: OneShotService): () => void {
  if (!service.ownsMcpServers) return () => undefined;
  const onExit = () => {
    for (const pid of service.mcpPids()) signalGroup(pid, 'SIGTERM');
  };
  process.on('exit', onExit);
  return () => void process.off('exit', onExit);
}
