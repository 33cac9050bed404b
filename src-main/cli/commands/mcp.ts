/**
 * `rein mcp …`: MCP in both directions. Rein as an MCP server (`serve`), and the `mcp_servers` its
 * agents use (`add`, `remove`, `import`; `list`, `tools`, `call` and `login` talk to those servers).
 * Each subcommand is its own function in SUBCOMMANDS. Exit codes: 0 ok, 1 failure, 2 bad usage (or a
 * bad field, named).
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { reinHome } from '../../core/config/paths.js';
import { isReinError, type ReinError } from '../../core/errors.js';
import { claudeDesktopConfigPath, readClaudeDesktopConfig } from '../../core/mcpServer/claudeDesktop.js';
import {
  addMcpServers,
  configTarget,
  configuredServers,
  removeMcpServer,
  type McpServerSpec,
} from '../../core/mcpServer/configEdit.js';
import { checkServe, serveHttp, serveStdio } from '../../core/mcpServer/serve.js';
import { mcpServeToken, mcpServeTokenFile } from '../../core/mcpServer/token.js';
import { UsageError, type CliIo } from '../io.js';
import { callCommand, listCommand, loginCommand, MCP_CLIENT_HELP, toolsCommand } from './mcpClient.js';

export const DEFAULT_MCP_SERVE_PORT = 7534;

export const MCP_HELP = `rein mcp — Rein's tools as an MCP server, and the MCP servers Rein's agents use

Usage:
  rein mcp serve [--agent A] [--cwd DIR] [--desk-only]   serve the agent's tools on stdio (for an MCP client to start)
  rein mcp serve --http [--port N] [--new-token] [same options]
                                                the same on http://127.0.0.1:N/mcp (default port ${DEFAULT_MCP_SERVE_PORT});
                                                prints the URL with its token
      --cwd DIR     the tools' working folder when the agent sets none (default: where it starts)
      --desk-only   never ask the client to approve a call, even if it can show forms: ask in the
                    Rein desktop app / web UI (a running daemon), or refuse
  rein mcp add NAME --command CMD [--arg A]… [--env K=V]… [--agent A] [--disabled] [--context TEXT] [--replace]
  rein mcp add NAME --command CMD [options] -- ARG…   (everything after -- is an argument)
  rein mcp add NAME --url URL [--transport http|sse] [--header 'K: V']… [--agent A] [--disabled] [--context TEXT] [--replace]
      --transport   http (default): Streamable HTTP, falling back to HTTP+SSE; sse: the legacy HTTP+SSE
                    transport only (type: sse, for a server whose URL is an event stream, e.g. …/sse)
  rein mcp remove NAME [--agent A]
  rein mcp import claude-desktop [--file PATH] [--agent A] [--dry-run]
${MCP_CLIENT_HELP}
Servers go into mcp_servers of $REIN_HOME/config.yaml, or of the agent's config.yaml with --agent;
the file is edited in place (comments kept) and checked before anything is written. See docs/mcp.md.
`;

export type McpSubcommand = (argv: string[], io: CliIo) => Promise<number>;

/** `rein mcp <name>`: each subcommand in its own function. */
export const SUBCOMMANDS: Record<string, McpSubcommand> = {
  serve: serveCommand,
  add: addCommand,
  remove: removeCommand,
  import: importCommand,
  // The MCP client side (mcpClient.ts): talk to the configured servers, or to a URL.
  list: listCommand,
  tools: toolsCommand,
  call: callCommand,
  login: loginCommand,
};

export async function mcpCommand(argv: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help') {
    io.stdout.write(MCP_HELP);
    return sub === undefined ? 2 : 0;
  }
  const run = Object.hasOwn(SUBCOMMANDS, sub) ? SUBCOMMANDS[sub] : undefined;
  if (!run) throw new UsageError(`unknown mcp command "${sub}" (use ${Object.keys(SUBCOMMANDS).join(', ')})`);
  return run(rest, io);
}

