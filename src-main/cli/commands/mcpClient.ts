/**
 * `rein mcp list|tools|call|login`: the MCP servers an agent uses, from the command line, each in its
 * own function (mcp.ts lists them in SUBCOMMANDS).
 *
 * - `list [--agent A] [--json]`: every configured server started, with its state, tool count and
 *   what went wrong; exit 0 once the list is printed, whatever the servers' states.
 * - `tools <server|URL> [--agent A] [--json]`: a server's tools as the model sees them.
 * - `call <server|URL> <tool> [--args JSON] [--yes] [--json]`: one call; the person typing it is
 *   its approval. A question from the server is asked on the terminal (`--yes` takes the defaults;
 *   with neither it is declined). Exit 0 ok, 1 when the tool reports an error or cannot be reached.
 * - `login NAME [--agent A]`: OAuth sign-in to an http server; tokens go to
 *   `$REIN_HOME/secrets/mcp-oauth/NAME.json` (0600).
 *
 * A URL (`http://…`, `https://…`) needs no config at all: it is reached over Streamable HTTP (or the
 * legacy HTTP+SSE when the server only speaks that), and a sign-in it asks for is kept in memory for the
 * one command. It goes by the name of a configured server with that URL, else by its host
 * (`127.0.0.1:3001`). `--header 'K: V'` adds request headers.
 *
 * The person at the terminal can sign in, so a call refused with 403 `insufficient_scope` signs in again
 * with the larger scope and is tried once more.
 */
import { originFor } from '../../core/permissions/runPolicy.js';
import { parseArgs } from 'node:util';
import { resolveAgentRuntimeConfig } from '../../core/agents/index.js';
import { loadConfig } from '../../core/config/load.js';
import { storedTrust } from '../folderTrust.js';
import { reinHome } from '../../core/config/paths.js';
import type { GlobalConfig } from '../../core/config/schema.js';
import { errorMessage, isReinError } from '../../core/errors.js';
import type { McpServerStatus } from '../../core/api/mcpStatus.js';
import type { ApprovalRequest } from '../../core/api/events.js';
import type { AuthChallenge } from '../../core/mcpClient/challenge.js';
import { clientMetadataUrl } from '../../core/mcpClient/clientMetadata.js';
import {
  isUrlServer,
  urlServerName,
  type McpServerSettings,
  type ResolvedServer,
} from '../../core/mcpClient/config.js';
import { acceptDefaults, acceptValues, type Elicitor } from '../../core/mcpClient/elicitation.js';
import { McpManager } from '../../core/mcpClient/manager.js';
import { memoryTokenStore, signIn, type TokenStore } from '../../core/mcpClient/oauth.js';
import { mcpInputSchema } from '../../core/mcpClient/inputSchema.js';
import { SamplingRefused, type Sampler } from '../../core/mcpClient/sampling.js';
import { parseLenient } from '../../core/tools/lenient.js';
import { pageOpener } from '../../core/mcpClient/browser.js';
import { toToolResult, formatSize } from '../../core/mcpClient/results.js';
import type { McpServerHandle } from '../../core/mcpClient/server.js';
import { NeedsPersonError } from '../../core/mcpClient/supervisor.js';
import { signalGroup } from '../../core/process/processGroup.js';
import { browserOpener } from '../browser.js';
import { UsageError, type CliIo } from '../io.js';
import { ttyFace } from '../ttyFace.js';

const HELP = { help: { type: 'boolean', short: 'h' } } as const;

export const MCP_CLIENT_HELP = `  rein mcp list [--agent A] [--json]            the agent's servers: state, tool count, last error
  rein mcp tools SERVER|URL [--agent A] [--json] [--header 'K: V']…
                                                a server's tools (names as the model sees them)
  rein mcp call SERVER|URL TOOL [--args JSON] [--yes] [--json] [--agent A] [--header 'K: V']…
                                                call one tool (TOOL: its own name or mcp__…); --yes takes
                                                the defaults when the server asks for input
  rein mcp login NAME [--agent A]               sign in to an http server (OAuth; opens $BROWSER)
`;

function parse<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

const fail = (io: CliIo, code: number, message: string): number => {
  io.stderr.write(`rein: ${message}\n`);
  return code;
};

