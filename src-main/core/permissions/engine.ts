/**
 * The permission engine: one PermissionPolicy per agent runtime. It routes each call to its layer rules
 * (bash → shell analysis and layers 1–4; file tools → path rules; http → egress rules; anything else →
 * the tool's own read-only flag), then applies mode, source and flags. No model is ever consulted.
 */
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { PermissionsConfig, type PermissionMode } from '../config/schema.js';
import { ReinError } from '../errors.js';
import { UNATTENDED_SOURCES, type RunOrigin } from '../api/patterns.js';
import type { Tool } from '../tools/tool.js';
import { checkCommandLine } from './commandRules.js';
import { classifyUrl } from './egress.js';
import { DEFAULT_DAEMON_PORT, reinPorts, shellReinGuard } from './reinGuards.js';
import { checkFileAccess, FILE_WRITE_TOOLS, isFileTool } from './fileRules.js';
import { applyMode, type LayerVerdict } from './modes.js';
import { drivesGui } from '../tools/traits.js';
import { riskOf } from './risk.js';
import { initShellParser, isShellParserReady } from './shell/parser.js';
import type { PermissionCheck, PermissionDecision, PermissionPolicy } from './types.js';
import { persistencePlace } from './shell/normalize.js';

export type PermissionsInput = z.input<typeof PermissionsConfig>;

export interface EngineOptions {
  /** The permissions block, global merged with the agent's (defaults filled in). */
  permissions: PermissionsInput;
  /** The agent's own block, when the caller has not merged it: its lists are added to the global ones. */
  agentPermissions?: Partial<PermissionsInput>;
  home: string;
  /** REIN_HOME (default ~/.rein): its settings files count as sensitive. */
  reinHome?: string;
  /** The agent's auto_approve: asks become allows (never past hard blocks or denied_commands, never writes in plan mode). */
  autoApprove?: boolean;
  /** The --yes flag: same effect as autoApprove. */
  yes?: boolean;
  /** Each MCP server's `always_allow` list (the server's own tool names, or `mcp__…` names), by server. */
  mcpAlwaysAllow?: Readonly<Record<string, readonly string[]>>;
  /**
   * The ports Rein's daemon is configured to listen on (`daemon.port`; default 7533). Tools may not reach
   * them on this machine; the port in `$REIN_HOME/daemon.json` (a daemon running now) is added at each check.
   */
  reinPorts?: readonly number[];
  /** Paths compare case-insensitively (default: as this platform's volumes do — macOS and Windows yes, Linux no). */
  caseInsensitivePaths?: boolean;
}

/** The settings an engine decides with, after merging and validation. */
export interface EngineSettings {
  permissions: PermissionsConfig;
  home: string;
  reinHome: string;
  autoApprove: boolean;
  /** Each MCP server's `always_allow` list, by server (absent: none). */
  mcpAlwaysAllow?: Readonly<Record<string, readonly string[]>>;
  /** Configured daemon ports (the running daemon's is read from daemon.json when a call is checked). */
  reinPorts: readonly number[];
  caseInsensitivePaths?: boolean;
}

type PermissionsConfig = z.infer<typeof PermissionsConfig>;

const LIST_KEYS = [
  'allowed_commands',
  'denied_commands',
  'allowed_dirs',
  'sensitive_patterns',
  'network_allowlist',
  'always_allow_tools',
  'gui_unattended',
] as const;

function parsePermissions(input: unknown, where: string): PermissionsConfig {
  const r = PermissionsConfig.safeParse(input ?? {});
  if (!r.success) {
    const issue = r.error.issues[0]!;
    const field = ['permissions', ...issue.path.map(String)].join('.');
    throw new ReinError('config_invalid', `${where}: ${field}: ${issue.message}`, { field });
  }
  return r.data;
}