/** parseArgs' own errors as bad usage (exit 2). */
function usage<T>(parse: () => T): T {
  try {
    return parse();
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

const HELP_OPTION = { help: { type: 'boolean', short: 'h' } } as const;

const fail = (io: CliIo, code: number, message: string): number => {
  io.stderr.write(`rein: ${message}\n`);
  return code;
};

/** A ReinError as an exit code: bad input (a field, an unknown agent, a config that does not load) is 2. */
function exitFor(io: CliIo, err: unknown, flagOf: (field: string) => string = (f) => f): number {
  if (!isReinError(err)) throw err;
  const e = err as ReinError;
  const field = typeof e.details?.field === 'string' ? e.details.field : undefined;
  if (e.code === 'invalid_request' || e.code === 'invalid_input') {
    const flag = field ? flagOf(field) : undefined;
    const message =
      flag && field && e.message.startsWith(`${field}:`) ? `${flag}:${e.message.slice(field.length + 1)}` : e.message;
    return fail(io, 2, message);
  }
  if (e.code === 'agent_not_found' || e.code === 'no_api_key') return fail(io, 2, e.message);
  return fail(io, 1, e.message);
}

// ---- serve ------------------------------------------------------------------------------------------

declare const __REIN_VERSION__: string;
const VERSION = typeof __REIN_VERSION__ === 'string' ? __REIN_VERSION__ : '0.0.0-dev';

async function serveCommand(argv: string[], io: CliIo): Promise<number> {
  const { values } = usage(() =>
    parseArgs({
      args: argv,
      options: {
        ...HELP_OPTION,
        agent: { type: 'string' },
        cwd: { type: 'string' },
        http: { type: 'boolean' },
        port: { type: 'string' },
        'new-token': { type: 'boolean' },
        'desk-only': { type: 'boolean' },
      },
    }),
  );
  if (values.help) {
    io.stdout.write(MCP_HELP);
    return 0;
  }
  if (!values.http && (values.port !== undefined || values['new-token']))
    throw new UsageError('--port and --new-token go with --http');
  let port = DEFAULT_MCP_SERVE_PORT;
  if (values.port !== undefined) {
    port = Number(values.port);
    if (!/^\d+$/.test(values.port) || port > 65_535)
      throw new UsageError(`--port: "${values.port}" is not a port number (0-65535)`);
  }
  const home = reinHome(io.env);
  const opts = {
    home,
    cwd: values.cwd ? resolve(io.cwd, values.cwd) : io.cwd,
    env: io.env,
    agent: values.agent ?? 'default',
    version: VERSION,
    deskOnly: values['desk-only'] === true,
    warn: (m: string) => void io.stderr.write(`rein mcp serve: ${m}\n`),
  };
  try {
    await checkServe(opts);
  } catch (e) {
    // An unknown agent or a config.yaml that does not load: nothing to serve; say so before any client waits.
    if (isReinError(e) && ['invalid_input', 'not_found', 'agent_not_found', 'config_invalid'].includes(e.code))
      return fail(io, 2, e.message);
    return exitFor(io, e);
  }

  let stopped!: () => void;
  const stop = new Promise<void>((ok) => (stopped = ok));
  const onSignal = () => stopped();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    if (!values.http) {
      // stdout carries the protocol: nothing else may be written there.
      await serveStdio({ ...opts, stdin: io.stdin, stdout: io.stdout, stop });
      return 0;
    }
    const token = await mcpServeToken(home, { renew: values['new-token'] === true });
    let handle;
    try {
      handle = await serveHttp({ ...opts, port, token });
    } catch (e) {
      return exitFor(io, e, () => '--port');
    }
    io.stdout.write(`${handle.url}?token=${token}\n`);
    io.stderr.write(
      `rein mcp serve: agent "${opts.agent}" on ${handle.url} (Streamable HTTP, loopback only)\n` +
        `  give an MCP client the URL above, or ${handle.url} with the header Authorization: Bearer <token>\n` +
        `  the token is kept in ${mcpServeTokenFile(home)}; --new-token replaces it. Ctrl-C stops.\n`,
    );
    await stop;
    await handle.dispose();
    return 0;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

// ---- add --------------------------------------------------------------------------------------------

/** The command-line flag behind a field of a server entry (for error messages). */
function flagOfField(field: string): string {
  const last = field.split('.').at(-1) ?? field;
  const flags: Record<string, string> = {
    command: '--command',
    url: '--url',
    args: '--arg',
    env: '--env',
    headers: '--header',
    context: '--context',
    disabled: '--disabled',
    type: '--url',
    name: 'NAME',
    agent: '--agent',
  };
  return Object.hasOwn(flags, last) ? flags[last]! : field;
}

async function addCommand(argv: string[], io: CliIo): Promise<number> {
  const dd = argv.indexOf('--');
  const trailing = dd < 0 ? [] : argv.slice(dd + 1);
  const { values, positionals } = usage(() =>
    parseArgs({
      args: dd < 0 ? argv : argv.slice(0, dd),
      allowPositionals: true,
      options: {
        ...HELP_OPTION,
        agent: { type: 'string' },
        command: { type: 'string' },
        arg: { type: 'string', multiple: true },
        env: { type: 'string', multiple: true },
        url: { type: 'string' },
        transport: { type: 'string' },
        header: { type: 'string', multiple: true },
        disabled: { type: 'boolean' },
        context: { type: 'string' },
        replace: { type: 'boolean' },
      },
    }),
  );
  if (values.help) {
    io.stdout.write(MCP_HELP);
    return 0;
  }
  if (positionals.length !== 1)
    throw new UsageError(
      positionals.length === 0
        ? 'NAME: give the server a name (rein mcp add NAME --command … | --url …)'
        : `NAME: one name only, got ${positionals.join(' ')} (arguments for the command go after --, or with --arg=VALUE)`,
    );
  const name = positionals[0]!;
  const command = values.command;
  const url = values.url;
  if ((command === undefined) === (url === undefined))
    throw new UsageError('give either --command CMD (a program Rein starts) or --url URL (a Streamable HTTP server)');
  const args = [...(values.arg ?? []), ...trailing];
  const envList = values.env ?? [];
  if (url !== undefined && (args.length > 0 || envList.length > 0))
    throw new UsageError(
      `${args.length > 0 ? '--arg' : '--env'}: only a --command server takes arguments and environment variables`,
    );
  const env: Record<string, string> = {};
  for (const pair of envList) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`--env: "${pair}" is not KEY=VALUE`);
    env[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  const transport = values.transport;
  if (transport !== undefined && transport !== 'http' && transport !== 'sse')
    throw new UsageError(`--transport: "${transport}" is not http or sse`);
  if (transport !== undefined && command !== undefined)
    throw new UsageError('--transport: only a --url server has one (a --command server speaks stdio)');
  const headerList = values.header ?? [];
  if (command !== undefined && headerList.length > 0)
    throw new UsageError('--header: only a --url server sends headers');
  const headers: Record<string, string> = {};
  for (const line of headerList) {
    const colon = line.indexOf(':');
    if (colon <= 0) throw new UsageError(`--header: "${line}" is not 'Name: value'`);
    headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  const spec: McpServerSpec = {
    ...(command !== undefined ? { command } : {}),
    ...(url !== undefined ? { url } : {}),
    ...(transport === 'sse' ? { transport: 'sse' as const } : {}),
    ...(args.length > 0 ? { args } : {}),
    ...(Object.keys(env).length > 0 ? { env } : {}),
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
    ...(values.disabled ? { disabled: true } : {}),
    ...(values.context !== undefined ? { context: values.context } : {}),
  };
  const home = reinHome(io.env);
  try {
    const target = await configTarget(home, values.agent ?? 'default');
    const report = await addMcpServers(home, target, [[name, spec]], { replace: values.replace === true });
    if (report.clashes.length > 0) {
      return fail(
        io,
        1,
        `an MCP server "${name}" is already in ${report.file} with other settings; nothing was written (--replace replaces it, rein mcp remove ${name} removes it)`,
      );
    }
    if (report.same.length > 0) {
      io.stdout.write(`${name} is already in ${report.file} with these settings; nothing to do\n`);
      return 0;
    }
    io.stdout.write(
      `${report.replaced.length > 0 ? 'replaced' : 'added'} ${name} in ${report.file} (${describe(spec)})\n`,
    );
    if (report.droppedGlobal && report.droppedGlobal.length > 0) {
      io.stderr.write(
        `rein: note: agent "${target.agent}" had no mcp_servers of its own, so it used every global server; now it uses its own and the global ones marked _inherit: true, ` +
          `so it no longer gets: ${report.droppedGlobal.join(', ')}\n`,
      );
    }
    return 0;
  } catch (e) {
    return exitFor(io, e, flagOfField);
  }
}

function describe(spec: McpServerSpec): string {
  const what =
    spec.url !== undefined
      ? `${spec.transport ?? 'http'}: ${spec.url}`
      : `stdio: ${[spec.command, ...(spec.args ?? [])].join(' ')}`;
  return spec.disabled ? `${what}; disabled` : what;
}

// ---- remove -----------------------------------------------------------------------------------------

async function removeCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = usage(() =>
    parseArgs({ args: argv, allowPositionals: true, options: { ...HELP_OPTION, agent: { type: 'string' } } }),
  );
  if (values.help) {
    io.stdout.write(MCP_HELP);
    return 0;
  }
  if (positionals.length !== 1) throw new UsageError('NAME: rein mcp remove NAME [--agent A]');
  const name = positionals[0]!;
  const home = reinHome(io.env);
  const agent = values.agent ?? 'default';
  try {
    const target = await configTarget(home, agent);
    const report = await removeMcpServer(target, name);
    io.stdout.write(`removed ${name} from ${report.file}\n`);
    return 0;
  } catch (e) {
    if (isReinError(e, 'not_found') && agent !== 'default') {
      const global = await configuredServers(await configTarget(home)).catch(() => ({}));
      if (Object.hasOwn(global, name)) {
        return fail(
          io,
          1,
          `${e.message}; "${name}" is a global server (remove it without --agent, which takes it from every agent that uses it)`,
        );
      }
    }
    return exitFor(io, e, flagOfField);
  }
}

// ---- import -----------------------------------------------------------------------------------------

async function importCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = usage(() =>
    parseArgs({
      args: argv,
      allowPositionals: true,
      options: { ...HELP_OPTION, agent: { type: 'string' }, file: { type: 'string' }, 'dry-run': { type: 'boolean' } },
    }),
  );
  if (values.help) {
    io.stdout.write(MCP_HELP);
    return 0;
  }
  if (positionals.length !== 1 || positionals[0] !== 'claude-desktop') {
    throw new UsageError(
      `SOURCE: the one source is claude-desktop (rein mcp import claude-desktop [--file PATH] [--agent A] [--dry-run])${positionals.length ? `, not ${positionals.join(' ')}` : ''}`,
    );
  }
  const dryRun = values['dry-run'] === true;
  const home = reinHome(io.env);
  const file = values.file ? resolve(io.cwd, values.file) : claudeDesktopConfigPath(io.env);
  try {
    const target = await configTarget(home, values.agent ?? 'default');
    const found = await readClaudeDesktopConfig(file);
    const report = await addMcpServers(home, target, found.servers, { dryRun });
    const out: string[] = [`${dryRun ? 'Would import' : 'Imported'} from ${file} into ${report.file}:`];
    const specs = new Map(found.servers);
    for (const n of report.added) out.push(`  ${dryRun ? 'would add' : 'added'}  ${n} (${describe(specs.get(n)!)})`);
    for (const n of report.same) out.push(`  same     ${n}: already there with the same settings`);
    for (const n of report.clashes)
      out.push(
        `  clash    ${n}: already there with other settings, kept as it is (rein mcp remove ${n}, then import again, to take Claude Desktop's)`,
      );
    for (const s of found.skipped) out.push(`  skipped  ${s.name}: ${s.reason}`);
    for (const n of found.notes) out.push(`  note     ${n.name}: ${n.note}`);
    if (found.servers.length === 0 && found.skipped.length === 0) out.push('  (no servers in mcpServers)');
    out.push(
      `${report.added.length} ${dryRun ? 'to add' : 'added'}, ${report.same.length} the same, ${report.clashes.length} clashing, ${found.skipped.length} skipped${dryRun ? '; nothing was written (--dry-run)' : ''}`,
    );
    io.stdout.write(`${out.join('\n')}\n`);
    if (report.droppedGlobal && report.droppedGlobal.length > 0) {
      io.stderr.write(
        `rein: note: agent "${target.agent}" had no mcp_servers of its own, so it used every global server; now it no longer gets: ${report.droppedGlobal.join(', ')}\n`,
      );
    }
    return 0;
  } catch (e) {
    return exitFor(io, e, (f) =>
      f === 'agent' || f === 'name' ? '--agent' : f === 'file' ? '--file' : flagOfField(f),
    );
  }
}