/** A ReinError from loading config or an agent: bad input is 2, the rest 1. */
function exitOf(io: CliIo, err: unknown): number {
  if (isReinError(err))
    return fail(
      io,
      ['config_invalid', 'invalid_input', 'agent_not_found', 'not_found', 'invalid_request'].includes(err.code) ? 2 : 1,
      err.message,
    );
  return fail(io, 1, errorMessage(err));
}

const isUrl = (s: string): boolean => /^https?:\/\//i.test(s);

function parseHeaders(list: readonly string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of list ?? []) {
    const i = h.indexOf(':');
    if (i <= 0) throw new UsageError(`--header: "${h}" is not "Name: value"`);
    out[h.slice(0, i).trim()] = h.slice(i + 1).trim();
  }
  return out;
}

async function agentServers(
  io: CliIo,
  agent: string | undefined,
): Promise<{
  home: string;
  servers: Record<string, McpServerSettings>;
  config: GlobalConfig;
  cwd: string | undefined;
}> {
  const home = reinHome(io.env);
  const { config } = await loadConfig({ home, cwd: io.cwd, ...storedTrust(io) });
  const rc = await resolveAgentRuntimeConfig(home, config, agent ?? 'default');
  return { home, servers: rc.effective.mcpServers, config, cwd: rc.cwd };
}

/** `mcp.client_metadata_url` of a config that may not load (a URL target needs none): undefined then. */
const configuredMetadataUrl = (config: GlobalConfig | undefined): string | null | undefined =>
  config?.mcp?.client_metadata_url;

/** A manager holding one server, by name from the agent's config or as an ad-hoc URL. */
async function oneServer(
  io: CliIo,
  target: string,
  values: { agent?: string | undefined; header?: string[] | undefined },
): Promise<{
  manager: McpManager;
  handle: McpServerHandle;
  home: string;
  adHoc: boolean;
  metadataUrl: string | undefined;
}> {
  const headers = parseHeaders(values.header);
  if (isUrl(target)) {
    if (values.agent !== undefined) throw new UsageError('--agent: a URL is used as it is, without any agent’s config');
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      throw new UsageError(`"${target}" is not a URL`);
    }
    // The config is only read for a name and the client ID URL: a URL works without one that loads.
    const ctx = await agentServers(io, undefined).catch(() => undefined);
    const known = ctx
      ? Object.entries(ctx.servers).find(
          ([, cfg]) => isUrlServer(cfg) && cfg.url !== undefined && sameUrl(cfg.url, url),
        )
      : undefined;
    const name = known?.[0] ?? urlServerName(url);
    const metadataUrl = clientMetadataUrl(io.env, configuredMetadataUrl(ctx?.config));
    const stores = new Map<string, TokenStore>();
    const store = (n: string) => stores.get(n) ?? stores.set(n, memoryTokenStore()).get(n)!;
    const manager = new McpManager({
      servers: {
        [name]: {
          type: known?.[1].type === 'sse' ? 'sse' : 'http',
          url: url.href,
          args: [],
          env: {},
          disabled: false,
          ...(Object.keys(headers).length > 0 ? { headers } : {}),
        },
      },
      env: io.env,
      home: reinHome(io.env),
      tokenStore: store,
      reauthorize: (n, server, challenge) => reauthorize(io, server, store(n), challenge, metadataUrl),
    });
    return { manager, handle: manager.server(name)!, home: reinHome(io.env), adHoc: true, metadataUrl };
  }
  if (Object.keys(headers).length > 0)
    throw new UsageError('--header: only for a URL; a configured server has its headers in config.yaml');
  const { home, servers, cwd, config } = await agentServers(io, values.agent);
  if (!Object.hasOwn(servers, target)) {
    const names = Object.keys(servers);
    throw new UsageError(
      `no MCP server "${target}" for agent ${values.agent ?? 'default'}${names.length > 0 ? ` (it has: ${names.join(', ')})` : ' (it has none; rein mcp add …)'}`,
    );
  }
  const metadataUrl = clientMetadataUrl(io.env, configuredMetadataUrl(config));
  const manager: McpManager = new McpManager({
    servers: { [target]: servers[target]! },
    env: io.env,
    home,
    cwd: cwd ?? io.cwd,
    reauthorize: (n, server, challenge) => reauthorize(io, server, manager.tokenStore(n), challenge, metadataUrl),
  });
  return { manager, handle: manager.server(target)!, home, adHoc: false, metadataUrl };
}

