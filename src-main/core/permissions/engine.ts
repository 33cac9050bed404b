/**
 * The permission engine: one PermissionPolicy per agent runtime. It routes each call to its layer rules by
 * what the tool declares of itself (tools/traits.ts), never by its name: a `command` (shell) tool → shell
 * analysis and layers 1–4; a tool with `paths` → path rules; one with `egress` → egress rules; an MCP tool →
 * its server's word and lists; anything else → the tool's own read-only flag. Then it applies mode, source
 * and flags. No model is ever consulted.
 */
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { PermissionsConfig, type GrantEntry, type PermissionMode } from '../config/schema.js';
import { ReinError } from '../errors.js';
import type { RunOrigin } from '../api/patterns.js';
import { originOfSource } from './runPolicy.js';
import type { Tool } from '../tools/tool.js';
import { checkCommandLine, plantedPayload } from './commandRules.js';
import { classifyUrl } from './egress.js';
import { DEFAULT_DAEMON_PORT, reinPorts, shellReinGuard } from './reinGuards.js';
import { reinSecretReason } from '../secrets/reinSecrets.js';
import { realpathLoose } from '../util/realpath.js';
import { checkFileAccess, expandHome, resolveToolPath, toolPath } from './fileRules.js';
import { bashGrant, describeGrant, exactGrant, grantKey, pathGrant } from './grants.js';
import { applyMode, type LayerVerdict } from './modes.js';
import { GUI_STAND_IN_TRAITS, guiGrantTarget, guiVerdict } from './guiRules.js';
import { drivesGui, type PathsTrait, type ToolTraits } from '../tools/traits.js';
import { BUILTIN_TRAITS, SHELL_STAND_IN } from '../tools/builtin/builtinTraits.js';
import { riskOf } from './risk.js';
import { initShellParser, isShellParserReady } from './shell/parser.js';
import type { PermissionCheck, PermissionDecision, PermissionPolicy } from './types.js';
import { persistencePlace, type PathContext } from './shell/normalize.js';
import type { ShellAnalysis } from './shell/types.js';
import { protectedPlace, type ProtectedPlaceContext } from './protectedPlaces.js';

const placeCtx = (s: EngineSettings): ProtectedPlaceContext => ({
  home: s.home,
  reinHome: s.reinHome,
  env: process.env,
});

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
  /** The canonical keys of the saved "Always allow" grants (permissions.grants, paths made absolute). */
  grantKeys: ReadonlySet<string>;
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
    grantKeys: new Set(merged.grants.map((g) => grantKey(normalGrant(g, path.resolve(opts.home))))),
  };
}