export function resolveEngineSettings(opts: EngineOptions): EngineSettings {
  const base = parsePermissions(opts.permissions, 'permission settings');
  const merged: PermissionsConfig = { ...base };
  if (opts.agentPermissions) {
    const agent = PermissionsConfig.partial().safeParse(opts.agentPermissions);
    if (!agent.success) {
      const issue = agent.error.issues[0]!;
      const field = ['permissions', ...issue.path.map(String)].join('.');
      throw new ReinError('config_invalid', `agent permission settings: ${field}: ${issue.message}`, { field });
    }
    for (const key of LIST_KEYS) {
      const extra = agent.data[key];
      if (extra) merged[key] = [...new Set([...base[key], ...extra])];
    }
  }
  if (!opts.home) throw new ReinError('invalid_input', 'the permission engine needs the home folder');
  return {
    permissions: merged,
    home: path.resolve(opts.home),
    reinHome: path.resolve(opts.reinHome ?? path.join(opts.home, '.rein')),
    autoApprove: opts.autoApprove === true || opts.yes === true,
    ...(opts.mcpAlwaysAllow ? { mcpAlwaysAllow: { ...opts.mcpAlwaysAllow } } : {}),
    reinPorts: [...(opts.reinPorts ?? [DEFAULT_DAEMON_PORT])],
    ...(opts.caseInsensitivePaths !== undefined ? { caseInsensitivePaths: opts.caseInsensitivePaths } : {}),
  };
}

/** A hard block that keeps a run from acting as Rein (reinGuards.ts): final in every mode. */
function reinHardBlock(rule: 'rein-secrets' | 'rein-daemon', reason: string): LayerVerdict {
  return {
    decision: 'deny',
    layer: 'hard_block',
    reason: `hard block "${rule}": ${reason}`,
    readOnly: false,
    final: true,
    ...riskOf('high', rule === 'rein-secrets' ? "would expose or change Rein's own credentials" : "would use Rein's own API, which only a person may"),
  };
}

function safely<T>(fn: () => T, fallback: T): T {
  try {
    return fn();
  } catch {
    return fallback;
  }
}

const field = (input: unknown, key: string): unknown =>
  input && typeof input === 'object' ? (input as Record<string, unknown>)[key] : undefined;

/** The verdict of layers 1–5 for one call, before mode, source and flags. */
export function layerVerdict(call: PermissionCheck, s: EngineSettings): LayerVerdict {
  const { tool, input, cwd } = call;
  const p = s.permissions;
  const sensitivity = { home: s.home, reinHome: s.reinHome, extraPatterns: p.sensitive_patterns };

  if (tool.name === 'bash') {
    const command = field(input, 'command');
    if (typeof command !== 'string') {
      return { decision: 'deny', layer: 'tool', reason: 'bash needs a "command" string', readOnly: false, final: true, ...riskOf('low', 'nothing to run') };
    }
    const v = checkCommandLine(command, {
      ...sensitivity,
      cwd,
      allowedCommands: p.allowed_commands,
      deniedCommands: p.denied_commands,
      ...(s.caseInsensitivePaths !== undefined ? { caseInsensitive: s.caseInsensitivePaths } : {}),
    });
    // Rein's secrets and Rein's daemon, wherever the line names them (reinGuards.ts).
    if (v.decision !== 'deny' && v.analysis) {
      const guard = shellReinGuard(v.analysis, { home: s.home, cwd, reinHome: s.reinHome, ports: reinPorts(s.reinHome, s.reinPorts) });
      if (guard) return reinHardBlock(guard.rule, guard.reason);
    }
    return {
      decision: v.decision,
      layer: v.layer,
      reason: v.reason,
      readOnly: v.readOnly,
      final: v.decision === 'deny',
      risk: v.risk,
      riskExplanation: v.riskExplanation,
      ...(v.persistence ? { persistence: v.persistence } : {}),
    };
  }

  if (isFileTool(tool.name)) {
    const v = checkFileAccess(tool.name, input, { ...sensitivity, cwd, allowedDirs: p.allowed_dirs });
    if (v.reinSecret) return reinHardBlock('rein-secrets', `${tool.name} ${v.reason}`);
    const write = FILE_WRITE_TOOLS.has(tool.name);
    // A write to where programs start by themselves (shell rc files, LaunchAgents, crontab…) is never
    // "an edit in the work area", whatever the working folder: only bypassPermissions approves it unasked.
    const target = field(input, 'path');
    const persistent = write && typeof target === 'string' ? persistencePlace(target, { home: s.home, cwd }) : undefined;
    if (persistent && v.decision !== 'deny') {
      return {
        decision: 'ask',
        layer: 'tool',
        reason: `${tool.name} writes ${persistent.path}, ${persistent.what}: what is written there runs by itself later`,
        readOnly: false,
        final: false,
        persistence: persistent.kind,
        ...riskOf('high', `changes ${persistent.what}, which runs programs without being asked`),
      };
    }
    const risk = v.sensitive
      ? riskOf(write ? 'high' : 'medium', write ? 'changes a file that may hold secrets' : 'reads a file that may hold secrets')
      : write
        ? v.insideWorkArea
          ? riskOf('medium', 'changes a file inside the working folder')
          : riskOf('high', 'changes a file outside the working folder')
        : riskOf('low', 'only reads');
    return {
      decision: v.decision,
      layer: 'tool',
      reason: `${tool.name} ${v.reason}`,
      readOnly: !write,
      final: v.decision === 'deny',
      editInWorkArea: write && v.insideWorkArea && !v.sensitive,
      ...risk,
    };
  }

  if (tool.name === 'http') {
    const method = String(field(input, 'method') ?? 'GET').toUpperCase();
    const v = classifyUrl(field(input, 'url'), p.network_allowlist, { reinPorts: reinPorts(s.reinHome, s.reinPorts) });
    if (v.reinDaemon) return reinHardBlock('rein-daemon', `http ${method}: ${v.reason}`);
    const readOnly = safely(() => tool.isReadOnly(input), ['GET', 'HEAD', 'OPTIONS'].includes(method));
    const risk =
      v.decision === 'deny'
        ? riskOf('low', 'the request cannot be made')
        : v.reason.includes('loopback')
          ? riskOf('low', 'talks to this computer only')
          : readOnly
            ? riskOf(v.decision === 'allow' ? 'low' : 'medium', `fetches from ${v.host ?? 'the network'}`)
            : riskOf('medium', `sends a ${method} request to ${v.host ?? 'the network'}`);
    return { decision: v.decision, layer: 'tool', reason: `http ${method}: ${v.reason}`, readOnly, final: v.decision === 'deny', ...risk };
  }

  if (tool.source === 'mcp') return mcpVerdict(call, s);

  const readOnly = safely(() => tool.isReadOnly(input), false);
  const destructive = safely(() => tool.isDestructive(input), false);
  const gui = drivesGui(tool.traits);
  const risk = destructive
    ? riskOf('high', `${tool.name} reports this call as destructive`)
    : gui
      ? riskOf('medium', tool.name === 'screenshot' ? 'captures the screen' : 'controls the screen and other apps')
      : readOnly
        ? riskOf('low', 'only reads')
        : riskOf('medium', `${tool.name} may change something`);
  return readOnly
    ? { decision: 'allow', layer: 'tool', reason: `${tool.name} reports this call as read-only`, readOnly, ...risk }
    : { decision: 'ask', layer: 'tool', reason: `${tool.name} may change something`, readOnly, ...risk };
}