/** The same server address, however it is written (a trailing slash, the default port). */
function sameUrl(a: string, b: URL): boolean {
  try {
    const x = new URL(a);
    return x.href === b.href || x.href.replace(/\/$/, '') === b.href.replace(/\/$/, '');
  } catch {
    return false;
  }
}

/** A step-up: the server wants more scope for a call; the person signs in again with all of it. */
async function reauthorize(
  io: CliIo,
  server: ResolvedServer,
  store: TokenStore,
  challenge: AuthChallenge,
  metadataUrl: string | undefined,
): Promise<void> {
  if (server.transport.kind !== 'http') return;
  io.stderr.write(
    `rein: MCP server ${server.name} asks for more permission${challenge.scope ? ` (scope "${challenge.scope}")` : ''}; signing in again.\n`,
  );
  await signIn({
    serverUrl: server.transport.url,
    store,
    challenge,
    ...(server.oauth ? { oauth: server.oauth } : {}),
    ...(metadataUrl ? { clientMetadataUrl: metadataUrl } : {}),
    open: browserOpener(io.env, io.stderr),
  });
}

/**
 * Connects the server; an http server that asks for a sign-in gets one now (the person is at the
 * command line), then the connection is tried again.
 */
async function connect(
  io: CliIo,
  manager: McpManager,
  handle: McpServerHandle,
  metadataUrl: string | undefined,
): Promise<void> {
  let challenge: AuthChallenge | undefined;
  try {
    await handle.ensure();
    return;
  } catch (e) {
    if (!(e instanceof NeedsPersonError) || !handle.server || handle.server.transport.kind !== 'http') throw e;
    challenge = e.challenge;
  }
  io.stderr.write(`rein: MCP server ${handle.name} asks for a sign-in.\n`);
  await signIn({
    serverUrl: handle.server.transport.url,
    store: manager.tokenStore(handle.name),
    ...(handle.server.oauth ? { oauth: handle.server.oauth } : {}),
    ...(challenge ? { challenge } : {}),
    ...(metadataUrl ? { clientMetadataUrl: metadataUrl } : {}),
    open: browserOpener(io.env, io.stderr),
  });
  await handle.ensure();
}

/**
 * A reader that closes the pipe (`rein mcp tools x | head -1`) ends the process at once (closedPipe.ts),
 * skipping `dispose`: on the way out the stdio servers' process groups are signalled, so none is left.
 */
function exitGuard(manager: McpManager): () => void {
  const onExit = () => {
    for (const pid of manager.pids()) signalGroup(pid, 'SIGTERM');
  };
  process.on('exit', onExit);
  return () => void process.off('exit', onExit);
}

// ---- list -------------------------------------------------------------------------------------------

export async function listCommand(argv: string[], io: CliIo): Promise<number> {
  const { values } = parse(() =>
    parseArgs({ args: argv, options: { ...HELP, agent: { type: 'string' }, json: { type: 'boolean' } } }),
  );
  if (values.help) {
    io.stdout.write(MCP_CLIENT_HELP);
    return 0;
  }
  let ctx;
  try {
    ctx = await agentServers(io, values.agent);
  } catch (e) {
    return exitOf(io, e);
  }
  const manager = new McpManager({ servers: ctx.servers, env: io.env, home: ctx.home, cwd: ctx.cwd ?? io.cwd });
  const unguard = exitGuard(manager);
  try {
    await manager.ready();
    const statuses = manager.status();
    if (values.json) {
      io.stdout.write(`${JSON.stringify({ agent: values.agent ?? 'default', servers: statuses })}\n`);
      return 0;
    }
    if (statuses.length === 0) {
      io.stdout.write(
        `agent ${values.agent ?? 'default'} has no MCP servers (rein mcp add NAME --command … | --url …)\n`,
      );
      return 0;
    }
    const width = Math.max(...statuses.map((s) => s.name.length));
    for (const s of statuses) io.stdout.write(`${statusLine(s, width, ctx.servers[s.name]!)}\n`);
    return 0;
  } finally {
    await manager.dispose();
    unguard();
  }
}

function statusLine(s: McpServerStatus, width: number, cfg: McpServerSettings): string {
  const where = isUrlServer(cfg) ? (cfg.url ?? '') : [cfg.command ?? '', ...cfg.args].join(' ');
  const tools = s.state === 'disabled' ? '' : `${s.tools} tool${s.tools === 1 ? '' : 's'}`;
  const extra = s.sign_in_required
    ? ` — sign-in needed: rein mcp login ${s.name}`
    : s.last_error && s.state !== 'healthy'
      ? ` — ${s.last_error}`
      : '';
  return `${s.name.padEnd(width)}  ${s.type.padEnd(5)}  ${s.state.padEnd(12)}  ${tools.padEnd(9)}  ${where}${extra}`;
}

