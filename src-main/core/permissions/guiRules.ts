/**
 * The permission rules of tools that drive the GUI (their traits say so), beyond "a GUI tool asks":
 *
 * - **AppleScript is read** (shell/appleScript.ts): every shell command it runs (`do shell script`, Terminal's
 *   `do script`, iTerm's `write text`), the text it types with `keystroke` and puts on the clipboard, is judged
 *   by the very path the bash tool's lines take (the engine hands that in as `judge`). A hard block or a
 *   denied_commands match denies the script, final in every mode; otherwise a script that runs or types
 *   anything asks (never read-only), carrying what its commands carry (persistence, protected places). Its
 *   string literals are scanned for hard-blocked commands, as those of `osascript -e` are. Shell code the
 *   reading cannot know (a variable from elsewhere, `run script` of a value) asks. A script that only talks
 *   to apps keeps the generic GUI verdict (ask, medium risk).
 * - **Typing into a terminal is running a command**: text an `action` of type_text / type / set_value types
 *   (traits.typesText) into an app that is a terminal — or into an app the input does not name (`computer`
 *   never does; the tools check the real target when they run, ax/guiGuard.ts) — is judged as that command
 *   line: a hard block denies it; otherwise it asks, even when bash would allow the line (it drives the GUI).
 * - **Rein's own windows are never a target**: an `app` input or an AppleScript addressing Rein is the hard
 *   block `rein-windows`, in every mode. (Its windows found by process or by point are refused by the tools.)
 * - **guiGrantTarget**: the one app a grant on a call covers, or undefined when there is no single app.
 */
import type { RiskLevel } from '../api/events.js';
import { drivesGui, type ToolTraits } from '../tools/traits.js';
import { checkCommandLine } from './commandRules.js';
import type { LayerVerdict } from './modes.js';
import { DEFAULT_DAEMON_PORT, reinPorts, shellReinGuard } from './reinGuards.js';
import { riskOf } from './risk.js';
import { stringLiterals } from './shell/analyze.js';
import { readAppleScript, type ShellSite } from './shell/appleScript.js';
import type { PermissionCheck } from './types.js';

/** The engine's verdict on one bash command line, exactly as the bash tool's line would get it. */
export type JudgeCommandLine = (command: string) => LayerVerdict;

// ------------------------------------------------------------------------------------------ apps

/** Terminal apps by name (macOS and Linux; what a helper reports, or what an input or a script says). */
const TERMINAL_NAMES: ReadonlySet<string> = new Set([
  'terminal',
  'iterm',
  'iterm2',
  'warp',
  'alacritty',
  'kitty',
  'wezterm',
  'wezterm-gui',
  'hyper',
  'ghostty',
  'tabby',
  'rio',
  'contour',
  'gnome-terminal',
  'gnome-terminal-server',
  'gnome terminal',
  'kgx',
  'gnome console',
  'ptyxis',
  'konsole',
  'yakuake',
  'xterm',
  'uxterm',
  'xfce4-terminal',
  'xfce terminal',
  'tilix',
  'terminator',
  'mate-terminal',
  'mate terminal',
  'lxterminal',
  'qterminal',
  'urxvt',
  'rxvt',
  'rxvt-unicode',
  'st',
  'st-256color',
  'foot',
  'footclient',
  'sakura',
  'terminology',
  'guake',
  'tilda',
  'cool-retro-term',
  'deepin-terminal',
  'blackbox',
  'eterm',
  'aterm',
  'termite',
  'roxterm',
  'terminal.app',
  'iterm.app',
]);

/** Bundle ids (macOS) and application ids (Linux desktop files) of terminal apps. */
const TERMINAL_IDS: readonly RegExp[] = [
  /^com\.apple\.terminal$/,
  /^com\.googlecode\.iterm2$/,
  /^dev\.warp\.warp/,
  /^(io|org)\.alacritty/,
  /^net\.kovidgoyal\.kitty$/,
  /^com\.github\.wez\.wezterm$/,
  /^co\.zeit\.hyper$/,
  /^com\.mitchellh\.ghostty$/,
  /^org\.tabby$/,
  /^com\.raphaelamorim\.rio$/,
  /^org\.gnome\.(terminal|console|ptyxis)/,
  /^org\.kde\.(konsole|yakuake)$/,
  /^com\.gexperts\.tilix$/,
];