/**
 * A tool of an MCP server. Its annotations are the server's word, not something Rein can check, so
 * an MCP call asks by default, whatever it says about itself. It runs without asking when the server's
 * `always_allow` lists it (or `permissions.always_allow_tools`, applied by applyMode). `readOnlyHint`
 * makes it asked less: such a call is read-only for plan mode (which lets it be asked rather than
 * refusing it), low risk, and acceptEdits mode runs it without asking. `destructiveHint` makes it high
 * risk. docs/mcp.md, *Permissions*, has the table.
 */
function mcpVerdict(call: PermissionCheck, s: EngineSettings): LayerVerdict {
  const { tool, input } = call;
  const readOnly = safely(() => tool.isReadOnly(input), false);
  const destructive = !readOnly && safely(() => tool.isDestructive(input), false);
  const facts = tool.traits?.mcp;
  const server = facts?.server ?? 'its server';
  const risk = destructive
    ? riskOf('high', `the MCP server ${server} says ${tool.name} may delete or overwrite things`)
    : readOnly
      ? riskOf('low', `the MCP server ${server} says ${tool.name} only reads`)
      : riskOf('medium', `${tool.name} is run by the MCP server ${server} and may change something`);
  const listed = facts !== undefined && (s.mcpAlwaysAllow?.[facts.server] ?? []).some((n) => n === facts.tool || n === tool.name);
  if (listed) return { decision: 'allow', layer: 'mcp_always_allow', reason: `${tool.name} is in mcp_servers.${server}.always_allow`, readOnly, ...risk };
  if (readOnly && call.mode === 'acceptEdits') {
    return { decision: 'allow', layer: 'mode', reason: `acceptEdits mode runs MCP tools their server marks read-only (${tool.name})`, readOnly, ...risk };
  }
  const why = destructive ? 'its server marks it destructive' : readOnly ? 'its server marks it read-only, which Rein cannot check' : 'it may change something';
  return { decision: 'ask', layer: 'mcp', reason: `${tool.name} is an MCP tool (${why}); MCP tools ask unless mcp_servers.${server}.always_allow or always_allow_tools lists them`, readOnly, ...risk };
}

