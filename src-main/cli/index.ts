/**
 * `rein`: the command line. Same core as the desktop app, in plain Node.
 * Exit codes: 0 success, 1 failure, 2 bad usage (or missing API key).
 *
 * Every command is its own module, imported only when it is the one asked for: `rein --version` or a
 * schedule run then never compiles the daemon, the MCP SDK or SQLite (docs/architecture.md, *Startup*).
 */
import { exitQuietlyOnClosedPipe } from './closedPipe.js';
import { UsageError, type CliIo } from './io.js';

declare const __REIN_VERSION__: string;
export const VERSION = typeof __REIN_VERSION__ === 'string' ? __REIN_VERSION__ : '0.0.0-dev';

export const HELP = `rein ${VERSION} — an AI agent harness for your computer

Usage:
  rein run [options] PROMPT     run an agent on PROMPT (PROMPT may also come on stdin; /NAME runs commands/NAME.md)
  rein agents list|show|create|validate|delete [NAME]   named agents in ~/.rein/agents (rein agents --help)
  rein sessions list|show ID|search QUERY|reindex       past sessions and their full-text search (rein sessions --help)
  rein memory show|append|consolidate [--agent NAME]    what an agent remembers: MEMORY.md (rein memory --help)
  rein permissions check --tool T --input JSON | --batch   what a tool call would get: allow, ask or deny (rein permissions --help)
  rein daemon [status|stop|rotate-token]   agents as a local service (rein daemon --help)
  rein heartbeat run AGENT [--json]        one heartbeat beat now (HEARTBEAT.md; unattended)
  rein heartbeat status [AGENT] [--json]   last beat, tokens, cost, today's spend, next beat
  rein schedule create|list|show|update|enable|disable|remove|run|logs|next   schedules (rein schedule --help)
  rein ax apps|snapshot|find|click|set-value|get-value|press|scroll|type|wait-for|annotate|permissions   other apps' UI (rein ax --help)
  rein mcp serve|add|remove|import|list|tools|call|login …   MCP: Rein's tools as a server, the servers agents use (rein mcp --help)
  rein auth set-key|status|remove   the API key every run uses, in the system's secret store (rein auth --help)
  rein doctor [--online] [--json]   check config, key, agents, schedules, daemon, helpers (nothing changed;
                                    --online: one tiny model request, one connection to each MCP server)
  rein trust [FOLDER] [--yes] | --list | --revoke [FOLDER]   trust a folder's .rein/config.yaml (rein trust --help)
  rein changes list [--json] | accept ID [--yes] | reject ID   confirm permission changes asked over the daemon's API (rein changes --help)
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
  ANTHROPIC_API_KEY   API key; overrides the one stored with \`rein auth set-key\` (one of them is needed
                      unless ANTHROPIC_BASE_URL points at a local server)
  ANTHROPIC_BASE_URL  an Anthropic-compatible endpoint
  REIN_HOME           Rein's folder (default ~/.rein); config in $REIN_HOME/config.yaml
  REIN_CODE_CACHE     where compiled code is kept between runs (a folder), or off
`;

type Command = (argv: string[], io: CliIo) => Promise<number>;

const COMMANDS: Record<string, () => Promise<Command>> = {
  run: async () => (await import('./commands/run.js')).runCommand,
  ax: async () => (await import('./commands/ax.js')).axCommand,
  agents: async () => (await import('./commands/agents.js')).agentsCommand,
  memory: async () => (await import('./commands/memory.js')).memoryCommand,
  permissions: async () => (await import('./commands/permissions.js')).permissionsCommand,
  sessions: async () => (await import('./commands/sessions.js')).sessionsCommand,
  daemon: async () => (await import('./commands/daemon.js')).daemonCommand,
  heartbeat: async () => (await import('./commands/heartbeat.js')).heartbeatCommand,
  schedule: async () => (await import('./commands/schedule.js')).scheduleCommand,
  mcp: async () => (await import('./commands/mcp.js')).mcpCommand,
  doctor: async () => (await import('./commands/doctor.js')).doctorCommand,
  auth: async () => (await import('./commands/auth.js')).authCommand,
  trust: async () => (await import('./commands/trust.js')).trustCommand,
  changes: async () => (await import('./commands/changes.js')).changesCommand,
};

/** Every command `rein` dispatches (each has its line in HELP: tests/unit/cli/help.test.ts). */
export const COMMAND_NAMES: readonly string[] = Object.keys(COMMANDS);

/** Runs one command. Without `io`, on this process's own streams: a reader that goes away (`| head`) ends it quietly. */
export async function main(argv: string[], io?: CliIo): Promise<number> {
  if (io === undefined) {
    exitQuietlyOnClosedPipe();
    io = defaultIo();
  }
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
    const load = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
    if (load) return await (await load())(rest, io);
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