/** An app's name as compared: trimmed, lower-case, runs of spaces as one, no folder and no `.app`. */
export function canonicalApp(name: string): string {
  const base = name.trim().replace(/\/+$/, '');
  const last = base.slice(base.lastIndexOf('/') + 1);
  return last
    .replace(/\.app$/i, '')
    .replace(/\s+/g, ' ')
    .toLowerCase();
}

/** True for a terminal app, by its name or its bundle id. */
export function isTerminalApp(name: string | undefined, bundleId?: string): boolean {
  const ids = [bundleId, name].filter((x): x is string => typeof x === 'string').map((x) => x.trim().toLowerCase());
  if (ids.some((id) => TERMINAL_IDS.some((re) => re.test(id)))) return true;
  return name !== undefined && TERMINAL_NAMES.has(canonicalApp(name));
}

/**
 * True for Rein itself by name or bundle id: the app ("Rein", bundle dev.rein.app), its accessibility
 * helper ("Rein AX", dev.rein.ax-helper) and Electron's helper processes ("Rein Helper (Renderer)").
 * Rein's processes under another name (a development build runs as "Electron") are found by pid when
 * a tool runs (ax/guiGuard.ts).
 */
export function isReinApp(name: string | undefined, bundleId?: string): boolean {
  if (bundleId && /^dev\.rein(\.|$)/i.test(bundleId.trim())) return true;
  if (name === undefined) return false;
  if (/^dev\.rein(\.|$)/i.test(name.trim())) return true;
  const n = canonicalApp(name);
  return n === 'rein' || n === 'rein ax' || n.startsWith('rein helper');
}

// ------------------------------------------------------------------------------------------ verdicts

const field = (input: unknown, key: string): unknown =>
  input && typeof input === 'object' ? (input as Record<string, unknown>)[key] : undefined;

const RISK_ORDER: Record<RiskLevel, number> = { low: 0, medium: 1, high: 2 };

const short = (s: string, max = 120): string => {
  const one = s.replace(/\s*\n\s*/g, ' ⏎ ').trim();
  return `\`${one.length > max ? `${one.slice(0, max - 1)}…` : one}\``;
};

/** The hard block that keeps GUI tools off Rein's own windows (where approvals are answered). */
function reinWindows(what: string): LayerVerdict {
  return {
    decision: 'deny',
    layer: 'hard_block',
    reason: `hard block "rein-windows": ${what}; GUI tools may not operate Rein's own windows and dialogs, where approvals are answered`,
    readOnly: false,
    final: true,
    ...riskOf('high', "would operate Rein's own windows, where a person answers approvals"),
  };
}

/** What a verdict carries beyond its decision (persistence, protected places…), to pass on. */
function carried(v: LayerVerdict): Partial<LayerVerdict> {
  const {
    decision: _d,
    layer: _l,
    reason: _r,
    readOnly: _ro,
    final: _f,
    risk: _risk,
    riskExplanation: _re,
    editInWorkArea: _e,
    grant: _g,
    ...rest
  } = v;
  return rest;
}

/**
 * A bash line's verdict without its grant: what a grant covers is the GUI call's own (the engine works it
 * out for the GUI tool), never the bash line's — a saved grant for `ls` must not allow a script running it.
 */
function withoutGrant(v: LayerVerdict): LayerVerdict {
  const { grant: _g, ...rest } = v;
  return rest;
}

const describeBash = (v: LayerVerdict): string =>
  `as a bash line it would be ${v.decision === 'allow' ? 'allowed' : v.decision === 'ask' ? 'asked' : 'denied'}: ${v.reason}`;

/** The strictest of several judged lines: the first hard block, else the first deny, else undefined. */
function firstDeny<T extends { v: LayerVerdict }>(judged: readonly T[]): T | undefined {
  return (
    judged.find((j) => j.v.decision === 'deny' && j.v.layer === 'hard_block') ??
    judged.find((j) => j.v.decision === 'deny')
  );
}

/** An ask that runs or types these judged lines: at least medium risk, never read-only, carrying their flags. */
function askFor(
  reason: string,
  judged: readonly LayerVerdict[],
  floor: { risk: RiskLevel; why: string },
): LayerVerdict {
  let risk = riskOf(floor.risk, floor.why);
  for (const v of judged) if (RISK_ORDER[v.risk] > RISK_ORDER[risk.risk]) risk = riskOf(v.risk, v.riskExplanation);
  const flags = Object.assign({}, ...judged.filter((v) => v.decision !== 'deny').map(carried)) as Partial<LayerVerdict>;
  return { ...flags, decision: 'ask', layer: 'tool', reason, readOnly: false, final: false, ...risk };
}