/** A saved grant as the engine would make it: `~` expanded, paths absolute and resolved. */
function normalGrant(g: GrantEntry, home: string): GrantEntry {
  const abs = (p: string) => path.resolve(expandHome(p, home));
  return {
    ...g,
    ...(g.cwd !== undefined ? { cwd: abs(g.cwd) } : {}),
    ...(g.path !== undefined ? { path: realpathLoose(abs(g.path)) } : {}),
    ...(g.scripts !== undefined
      ? { scripts: Object.fromEntries(Object.entries(g.scripts).map(([k, v]) => [abs(k), v])) }
      : {}),
    ...(g.method !== undefined ? { method: g.method.toUpperCase() } : {}),
    ...(g.host !== undefined ? { host: g.host.toLowerCase() } : {}),
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
    ...riskOf(
      'high',
      rule === 'rein-secrets'
        ? "would expose or change Rein's own credentials"
        : "would use Rein's own API, which only a person may",
    ),
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

/** The verdict of layers 1–5 for one call, before mode, source and flags, with what a grant on it would cover. */
export function layerVerdict(call: PermissionCheck, s: EngineSettings): LayerVerdict {
  const v = toolVerdict(call, s);
  return v.grant !== undefined ? v : { ...v, grant: grantOf(call, s, v) };
}

/**
 * What a grant on this call covers (grants.ts): nothing beyond the call for protected and persistence
 * places and for tools that change Rein's own state; one path for file tools; one method and host for
 * http; one app for GUI tools (else the exact call); the tool for everything else.
 */
function grantOf(call: PermissionCheck, s: EngineSettings, v: LayerVerdict): GrantEntry | null {
  const { tool, input } = call;
  if (v.protected || v.persistence || v.decision === 'deny' || tool.traits?.changesReinState) return null;
  const paths = ruleTraits(tool)?.paths;
  if (paths) {
    const raw = toolPath(paths, input);
    return raw === undefined ? null : pathGrant(tool.name, resolveToolPath(raw, call.cwd, s.home).real);
  }
  const egress = ruleTraits(tool)?.egress;
  if (egress) {
    try {
      const url = new URL(String(field(input, egress.urlField)));
      return { tool: tool.name, method: methodOf(egress.methodField, input), host: url.host.toLowerCase() };
    } catch {
      return null;
    }
  }
  if (drivesGui(tool.traits)) {
    const app = guiGrantTarget(tool.name, tool.traits, input);
    return app ? { tool: tool.name, app } : exactGrant(tool.name, input);
  }
  return { tool: tool.name };
}

/**
 * The traits the engine's rules read. An MCP tool's are Rein's record of its server's word (no command, paths
 * or egress: mcpVerdict). A local tool that declares none of its own (a tool double, a tool made outside the
 * built-in list under a built-in's name) is judged as the built-in of that name, as it always was: the
 * built-ins themselves carry their traits.
 */
function ruleTraits(tool: Tool): ToolTraits | undefined {
  if (tool.source === 'mcp') return undefined;
  return tool.traits ?? BUILTIN_TRAITS.get(tool.name);
}

const methodOf = (methodField: string | undefined, input: unknown): string =>
  String((methodField !== undefined ? field(input, methodField) : undefined) ?? 'GET').toUpperCase();

/** The first of a write's text fields that holds text. */
function textOf(paths: PathsTrait, input: unknown): string | undefined {
  for (const f of paths.textFields ?? []) {
    const v = field(input, f);
    if (typeof v === 'string') return v;
  }
  return undefined;
}

function toolVerdict(call: PermissionCheck, s: EngineSettings): LayerVerdict {
  const { tool, input, cwd } = call;
  const p = s.permissions;
  const sensitivity = { home: s.home, reinHome: s.reinHome, extraPatterns: p.sensitive_patterns };

  // An MCP tool's traits are Rein's record of the server's word (mcpVerdict); it has no command, paths or egress.
  if (tool.source === 'mcp') return mcpVerdict(call, s);

  const shell = ruleTraits(tool)?.command;
  if (shell) {
    const command = field(input, shell.field);
    if (typeof command !== 'string') {
      return {
        decision: 'deny',
        layer: 'tool',
        reason: `${tool.name} needs a "${shell.field}" string`,
        readOnly: false,
        final: true,
        ...riskOf('low', 'nothing to run'),
      };
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
      const guard = shellReinGuard(v.analysis, {
        home: s.home,
        cwd,
        reinHome: s.reinHome,
        ports: reinPorts(s.reinHome, s.reinPorts),
      });
      if (guard) return reinHardBlock(guard.rule, guard.reason);
    }
    return {
      decision: v.decision,
      layer: v.layer,
      reason: v.reason,
      readOnly: v.readOnly,
      final: v.decision === 'deny',
      risk: v.protected ? 'high' : v.risk,
      riskExplanation: v.protected ? "changes Rein's own state: what later runs may do" : v.riskExplanation,
      ...(v.persistence ? { persistence: v.persistence } : {}),
      ...(v.protected ? { protected: v.protected } : {}),
      grant:
        v.protected || v.persistence || v.decision === 'deny'
          ? null
          : bashGrant(command, cwd, v.analysis, grantPathContext(s, cwd, v.analysis), tool.name),
    };
  }

  const paths = ruleTraits(tool)?.paths;
  if (paths) {
    const v = checkFileAccess(tool.name, input, { ...sensitivity, cwd, allowedDirs: p.allowed_dirs }, paths);
    if (v.reinSecret) return reinHardBlock('rein-secrets', `${tool.name} ${v.reason}`);
    const write = paths.access === 'write';
    // A write to where programs start by themselves (shell rc files, LaunchAgents, crontab…) is never
    // "an edit in the work area", whatever the working folder: only bypassPermissions approves it unasked.
    const persistent = write ? writesWhereItRunsLater(paths, input, s, cwd) : undefined;
    // Text written where it runs later is judged as the commands it holds (hard blocks in every mode).
    if (persistent && v.decision !== 'deny') {
      const text = textOf(paths, input);
      const planted =
        typeof text === 'string'
          ? plantedPayload(persistent.kind, text, {
              home: s.home,
              cwd,
              ...(s.caseInsensitivePaths !== undefined ? { caseInsensitive: s.caseInsensitivePaths } : {}),
            })
          : undefined;
      if (planted) {
        return {
          decision: 'deny',
          layer: 'hard_block',
          reason: `${tool.name} writes ${persistent.path}, ${persistent.what}, and what it writes there is a hard block: ${planted.reason}`,
          readOnly: false,
          final: true,
          ...riskOf('high', 'plants a blocked command where it runs by itself later'),
        };
      }
    }
    // Rein's run-later state (its folder, the code cache, launch agents): a person decides in every mode.
    const guarded =
      write && v.path
        ? (protectedPlace(v.path.lexical, placeCtx(s)) ??
          protectedPlace(v.path.real, placeCtx(s), { lexicalOnly: true }))
        : undefined;
    if (guarded && v.decision !== 'deny') {
      return {
        decision: 'ask',
        layer: 'tool',
        reason: `${tool.name} writes ${guarded.path}, ${guarded.what}`,
        readOnly: false,
        final: false,
        protected: guarded.path,
        ...(persistent ? { persistence: persistent.kind } : {}),
        ...riskOf('high', "changes Rein's own state: what later runs may do"),
      };
    }
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
      ? riskOf(
          write ? 'high' : 'medium',
          write ? 'changes a file that may hold secrets' : 'reads a file that may hold secrets',
        )
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

  const egress = ruleTraits(tool)?.egress;
  if (egress) {
    const method = methodOf(egress.methodField, input);
    const v = classifyUrl(field(input, egress.urlField), p.network_allowlist, {
      reinPorts: reinPorts(s.reinHome, s.reinPorts),
    });
    if (v.reinDaemon) return reinHardBlock('rein-daemon', `${tool.name} ${method}: ${v.reason}`);
    const readOnly = safely(() => tool.isReadOnly(input), ['GET', 'HEAD', 'OPTIONS'].includes(method));
    const risk =
      v.decision === 'deny'
        ? riskOf('low', 'the request cannot be made')
        : v.reason.includes('loopback')
          ? riskOf('low', 'talks to this computer only')
          : readOnly
            ? riskOf(v.decision === 'allow' ? 'low' : 'medium', `fetches from ${v.host ?? 'the network'}`)
            : riskOf('medium', `sends a ${method} request to ${v.host ?? 'the network'}`);
    return {
      decision: v.decision,
      layer: 'tool',
      reason: `${tool.name} ${method}: ${v.reason}`,
      readOnly,
      final: v.decision === 'deny',
      ...risk,
    };
  }

  // GUI tools: AppleScript's shell commands and text typed into terminals are judged as bash lines, and
  // Rein's own windows are never a target (guiRules.ts); anything else they do falls to the rule below.
  if (drivesGui(tool.traits)) {
    const gui = guiVerdict(call, (command) =>
      layerVerdict({ ...call, tool: SHELL_JUDGE, input: { [SHELL_JUDGE_FIELD]: command } }, s),
    );
    if (gui) return gui;
  }

  const readOnly = safely(() => tool.isReadOnly(input), false);
  const destructive = safely(() => tool.isDestructive(input), false);
  const gui = drivesGui(tool.traits);
  const risk = destructive
    ? riskOf('high', `${tool.name} reports this call as destructive`)
    : gui
      ? riskOf('medium', tool.traits?.looksAtScreen ? 'captures the screen' : 'controls the screen and other apps')
      : readOnly
        ? riskOf('low', 'only reads')
        : riskOf('medium', `${tool.name} may change something`);
  if (tool.traits?.changesReinState && !readOnly) {
    return {
      decision: 'ask',
      layer: 'tool',
      reason: `${tool.name} changes Rein's own run-later state (what runs later, as which agent)`,
      readOnly,
      protected: tool.name,
      ...riskOf('high', "changes Rein's own state: what later runs may do"),
    };
  }
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
  // Paths in the call's input (a filesystem server's `path`, `source`, `destination`…): Rein can see where
  // such a call reaches, so Rein's secrets stay a hard block and its protected places ask in every mode.
  for (const raw of pathsIn(input)) {
    const abs = path.resolve(
      call.cwd,
      raw === '~' ? s.home : raw.startsWith('~/') ? path.join(s.home, raw.slice(2)) : raw,
    );
    const secret = reinSecretReason(abs, s.reinHome) ?? reinSecretReason(realpathLoose(abs), s.reinHome);
    if (secret) return reinHardBlock('rein-secrets', `${tool.name} is given ${raw}: ${secret}`);
    const guarded = readOnly ? undefined : protectedPlace(abs, placeCtx(s));
    if (guarded) {
      return {
        decision: 'ask',
        layer: 'mcp',
        reason: `${tool.name} is given ${guarded.path}, ${guarded.what}`,
        readOnly,
        protected: guarded.path,
        ...riskOf('high', "may change Rein's own state: what later runs may do"),
      };
    }
    // A place that runs what is written there later (~/.zshrc, a crontab): as for Rein's own file tools.
    const persistent = readOnly ? undefined : persistencePlace(abs, { home: s.home, cwd: call.cwd });
    if (persistent) {
      return {
        decision: 'ask',
        layer: 'mcp',
        reason: `${tool.name} is given ${persistent.path}, ${persistent.what}: what is written there runs by itself later`,
        readOnly,
        persistence: persistent.kind,
        ...riskOf('high', `may change ${persistent.what}, which runs programs without being asked`),
      };
    }
  }
  const listed =
    facts !== undefined && (s.mcpAlwaysAllow?.[facts.server] ?? []).some((n) => n === facts.tool || n === tool.name);
  if (listed)
    return {
      decision: 'allow',
      layer: 'mcp_always_allow',
      reason: `${tool.name} is in mcp_servers.${server}.always_allow`,
      readOnly,
      ...risk,
    };
  if (readOnly && call.mode === 'acceptEdits') {
    return {
      decision: 'allow',
      layer: 'mode',
      reason: `acceptEdits mode runs MCP tools their server marks read-only (${tool.name})`,
      readOnly,
      ...risk,
    };
  }
  const why = destructive
    ? 'its server marks it destructive'
    : readOnly
      ? 'its server marks it read-only, which Rein cannot check'
      : 'it may change something';
  return {
    decision: 'ask',
    layer: 'mcp',
    reason: `${tool.name} is an MCP tool (${why}); MCP tools ask unless mcp_servers.${server}.always_allow or always_allow_tools lists them`,
    readOnly,
    ...risk,
  };
}

/** String values of a tool's input that look like paths (absolute, `~`, or with a folder in them), at most 64. */
export function pathsIn(input: unknown): string[] {
  const out: string[] = [];
  const walk = (v: unknown, depth: number) => {
    if (out.length >= 64 || depth > 5) return;
    if (typeof v === 'string') {
      if (
        v.length > 0 &&
        v.length < 4096 &&
        !/[\n\r\0]/.test(v) &&
        (v.startsWith('/') ||
          v === '~' ||
          v.startsWith('~/') ||
          (v.includes('/') && !/\s/.test(v) && !/^[a-z][a-z0-9+.-]*:/i.test(v)))
      )
        out.push(v);
    } else if (Array.isArray(v)) for (const x of v.slice(0, 64)) walk(x, depth + 1);
    else if (v && typeof v === 'object') for (const x of Object.values(v).slice(0, 64)) walk(x, depth + 1);
  };
  walk(input, 0);
  return out;
}

const grantPathContext = (s: EngineSettings, cwd: string, a: ShellAnalysis | undefined): PathContext => ({
  home: s.home,
  cwd,
  ...(a ? { extraHomes: a.homeValues, cdTargets: a.cdTargets, links: a.links } : {}),
  ...(s.caseInsensitivePaths !== undefined ? { caseInsensitive: s.caseInsensitivePaths } : {}),
});

/** Decides one call synchronously; the shell parser must be initialised for bash calls. */
export function decide(call: PermissionCheck, s: EngineSettings): PermissionDecision {
  const verdict = layerVerdict(call, s);
  const grant = verdict.grant ?? null;
  const d = withGrant(verdict, s, call);
  return { ...d, grant };
}

/** The decision of the layers and the mode, then the saved "Always allow" grants (permissions.grants). */
function withGrant(verdict: LayerVerdict, s: EngineSettings, call: PermissionCheck): PermissionDecision {
  const d = modeDecision(verdict, s, call);
  if (d.decision !== 'ask' || !verdict.grant || s.grantKeys.size === 0) return d;
  if (!s.grantKeys.has(grantKey(verdict.grant))) return d;
  return {
    ...d,
    decision: 'allow',
    layer: 'grant',
    reason: `"Always allow" saved for ${describeGrant(verdict.grant, s.home)} (it would otherwise ask: ${d.reason})`,
  };
}

function modeDecision(verdict: LayerVerdict, s: EngineSettings, call: PermissionCheck): PermissionDecision {
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

/** Where a write of a `paths` tool goes when that place runs what is written there later (undefined: elsewhere). */
function writesWhereItRunsLater(
  paths: PathsTrait,
  input: unknown,
  s: EngineSettings,
  cwd: string,
): ReturnType<typeof persistencePlace> {
  const target = toolPath(paths, input);
  return target === undefined ? undefined : persistencePlace(target, { home: s.home, cwd });
}

/** Shell lines, and text a file tool writes where it runs later (judged as the commands it holds). */
function needsShellParser(call: PermissionCheck, s: EngineSettings): boolean {
  const traits = ruleTraits(call.tool);
  if (traits?.command) return true;
  if (drivesGui(call.tool.traits)) return true; // AppleScript's shell commands, text typed into terminals
  if (traits?.paths?.access !== 'write') return false;
  return writesWhereItRunsLater(traits.paths, call.input, s, call.cwd) !== undefined;
}

export interface PermissionEngine extends PermissionPolicy {
  readonly settings: EngineSettings;
}

export function createPermissionEngine(opts: EngineOptions): PermissionEngine {
  const settings = resolveEngineSettings(opts);
  return {
    settings,
    check(call: PermissionCheck): PermissionDecision | Promise<PermissionDecision> {
      if (!isShellParserReady() && needsShellParser(call, settings))
        return initShellParser().then(() => decide(call, settings));
      return decide(call, settings);
    },
  };
}

/**
 * The GUI tools a person may ask `rein permissions check --tool NAME` about while they are not
 * registered (the GUI bridge is not running): their stand-ins have the real tools' traits
 * (guiRules.ts, GUI_STAND_IN_TRAITS), so they answer as the real tools will. Only stand-ins are judged
 * by name; a registered tool is a GUI tool because its traits say so.
 */

/**
 * A stand-in for a tool the caller only knows by name (`rein permissions check --tool T`): a built-in
 * tool's stand-in has its traits (tools/builtin/builtinTraits.ts), as a GUI tool's has the GUI tool's.
 */
export function toolByName(name: string): Tool {
  const traits = BUILTIN_TRAITS.get(name) ?? GUI_STAND_IN_TRAITS.get(name);
  return {
    name,
    description: '',
    source: 'local',
    input: z.unknown(),
    isReadOnly: () => false,
    isDestructive: () => false,
    ...(traits ? { traits } : {}),
    call: async () => ({ ok: false, content: 'not callable' }),
  };
}

/** What judges a command line a GUI tool runs or types: the shell tool's own path (guiRules.ts). */
const SHELL_JUDGE: Tool = toolByName(SHELL_STAND_IN);
const SHELL_JUDGE_FIELD = SHELL_JUDGE.traits?.command?.field ?? 'command';

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
    origin: q.origin ?? originOfSource(q.source ?? 'cli'),
    agent: q.agent ?? 'default',
  });
}

/** Human-readable lines for a decision (what `rein permissions check` prints without --json). */
export function explainDecision(d: PermissionDecision): string {
  return [
    `${d.decision}`,
    `  layer:  ${d.layer}`,
    `  reason: ${d.reason}`,
    `  risk:   ${d.risk} — ${d.riskExplanation}`,
  ].join('\n');
}