// ---- tools ------------------------------------------------------------------------------------------

export async function toolsCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(() =>
    parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        ...HELP,
        agent: { type: 'string' },
        json: { type: 'boolean' },
        header: { type: 'string', multiple: true },
      },
    }),
  );
  if (values.help) {
    io.stdout.write(MCP_CLIENT_HELP);
    return 0;
  }
  if (positionals.length !== 1) throw new UsageError('SERVER: rein mcp tools SERVER|URL [--agent A] [--json]');
  let one;
  try {
    one = await oneServer(io, positionals[0]!, values);
  } catch (e) {
    if (e instanceof UsageError) throw e;
    return exitOf(io, e);
  }
  const { manager, handle } = one;
  const unguard = exitGuard(manager);
  try {
    try {
      await connect(io, manager, handle, one.metadataUrl);
    } catch (e) {
      return fail(
        io,
        1,
        `cannot reach MCP server ${handle.name}${one.adHoc ? ` (${positionals[0]})` : ''}: ${errorMessage(e)}`,
      );
    }
    const tools = await handle.tools();
    const defs = new Map(handle.definitions.map((d) => [d.name, d]));
    const rows = tools.map((t) => {
      const own = t.traits?.mcp?.tool ?? t.name;
      const def = defs.get(own);
      return {
        name: t.name,
        tool: own,
        ...(def?.title ? { title: def.title } : {}),
        description: t.description,
        input_schema: def?.inputSchema ?? {},
        annotations: def?.annotations ?? {},
      };
    });
    if (values.json) {
      io.stdout.write(`${JSON.stringify(rows)}\n`);
      return 0;
    }
    if (rows.length === 0) io.stdout.write('(no tools)\n');
    for (const r of rows) {
      const flags = [
        r.annotations.readOnlyHint ? 'read-only' : undefined,
        r.annotations.destructiveHint && !r.annotations.readOnlyHint ? 'destructive' : undefined,
      ].filter(Boolean);
      const first = r.description.split('\n')[0]!.trim();
      // The server's own name too when the registry's had to change it (characters, length).
      io.stdout.write(
        `${r.name}${r.name.endsWith(`__${r.tool}`) ? '' : ` (${r.tool})`}${flags.length > 0 ? `  [${flags.join(', ')}]` : ''}\n    ${first}\n`,
      );
    }
    return 0;
  } finally {
    await manager.dispose();
    unguard();
  }
}

// ---- call -------------------------------------------------------------------------------------------