/**
 * The verdict of a GUI tool's call where its input says more than "it drives the GUI", or undefined
 * (the engine's generic rule then decides: ask, medium risk). `judge` is the engine's bash path.
 */
export function guiVerdict(call: PermissionCheck, judgeBash: JudgeCommandLine): LayerVerdict | undefined {
  const { tool, input } = call;
  const judge: JudgeCommandLine = (command) => withoutGrant(judgeBash(command));
  const app = field(input, 'app');
  if (typeof app === 'string' && isReinApp(app))
    return reinWindows(`${tool.name} is aimed at ${JSON.stringify(app)}, which is Rein itself`);
  if (tool.traits?.runsScript === 'applescript') return appleScriptVerdict(tool.name, field(input, 'script'), judge);
  if (tool.traits?.typesText) return typingVerdict(tool.name, input, judge);
  return undefined;
}

/** Which input field holds the text an action types. */
const TYPED_FIELD: Readonly<Record<string, string>> = { type_text: 'text', type: 'text', set_value: 'value' };

function typingVerdict(toolName: string, input: unknown, judge: JudgeCommandLine): LayerVerdict | undefined {
  const action = field(input, 'action');
  const key = typeof action === 'string' && Object.hasOwn(TYPED_FIELD, action) ? TYPED_FIELD[action]! : undefined;
  const text = key ? field(input, key) : undefined;
  if (typeof text !== 'string' || text.trim() === '') return undefined;
  const app = field(input, 'app');
  const named = typeof app === 'string' && app.trim() !== '' ? app.trim() : undefined;
  // A pid says nothing about the app: judged like an app the call does not name.
  const byPid = named !== undefined && /^\d+$/.test(named);
  if (named && !byPid && !isTerminalApp(named)) return undefined;
  const where =
    named && !byPid
      ? `${named}, a terminal, where it runs as a command`
      : `${byPid ? `the app with pid ${named}` : 'the app with the keyboard focus'}, judged as a command in case that is a terminal`;
  const v = judge(text);
  if (v.decision === 'deny')
    return {
      ...v,
      reason: `${toolName} would type ${short(text)} into ${where}: ${v.reason}`,
      readOnly: false,
      final: true,
    };
  return askFor(
    `${toolName} types ${short(text)} into ${where} (${describeBash(v)}); typing into a terminal always asks`,
    [v],
    {
      risk: 'medium',
      why: named && !byPid ? `types a command into ${named}` : 'types into another app, which may be a terminal',
    },
  );
}