/** Decides one call synchronously; the shell parser must be initialised for bash calls. */
export function decide(call: PermissionCheck, s: EngineSettings): PermissionDecision {
  const verdict = layerVerdict(call, s);
  return applyMode(verdict, {
    mode: call.mode,
    source: call.source,
    origin: call.origin,
    tool: call.tool.name,
    gui: drivesGui(call.tool.traits),
    alwaysAllowTools: s.permissions.always_allow_tools,
    guiUnattended: s.permissions.gui_unattended,
    autoApprove: s.autoApprove,
  });
}

export interface PermissionEngine extends PermissionPolicy {
  readonly settings: EngineSettings;
}

export function createPermissionEngine(opts: EngineOptions): PermissionEngine {
  const settings = resolveEngineSettings(opts);
  return {
    settings,
    check(call: PermissionCheck): PermissionDecision | Promise<PermissionDecision> {
      if (call.tool.name === 'bash' && !isShellParserReady()) return initShellParser().then(() => decide(call, settings));
      return decide(call, settings);
    },
  };
}

/**
 * The GUI tools a person may ask `rein permissions check --tool NAME` about while they are not
 * registered (the GUI bridge is not running): their stand-ins answer as the real tools will. Only
 * stand-ins are judged by name; a registered tool is a GUI tool because its traits say so.
 */
const GUI_STAND_IN_NAMES: ReadonlySet<string> = new Set(['accessibility', 'computer', 'computer_use', 'applescript', 'screenshot']);

/** A stand-in for a tool the caller only knows by name (`rein permissions check --tool T`). */
export function toolByName(name: string): Tool {
  return {
    name,
    description: '',
    source: 'local',
    input: z.unknown(),
    isReadOnly: () => false,
    isDestructive: () => false,
    ...(GUI_STAND_IN_NAMES.has(name) ? { traits: { drivesGui: true } } : {}),
    call: async () => ({ ok: false, content: 'not callable' }),
  };
}

export interface ToolCallQuery {
  /** The registered tool, or just its name. */
  tool: Tool | string;
  input: unknown;
  cwd?: string;
  mode?: PermissionMode;
  source?: string;
  /** Default: unattended for schedule, heartbeat and watcher sources, else attended. */
  origin?: RunOrigin;
  agent?: string;
  permissions?: PermissionsInput;
  agentPermissions?: Partial<PermissionsInput>;
  home?: string;
  reinHome?: string;
  autoApprove?: boolean;
  yes?: boolean;
  /** Rein's daemon ports (default 7533; a running daemon's port is read from daemon.json). */
  reinPorts?: readonly number[];
}

/**
 * One decision without running anything — for `rein permissions check` and for tests. Mode defaults to
 * `permissions.mode`, source to `cli`, cwd to the process's working folder.
 */
export async function checkToolCall(q: ToolCallQuery): Promise<PermissionDecision> {
  const home = q.home ?? os.homedir();
  const engine = createPermissionEngine({
    permissions: q.permissions ?? {},
    ...(q.agentPermissions ? { agentPermissions: q.agentPermissions } : {}),
    home,
    ...(q.reinHome ? { reinHome: q.reinHome } : {}),
    autoApprove: q.autoApprove === true,
    yes: q.yes === true,
    ...(q.reinPorts ? { reinPorts: q.reinPorts } : {}),
  });
  await initShellParser();
  const tool = typeof q.tool === 'string' ? toolByName(q.tool) : q.tool;
  return engine.check({
    tool,
    input: q.input,
    cwd: path.resolve(q.cwd ?? process.cwd()),
    mode: q.mode ?? engine.settings.permissions.mode,
    source: q.source ?? 'cli',
    origin: q.origin ?? (UNATTENDED_SOURCES.has(q.source ?? 'cli') ? 'unattended' : 'attended'),
    agent: q.agent ?? 'default',
  });
}

/** Human-readable lines for a decision (what `rein permissions check` prints without --json). */
export function explainDecision(d: PermissionDecision): string {
  return [`${d.decision}`, `  layer:  ${d.layer}`, `  reason: ${d.reason}`, `  risk:   ${d.risk} — ${d.riskExplanation}`].join('\n');
}