export async function callCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(() =>
    parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        ...HELP,
        agent: { type: 'string' },
        json: { type: 'boolean' },
        args: { type: 'string' },
        yes: { type: 'boolean', short: 'y' },
        header: { type: 'string', multiple: true },
      },
    }),
  );
  if (values.help) {
    io.stdout.write(MCP_CLIENT_HELP);
    return 0;
  }
  if (positionals.length !== 2)
    throw new UsageError('SERVER TOOL: rein mcp call SERVER|URL TOOL [--args JSON] [--yes] [--json]');
  const [target, toolName] = positionals as [string, string];
  let args: Record<string, unknown> = {};
  if (values.args !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(values.args);
    } catch (e) {
      throw new UsageError(`--args: not JSON: ${(e as Error).message}`);
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
      throw new UsageError('--args: must be a JSON object ({"name": value, …})');
    args = parsed as Record<string, unknown>;
  }
  let one;
  try {
    one = await oneServer(io, target, values);
  } catch (e) {
    if (e instanceof UsageError) throw e;
    return exitOf(io, e);
  }
  const { manager, handle } = one;
  const controller = new AbortController();
  const onSigint = () => controller.abort(new Error('interrupted'));
  process.on('SIGINT', onSigint);
  const unguard = exitGuard(manager);
  try {
    try {
      await connect(io, manager, handle, one.metadataUrl);
    } catch (e) {
      return fail(
        io,
        1,
        `cannot reach MCP server ${handle.name}${one.adHoc ? ` (${target})` : ''}: ${errorMessage(e)}`,
      );
    }
    const tools = await handle.tools();
    const tool = tools.find((t) => t.name === toolName) ?? tools.find((t) => t.traits?.mcp?.tool === toolName);
    if (!tool)
      return fail(
        io,
        1,
        `MCP server ${handle.name} has no tool "${toolName}" (it has: ${tools.map((t) => t.traits?.mcp?.tool ?? t.name).join(', ') || 'none'})`,
      );
    const own = tool.traits?.mcp?.tool ?? tool.name;
    // As in a run: `"3"` becomes 3 where the tool's schema asks for a number; input that does not fit
    // (a required field missing) is refused here, as the server would (exit 1, like its refusal).
    const def = handle.definitions.find((d) => d.name === own);
    const parsed = parseLenient(mcpInputSchema(def?.inputSchema), args);
    if (!parsed.ok) return fail(io, 1, `--args: invalid input for ${own}: ${parsed.error}`);
    args = parsed.value;
    const elicitor = cliElicitor(io, values.yes === true, handle.name, tool.name);
    let result;
    try {
      result = await handle.callRaw(own, args, {
        signal: controller.signal,
        elicitor,
        sampler: cliSampler(values.yes === true),
        registryName: tool.name,
      });
    } catch (e) {
      return fail(io, 1, `${own} failed: ${errorMessage(e)}`);
    }
    if (values.json) io.stdout.write(`${JSON.stringify(result)}\n`);
    else {
      const shown = toToolResult(result);
      const text = shown.ok ? shown.content : shown.content.replace(/^\[business error\] /, '');
      if (text) io.stdout.write(`${text}\n`);
      for (const img of shown.images ?? [])
        io.stdout.write(`[image: ${img.mediaType}, ${formatSize(Math.floor((img.data.length * 3) / 4))}]\n`);
    }
    if (result.isError === true) {
      if (values.json) io.stderr.write(`rein: ${own} reported an error\n`);
      return 1;
    }
    return 0;
  } finally {
    process.off('SIGINT', onSigint);
    await manager.dispose();
    unguard();
  }
}

/**
 * `rein mcp call` runs no model, so a server's sampling request cannot be answered, whatever `--yes` says;
 * the server hears why (in `rein run` the run's model answers, after the person allows it).
 */
function cliSampler(yes: boolean): Sampler {
  return async () => {
    throw new SamplingRefused(
      `rein mcp call has no model to answer with${yes ? ' (--yes approves questions, but there is no model to ask)' : ''}; sampling is answered in rein run`,
    );
  };
}

/**
 * The person at the terminal answers the server's questions, as in `rein run`: a form field by field; a
 * page to open (URL mode) is shown with its whole address and opened in the browser ($BROWSER first)
 * only when the person allows it — `--yes` never opens one, and without a terminal it is declined. A
 * form under `--yes` takes its defaults; without a terminal it is declined.
 */
function cliElicitor(io: CliIo, yes: boolean, server: string, tool: string): Elicitor {
  return async (req, signal) => {
    if (req.url !== undefined) return askToOpen(io, yes, server, tool, req, signal);
    if (yes) {
      const defaults = acceptDefaults(req);
      if (defaults) return defaults;
      io.stderr.write(
        `rein: ${server} asks for input that has no defaults for every required field; --yes cannot answer it, so it is declined\n`,
      );
      return { action: 'decline' };
    }
    if (!io.stdin.isTTY) {
      io.stderr.write(
        `rein: ${server} asks for input ("${req.message}"), but there is no terminal to ask on; declined (--yes takes the defaults)\n`,
      );
      return { action: 'decline' };
    }
    const request: ApprovalRequest = {
      ...terminalQuestion(tool, req.input),
      summary: `${server} asks: ${req.message.replace(/\s+/g, ' ').trim()}`,
      reason: `the MCP server ${server} asks for input while ${tool} runs`,
      risk_explanation: `what you fill in is sent to the MCP server ${server}`,
      form: { message: req.message, schema: req.schema },
    };
    const answer = await ttyFace({ input: io.stdin, output: io.stderr }).ask(request, signal);
    if (answer.decision === 'deny') return { action: 'decline' };
    const { answer: out, problems } = acceptValues(req, answer.values);
    if (problems.length > 0)
      io.stderr.write(`rein: the answers do not fit the form (${problems.join('; ')}); declined\n`);
    return out;
  };
}