function appleScriptVerdict(toolName: string, script: unknown, judge: JudgeCommandLine): LayerVerdict | undefined {
  if (typeof script !== 'string') return undefined;
  const r = readAppleScript(script);
  const rein = [...r.apps, ...r.processes].find((a) => isReinApp(a));
  if (rein) return reinWindows(`the script addresses ${JSON.stringify(rein)}, which is Rein itself`);

  const sites: ShellSite[] = [...r.shell, ...r.typed].slice(0, 64);
  const judged = sites.map((site) => ({ site, v: judge(site.line) }));
  const denied = firstDeny(judged);
  if (denied) {
    const how =
      denied.site.via === 'keystroke' || denied.site.via === 'the clipboard'
        ? `types ${short(denied.site.line)} (${denied.site.via})`
        : `runs ${short(denied.site.line)} with \`${denied.site.via}\``;
    return { ...denied.v, reason: `${toolName}: the script ${how}: ${denied.v.reason}`, readOnly: false, final: true };
  }
  // Its strings, as those of `osascript -e` in a bash line are scanned: a hard-blocked command there is
  // refused wherever the script would send it (a variable, a handler, another language's `run script`).
  const strings = [
    ...new Set([...r.literals, ...r.literals.filter((l) => /["'`]/.test(l)).flatMap(stringLiterals)]),
  ].slice(0, 64);
  for (const s of strings) {
    const v = judge(s);
    if (v.decision === 'deny' && v.layer === 'hard_block')
      return {
        ...v,
        reason: `${toolName}: a string in the script is a blocked command line, ${short(s)}: ${v.reason}`,
        readOnly: false,
        final: true,
      };
  }

  if (sites.length === 0 && r.unknown.length === 0) return undefined;
  const parts: string[] = [];
  for (const { site, v } of judged.slice(0, 3)) {
    const verb =
      site.via === 'keystroke' || site.via === 'the clipboard'
        ? `types ${short(site.line)} (${site.via})`
        : `runs ${short(site.line)} with \`${site.via}\``;
    parts.push(`${verb}${site.partial ? ', part of it only known when it runs,' : ''} — ${describeBash(v)}`);
  }
  if (judged.length > 3) parts.push(`and ${judged.length - 3} more`);
  if (r.unknown.length > 0)
    parts.push(`runs shell code Rein cannot read before it runs (${r.unknown.slice(0, 2).join('; ')})`);
  return askFor(
    `${toolName}: the script ${parts.join('; ')}. An AppleScript that runs shell commands or types always asks`,
    judged.map((j) => j.v),
    {
      risk: r.unknown.length > 0 ? 'high' : 'medium',
      why:
        r.unknown.length > 0
          ? 'runs shell code that is only known when the script runs'
          : 'runs shell commands through AppleScript',
    },
  );
}

// ------------------------------------------------------------------------------------------ call time

export interface TypedLineContext {
  home: string;
  cwd: string;
  reinHome: string;
  /** Rein's daemon ports (default: 7533 and the one in `$REIN_HOME/daemon.json`). */
  ports?: readonly number[];
}

/**
 * Why text typed into a terminal (everything typed there so far, then this) is a hard block, or undefined:
 * the bash tool's hard blocks and Rein guards, for the GUI tools' check when they run. The shell parser
 * must be ready (initShellParser).
 */
export function typedTextHardBlock(text: string, ctx: TypedLineContext): string | undefined {
  if (text.trim() === '') return undefined;
  const v = checkCommandLine(text, {
    home: ctx.home,
    cwd: ctx.cwd,
    reinHome: ctx.reinHome,
    extraPatterns: [],
    allowedCommands: [],
    deniedCommands: [],
  });
  if (v.decision === 'deny' && v.layer === 'hard_block') return v.reason;
  if (v.analysis) {
    const hit = shellReinGuard(v.analysis, {
      home: ctx.home,
      cwd: ctx.cwd,
      reinHome: ctx.reinHome,
      ports: ctx.ports ?? reinPorts(ctx.reinHome, [DEFAULT_DAEMON_PORT]),
    });
    if (hit) return `hard block "${hit.rule}": ${hit.reason}`;
  }
  return undefined;
}

// ------------------------------------------------------------------------------------------ grants

/**
 * The app a grant on this call would cover ("allow in this conversation" for a GUI tool covers one app):
 * the `app` the input names, or the one app an AppleScript addresses — canonical (canonicalApp: lower-case,
 * no `.app`), so compare results with `===`. Undefined when there is no single app — no `app` (a ref, the
 * focused app, `computer`), several apps, an app known only at run time, a script that runs shell commands
 * or types (its grant then covers this exact call only), or a tool that does not drive the GUI.
 */
export function guiGrantTarget(_toolName: string, traits: ToolTraits | undefined, input: unknown): string | undefined {
  if (!drivesGui(traits)) return undefined;
  if (traits?.runsScript === 'applescript') {
    const script = field(input, 'script');
    if (typeof script !== 'string') return undefined;
    const r = readAppleScript(script);
    if (r.shell.length > 0 || r.typed.length > 0 || r.unknown.length > 0 || r.dynamicApps) return undefined;
    // `tell application "System Events" to tell process "Notes"`: System Events is the means, Notes the app.
    const named = [...r.apps, ...r.processes].map(canonicalApp);
    const apps = new Set(r.processes.length > 0 ? named.filter((a) => a !== 'system events') : named);
    return apps.size === 1 ? [...apps][0] : undefined;
  }
  const app = field(input, 'app');
  return typeof app === 'string' && app.trim() !== '' ? canonicalApp(app) : undefined;
}

// ------------------------------------------------------------------------------------------ stand-ins

const GUI: ToolTraits = { family: 'gui', drivesGui: true, repeatable: true };

/**
 * The traits of the GUI tools (ax/guiTools.ts) for `rein permissions check --tool NAME` while they are not
 * registered, so a stand-in is judged as the real tool (tests pin that they agree).
 */
export const GUI_STAND_IN_TRAITS: ReadonlyMap<string, ToolTraits> = new Map<string, ToolTraits>([
  ['accessibility', { ...GUI, typesText: true }],
  ['computer', { ...GUI, typesText: true }],
  ['computer_use', { ...GUI, typesText: true }],
  ['applescript', { ...GUI, repeatable: false, reportsOwnSuccess: true, runsScript: 'applescript' }],
  ['screenshot', { ...GUI, looksAtScreen: true }],
  ['wait_for', GUI],
]);
