/**
 * `rein`: the command line. Same core as the desktop app, in plain Node.
 * Exit codes: 0 success, 1 failure, 2 bad usage (or missing API key).
 */
import { daemonCommand } from './commands/daemon.js';
import { agentsCommand } from './commands/agents.js';
import { memoryCommand } from './commands/memory.js';
import { permissionsCommand } from './commands/permissions.js';
import { sessionsCommand } from './commands/sessions.js';
import { runCommand } from './commands/run.js';
import { UsageError, type CliIo } from './io.js';

declare const __REIN_VERSION__: string;
export const VERSION = typeof __REIN_VERSION__ === 'string' ? __REIN_VERSION__ : '0.0.0-dev';

export const HELP = `rein ${VERSION} — an AI agent harness for your computer

Usage:
  rein run [options] PROMPT     run an agent on PROMPT (PROMPT may also come on stdin)
  rein daemon [status|stop|rotate-token]   agents as a local service (rein daemon --help)
  rein --help | --version

rein run options:
  --agent NAME        run a named agent (~/.rein/agents/NAME)
  --session ID        continue an earlier session
  --new               start a new session (the default)
  --source SRC        where the request comes from (default: cli)
  --mode MODE         permission mode: default | acceptEdits | plan | dontAsk | bypassPermissions
  --yes, -y           approve every tool call that would ask
  --json              print one event per line (JSON) instead of text
  --cwd DIR           working folder (default: the current folder)

Environment:
  ANTHROPIC_API_KEY   API key (required unless ANTHROPIC_BASE_URL points at a local server)
  ANTHROPIC_BASE_URL  an Anthropic-compatible endpoint
  REIN_HOME           Rein's folder (default ~/.rein); config in $REIN_HOME/config.yaml
`;

export async function main(argv: string[], io: CliIo = defaultIo()): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
      io.stdout.write(HELP);
      return command === undefined ? 2 : 0;
    }
    if (command === '--version' || command === '-v' || command === 'version') {
      io.stdout.write(`${VERSION}\n`);
      return 0;
    }
    if (command === 'run') return await runCommand(rest, io);
    if (command === 'agents') return await agentsCommand(rest, io);
    if (command === 'memory') return await memoryCommand(rest, io);
    if (command === 'permissions') return await permissionsCommand(rest, io);
    if (command === 'sessions') return await sessionsCommand(rest, io);
    if (command === 'daemon') return await daemonCommand(rest, io);
    throw new UsageError(`unknown command "${command}"`);
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr.write(`rein: ${err.message}\nRun \`rein --help\` for usage.\n`);
      return 2;
    }
    throw err;
  }
}

function defaultIo(): CliIo {
  return { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() };
}