/** What every question a server asks during `rein mcp call` carries: the person at this terminal answers it. */
function terminalQuestion(tool: string, input: unknown) {
  return {
    request_id: 'apr_cli',
    session_id: 'cli',
    agent: 'default',
    route: 'cli',
    source: 'cli',
    origin: originFor('cli', 'cli'),
    tool,
    input,
    layer: 'elicitation',
    risk: 'medium',
    asked_at: new Date().toISOString(),
  } satisfies Partial<ApprovalRequest>;
}

/** A server asks the person to open a page: show it, ask, open it only on a yes. */
async function askToOpen(
  io: CliIo,
  yes: boolean,
  server: string,
  tool: string,
  req: Parameters<Elicitor>[0],
  signal: AbortSignal,
): Promise<Awaited<ReturnType<Elicitor>>> {
  let url: URL;
  try {
    url = new URL(req.url!);
  } catch {
    io.stderr.write(`rein: ${server} asks you to open "${req.url}", which is not an address; declined\n`);
    return { action: 'decline' };
  }
  const said = req.message.replace(/\s+/g, ' ').trim();
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    io.stderr.write(`rein: ${server} asks you to open ${url.href} (only http and https pages are opened); declined\n`);
    return { action: 'decline' };
  }
  if (!io.stdin.isTTY) {
    io.stderr.write(
      `rein: ${server} asks you to open ${url.href}${said ? ` ("${said}")` : ''}, but there is no terminal to ask on; declined${yes ? ' (--yes never opens a page)' : ''}\n`,
    );
    return { action: 'decline' };
  }
  const request: ApprovalRequest = {
    ...terminalQuestion(tool, req.input),
    summary: `${server} asks you to open ${url.href}`,
    reason: `the MCP server ${server} wants a page opened in your browser while ${tool} runs${said ? `: ${said}` : ''}`,
    risk_explanation: `the page is the MCP server's choice (${url.host}): check its address before you allow it`,
  };
  const answer = await ttyFace({ input: io.stdin, output: io.stderr }).ask(request, signal);
  if (answer.decision === 'deny')
    return ['timeout', 'cancelled', 'withdrawn', 'error'].includes(answer.by)
      ? { action: 'cancel' }
      : { action: 'decline' };
  try {
    await pageOpener(io.env, io.stderr)(url);
  } catch {
    return { action: 'cancel' };
  }
  return { action: 'accept', content: {} };
}

// ---- login ------------------------------------------------------------------------------------------

export async function loginCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(() =>
    parseArgs({ args: argv, allowPositionals: true, options: { ...HELP, agent: { type: 'string' } } }),
  );
  if (values.help) {
    io.stdout.write(MCP_CLIENT_HELP);
    return 0;
  }
  if (positionals.length !== 1) throw new UsageError('NAME: rein mcp login NAME [--agent A]');
  const name = positionals[0]!;
  if (isUrl(name))
    throw new UsageError(
      'NAME: sign in to a configured server by its name (a URL signs in by itself with rein mcp tools|call URL)',
    );
  let one;
  try {
    one = await oneServer(io, name, values);
  } catch (e) {
    if (e instanceof UsageError) throw e;
    return exitOf(io, e);
  }
  const { manager, handle } = one;
  try {
    const server = handle.server;
    if (!server) return fail(io, 2, (handle.status().last_error ?? `MCP server ${name} cannot be used`) + '');
    if (server.transport.kind !== 'http')
      return fail(
        io,
        2,
        `MCP server ${name} is a stdio server: it has nothing to sign in to (its credentials go in env)`,
      );
    const store = manager.tokenStore(name);
    try {
      await signIn({
        serverUrl: server.transport.url,
        store,
        ...(server.oauth ? { oauth: server.oauth } : {}),
        ...(one.metadataUrl ? { clientMetadataUrl: one.metadataUrl } : {}),
        open: browserOpener(io.env, io.stderr),
        fresh: true,
      });
    } catch (e) {
      return fail(io, 1, `sign-in to ${name} failed: ${errorMessage(e)}`);
    }
    try {
      await handle.ensure();
    } catch (e) {
      return fail(io, 1, `signed in to ${name}, but it still cannot be reached: ${errorMessage(e)}`);
    }
    io.stdout.write(`signed in to ${name} (${(await handle.tools()).length} tools); tokens saved in ${store.where}\n`);
    return 0;
  } finally {
    await manager.dispose();
  }
}
