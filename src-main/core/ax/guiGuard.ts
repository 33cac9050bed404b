/**
 * What the GUI tools check when they run, beyond the permission engine (which sees only the input):
 *
 * - **Rein's own windows are never a target.** An app that is Rein — by name or bundle id ("Rein", "Rein AX",
 *   "Rein Helper…", dev.rein.*) or by process (this process, its parents — the terminal a `rein` command runs
 *   in is where its approvals are answered — and its children in its own process group, such as Electron's
 *   helpers; programs a tool started run in groups of their own and stay targets) — is refused, on macOS and
 *   Linux, and so is a click, drag or scroll at a point inside one of its windows.
 * - **The app named is the app acted on.** A ref of another app, or keys that would go to another app than
 *   the input's `app`, are refused: what a person approved (and a grant that covers one app) is what happens.
 * - **A terminal never gets a hard-blocked line.** What a session types into a terminal app is kept per app
 *   (its text so far, `cd ~` included) and checked with each new piece against the bash tool's hard blocks, so
 *   a line typed in pieces is judged whole. Keys that would change the line out of sight are refused: paste
 *   shortcuts always, keys that type characters (use type_text / type for text), and, while a line is being
 *   typed, anything but more text, Return, BackSpace and ctrl+c/ctrl+u — as are clicks (`computer`) and
 *   actions on another element of that terminal, which could move the keyboard to another tab.
 *
 * Refusals are GuiRefusal errors; the tools turn them into `[permission error]` results.
 */
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import { isReinApp, isTerminalApp, typedTextHardBlock } from '../permissions/guiRules.js';
import { initShellParser } from '../permissions/shell/parser.js';
import { runProcess } from '../process/subprocess.js';
import { sessionSlots, slotKey } from '../tools/sessionSlots.js';
import type { ToolContext } from '../tools/tool.js';
import type { AXClient } from './axClient.js';
import type { AxResult } from './protocol.js';

/** A GUI action refused before it ran; the message says why and what to do instead. */
export class GuiRefusal extends Error {
  override readonly name = 'GuiRefusal';
}

/** An app as the helper reports it (list_apps; a ref's app has no bundle id). */
export interface GuiApp {
  name: string;
  pid: number;
  bundle_id?: string | undefined;
}

export type ListedApp = AxResult<'list_apps'>['apps'][number];

export interface GuiGuardOptions {
  /** Whether a pid is one of Rein's processes (default: this process, its parents and its children). */
  isReinPid?: (pid: number) => Promise<boolean>;
  /** The home folder for the hard-block check of typed lines (default: the user's). */
  home?: string;
}

const bundleOf = (app: GuiApp): string | undefined => (typeof app.bundle_id === 'string' ? app.bundle_id : undefined);
const describe = (app: GuiApp): string => `${app.name} (pid ${app.pid})`;
const short = (s: string, max = 80): string => {
  const one = s.replace(/\n/g, '⏎');
  return `\`${one.length > max ? `${one.slice(0, max - 1)}…` : one}\``;
};

// ------------------------------------------------------------------------------------------ Rein's processes

interface ProcInfo {
  ppid: number;
  pgid: number;
}

/** A process's parent and process group, from /proc (Linux) or one `ps` listing (macOS); undefined elsewhere. */
function procReader(): (pid: number) => Promise<ProcInfo | undefined> {
  if (process.platform === 'linux') {
    return async (pid) => {
      const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
      // `pid (comm) state ppid pgrp …`: comm may hold spaces and parentheses, so read after the last `)`.
      const [, ppid, pgid] = stat
        .slice(stat.lastIndexOf(')') + 2)
        .split(' ')
        .map(Number);
      return Number.isInteger(ppid) && Number.isInteger(pgid) ? { ppid: ppid!, pgid: pgid! } : undefined;
    };
  }
  if (process.platform === 'darwin') {
    let table: Promise<Map<number, ProcInfo>> | undefined;
    const load = async () => {
      const r = await runProcess({ file: '/bin/ps', args: ['-A', '-o', 'pid=,ppid=,pgid='], timeoutMs: 5_000 });
      const map = new Map<number, ProcInfo>();
      if (r.kind === 'exited' && r.exitCode === 0) {
        for (const line of r.stdout.split('\n')) {
          const [pid, ppid, pgid] = line.trim().split(/\s+/).map(Number);
          if (Number.isInteger(pid) && Number.isInteger(ppid) && Number.isInteger(pgid))
            map.set(pid!, { ppid: ppid!, pgid: pgid! });
        }
      }
      return map;
    };
    return async (pid) => (await (table ??= load())).get(pid);
  }
  return async () => undefined;
}

/** Every ancestor of a process (not pid 0 or 1, at most 64). */
async function ancestors(pid: number, info: (pid: number) => Promise<ProcInfo | undefined>): Promise<Set<number>> {
  const out = new Set<number>();
  for (
    let p = (await info(pid))?.ppid;
    p !== undefined && p > 1 && !out.has(p) && out.size < 64;
    p = (await info(p))?.ppid
  )
    out.add(p);
  return out;
}

/**
 * This process, its parents, and its children in its own process group (Electron's helpers): one check's
 * view of the process table. A program a tool started (bash, an app the agent opened) runs in a group of
 * its own (core/process), so it is not Rein even while it is a child.
 */
export function reinPidCheck(): (pid: number) => Promise<boolean> {
  const info = procReader();
  let mine: Promise<Set<number>> | undefined;
  let group: Promise<number | undefined> | undefined;
  return async (pid) => {
    if (pid === process.pid) return true;
    if (pid <= 1) return false;
    if ((await (mine ??= ancestors(process.pid, info))).has(pid)) return true;
    const own = await (group ??= info(process.pid).then((i) => i?.pgid));
    const it = await info(pid);
    return own !== undefined && it?.pgid === own && (await ancestors(pid, info)).has(process.pid);
  };
}

// ------------------------------------------------------------------------------------------ apps

/** Whether an `app` input (a name, bundle id or pid) names this app, as the helpers match it. */
export function namesApp(want: string, app: GuiApp): boolean {
  const w = want.trim().toLowerCase();
  if (/^\d+$/.test(w)) return app.pid === Number(w);
  const name = app.name.toLowerCase();
  return name === w || bundleOf(app)?.toLowerCase() === w || name.includes(w);
}

/** The app an `app` input resolves to, by the helpers' rules (pid; exact name or bundle id; the one name containing it). */
export function resolveApp(want: string, apps: readonly ListedApp[]): ListedApp | undefined {
  const w = want.trim().toLowerCase();
  if (/^\d+$/.test(w)) return apps.find((a) => a.pid === Number(w));
  const exact = apps.filter((a) => a.name.toLowerCase() === w || bundleOf(a)?.toLowerCase() === w);
  if (exact.length > 0) return exact.length === 1 ? exact[0] : undefined;
  const part = apps.filter((a) => a.name.toLowerCase().includes(w));
  return part.length === 1 ? part[0] : undefined;
}

// ------------------------------------------------------------------------------------------ terminals

/** What this session typed into one terminal app: its text (lines so far, the last one unfinished) and where the unfinished line is. */
interface TerminalText {
  text: string;
  /** The element the unfinished line is typed into (its ref, e.g. e12), or `focus`. */
  where: string;
  name: string;
  /**
   * The line may hold text Rein did not type: `recalled` after keys that only move or recall (Up, Left,
   * ctrl+a) — Return runs a line already run, unchanged; `edited` after keys that may change it (Tab,
   * Delete, alt+…). Either way nothing is typed until Return (recalled only) or ctrl+c / ctrl+u.
   */
  unseen?: 'recalled' | 'edited';
}

const TERMINAL_TEXT_SLOT = slotKey<Map<number, TerminalText>>('ax_terminal_text');
/** The text kept per terminal, cut at a line: enough for `cd` and variables set a few lines before. */
const MAX_TERMINAL_TEXT = 8_000;

const RETURN_KEYS = new Set(['return', 'enter', 'kp_enter', 'kp_return', 'linefeed']);
const BACKSPACE_KEYS = new Set(['backspace', 'back_space']);
/** Keys that move, scroll or recall without changing the line's text themselves. */
const MOVE_KEYS = new Set([
  'home',
  'end',
  'pageup',
  'pagedown',
  'page_up',
  'page_down',
  'prior',
  'next',
  'left',
  'right',
  'up',
  'down',
  'kp_up',
  'kp_down',
  'kp_left',
  'kp_right',
  'kp_home',
  'kp_end',
  'kp_prior',
  'kp_next',
  'menu',
  'pause',
  'print',
  ...Array.from({ length: 35 }, (_, i) => `f${i + 1}`),
]);
/** ctrl+letter that only move or recall in a shell's line editor (start, end, back, forward, clear screen, previous, next, suspend, end of input). */
const MOVE_CTRL = new Set(['a', 'e', 'b', 'f', 'l', 'p', 'n', 'z', 'd']);
/** Keys that type no character (anything else — `a`, `space`, `minus`, `asciitilde` — types one). */
const NON_PRINTING = new Set([
  ...RETURN_KEYS,
  ...BACKSPACE_KEYS,
  ...MOVE_KEYS,
  'tab',
  'iso_left_tab',
  'escape',
  'esc',
  'delete',
  'forwarddelete',
  'del',
  'insert',
  'kp_delete',
  'kp_insert',
]);
const MODIFIERS: Readonly<Record<string, string>> = {
  cmd: 'cmd',
  command: 'cmd',
  super: 'cmd',
  meta: 'cmd',
  win: 'cmd',
  ctrl: 'ctrl',
  control: 'ctrl',
  alt: 'alt',
  option: 'alt',
  opt: 'alt',
  shift: 'shift',
};

function parseCombo(keys: string): { mods: Set<string>; key: string } {
  const k = keys.trim();
  const parts = k.endsWith('++') ? [...k.slice(0, -2).split('+').filter(Boolean), '+'] : k.split('+');
  const key = (parts.pop() ?? '').trim().toLowerCase();
  return { mods: new Set(parts.map((p) => MODIFIERS[p.trim().toLowerCase()] ?? p.trim().toLowerCase())), key };
}

/** C0 controls but the newline, and DEL: a Tab completes, an Escape starts an editing sequence. */
const isControl = (ch: string): boolean => {
  const c = ch.charCodeAt(0);
  return (c < 0x20 && c !== 0x0a) || c === 0x7f;
};

const unfinished = (t: TerminalText | undefined): string => (t ? t.text.slice(t.text.lastIndexOf('\n') + 1) : '');

/** The text cut to its last MAX_TERMINAL_TEXT characters, at a line. */
function kept(text: string): string {
  if (text.length <= MAX_TERMINAL_TEXT) return text;
  const cut = text.slice(-MAX_TERMINAL_TEXT);
  const nl = cut.indexOf('\n');
  return nl === -1 ? cut : cut.slice(nl + 1);
}

export class GuiGuard {
  readonly #client: AXClient;
  readonly #opts: GuiGuardOptions;

  constructor(client: AXClient, opts: GuiGuardOptions = {}) {
    this.#client = client;
    this.#opts = opts;
  }

  async apps(signal: AbortSignal): Promise<ListedApp[]> {
    return (await this.#client.call('list_apps', {}, { signal })).apps;
  }

  /** The app with the keyboard focus (the active one), if the helper reports one. */
  async focused(signal: AbortSignal): Promise<ListedApp | undefined> {
    return (await this.apps(signal)).find((a) => a.active);
  }

  /** Refuses an `app` input that names Rein (before asking the helper anything). */
  refuseReinName(app: string | undefined, doing: string): void {
    if (app !== undefined && isReinApp(app)) throw this.#reinRefusal(doing, app);
  }

  /** Refuses Rein's own app: by name, bundle id, or process. */
  async refuseRein(app: GuiApp, doing: string, isReinPid?: (pid: number) => Promise<boolean>): Promise<void> {
    if (isReinApp(app.name, bundleOf(app)) || (await (isReinPid ?? this.#pidCheck())(app.pid)))
      throw this.#reinRefusal(doing, describe(app));
  }

  /** Refuses when the `app` input is given and is not the app acted on (a ref of another app, keys to another app). */
  refuseOtherApp(want: string | undefined, actual: GuiApp, doing: string): void {
    if (want === undefined || want.trim() === '' || namesApp(want, actual)) return;
    throw new GuiRefusal(
      `${doing} would act on ${describe(actual)}, not on ${JSON.stringify(want)} as the call says; nothing was done. Name the app the ref or the keyboard focus belongs to, or focus ${JSON.stringify(want)} first (accessibility focus with app).`,
    );
  }

  /**
   * Refuses points (screen units) inside a window of Rein's; with `pastes` (a middle click, which pastes the
   * selection on Linux), inside a terminal's window too.
   */
  async refuseReinPoints(
    points: ReadonlyArray<readonly [number, number]>,
    doing: string,
    signal: AbortSignal,
    pastes = false,
  ): Promise<void> {
    const check = this.#pidCheck();
    for (const app of await this.apps(signal)) {
      const hits = app.windows.filter(
        (w) =>
          w.bounds &&
          points.some(
            ([x, y]) =>
              x >= w.bounds![0] &&
              y >= w.bounds![1] &&
              x < w.bounds![0] + w.bounds![2] &&
              y < w.bounds![1] + w.bounds![3],
          ),
      );
      if (hits.length === 0) continue;
      await this.refuseRein(app, `${doing} (the point is on its window ${JSON.stringify(hits[0]!.name)})`, check);
      if (pastes && isTerminalApp(app.name, bundleOf(app)))
        throw this.#pasteRefusal(`${doing} on ${describe(app)}, a terminal,`);
    }
  }

  /** Refuses a click on a terminal's Paste menu item (or button): the clipboard would run unseen. */
  refusePasteItem(app: GuiApp, element: { role: string; name: string }, doing: string): void {
    if (isTerminalApp(app.name, bundleOf(app)) && /paste/i.test(element.name))
      throw this.#pasteRefusal(
        `${doing} (${element.role} ${JSON.stringify(element.name)}) in ${describe(app)}, a terminal,`,
      );
  }

  /** Refuses a click while a terminal's line is being typed or unseen: it could move the keyboard to another line. */
  refuseWhileTyping(ctx: ToolContext, doing: string, app?: GuiApp, where?: string): void {
    for (const [pid, t] of this.#terminals(ctx)) {
      if (app && app.pid !== pid) continue;
      if (where !== undefined && (where === t.where || (where === 'focus' && t.where !== 'focus'))) continue;
      const line = unfinished(t);
      if (line !== '')
        throw new GuiRefusal(
          `${doing} could move the keyboard away from the line being typed into ${t.name} (${short(line)}); nothing was done. Finish that line with Return or clear it with ctrl+u first.`,
        );
      if (t.unseen)
        throw new GuiRefusal(
          `${doing} could move the keyboard away from ${t.name}, whose line may hold text Rein has not seen (after keys that moved, recalled or edited it); nothing was done. Clear it with ctrl+c or ctrl+u first.`,
        );
    }
  }

  /**
   * Text about to be typed into `app` (at `where`: a ref, or `focus` for the keyboard focus): into a terminal, it is
   * checked with what this session typed there before, and refused when the result is a hard block.
   * `replace` (set_value) puts it in place of the unfinished line. The text is noted as typed before it is
   * sent: a call that fails half-way has typed something, and a note of too much only refuses more.
   */
  async typing(ctx: ToolContext, app: GuiApp, where: string, text: string, replace = false): Promise<void> {
    if (!isTerminalApp(app.name, bundleOf(app))) return;
    const doing = `typing ${short(text)} into ${describe(app)}, a terminal,`;
    this.refuseWhileTyping(ctx, doing, app, where);
    const norm = text.replace(/\r\n?/g, '\n');
    // A Tab completes, an Escape or another control character edits the line: what runs would not be what was checked.
    if ([...norm].some(isControl))
      throw new GuiRefusal(
        `${doing} is refused: the text holds a Tab or another control character, which would change the line unseen. Type the whole command as plain text.`,
      );
    const terminals = this.#terminals(ctx);
    const unseen = terminals.get(app.pid)?.unseen;
    if (unseen) throw this.#unseenRefusal(doing, unseen);
    const before = terminals.get(app.pid)?.text ?? '';
    const base = replace ? before.slice(0, before.lastIndexOf('\n') + 1) : before;
    const next = base + norm;
    await initShellParser();
    const why = typedTextHardBlock(next, {
      home: this.#opts.home ?? os.homedir(),
      cwd: ctx.cwd,
      reinHome: ctx.reinHome,
    });
    if (why) {
      const whole =
        base.trim() === ''
          ? ''
          : ` with what was typed there before (${short(unfinished({ text: next, where, name: app.name }), 120)})`;
      throw new GuiRefusal(
        `${doing}${whole} would run a command line the bash tool refuses; nothing was typed. ${why}`,
      );
    }
    terminals.set(app.pid, { text: kept(next), where, name: app.name });
  }

  /**
   * Keys about to be sent to `app` (at `where`): into a terminal, only keys that leave the line in view —
   * Return, BackSpace, ctrl+c / ctrl+u, and, with nothing typed on the line, keys that move or recall
   * (after which the line is unseen until Return or ctrl+c) — never a paste or a key that types a character.
   */
  keys(ctx: ToolContext, app: GuiApp, where: string, keys: string): void {
    if (!isTerminalApp(app.name, bundleOf(app))) return;
    const terminals = this.#terminals(ctx);
    const t = terminals.get(app.pid);
    const line = unfinished(t);
    const doing = `pressing ${keys} in ${describe(app)}, a terminal,`;
    const { mods, key } = parseCombo(keys);
    const plain = [...mods].every((m) => m === 'shift');
    const only = (m: string) => mods.size === 1 && mods.has(m);
    const committed = t ? t.text.slice(0, t.text.length - line.length) : '';
    const set = (text: string, unseen?: 'recalled' | 'edited'): void =>
      void terminals.set(app.pid, { text: kept(text), where, name: app.name, ...(unseen ? { unseen } : {}) });
    if (
      (mods.has('cmd') && key === 'v') ||
      (mods.has('ctrl') && mods.has('shift') && key === 'v') ||
      (mods.has('shift') && key === 'insert') ||
      key === 'paste'
    ) {
      throw this.#pasteRefusal(doing);
    }
    if (plain && !NON_PRINTING.has(key)) {
      throw new GuiRefusal(
        `${doing} would type a character, which Rein checks only as text; nothing was done. Type text into a terminal with type_text (accessibility) or type (computer).`,
      );
    }
    if (line !== '' || t?.unseen) this.refuseWhileTyping(ctx, doing, app, where);
    const enter = (plain && RETURN_KEYS.has(key)) || (only('ctrl') && (key === 'm' || key === 'j'));
    const clear = only('ctrl') && (key === 'c' || key === 'u' || key === 'g');
    if (clear) return set(committed);
    if (enter) {
      // A line recalled unchanged was run before; one changed out of sight may be anything.
      if (t?.unseen === 'edited') throw this.#unseenRefusal(doing, 'edited');
      return set(`${t?.text ?? ''}\n`);
    }
    const moves =
      (plain && MOVE_KEYS.has(key)) ||
      (only('ctrl') && MOVE_CTRL.has(key)) ||
      (mods.has('cmd') && !mods.has('ctrl') && !mods.has('alt'));
    if (t?.unseen) {
      if (moves) return;
      throw this.#unseenRefusal(doing, t.unseen);
    }
    if (line !== '') {
      if (BACKSPACE_KEYS.has(key) && mods.size === 0) return set(committed + line.slice(0, -1));
      if (only('ctrl') && key === 'h') return set(committed + line.slice(0, -1));
      if (only('ctrl') && key === 'w') return set(committed + line.replace(/\S+\s*$/, ''));
      throw new GuiRefusal(
        `${doing} could change the line being typed (${short(line)}) out of sight (completion, history, moving the cursor); nothing was done. Finish it with Return or clear it with ctrl+u first.`,
      );
    }
    if (BACKSPACE_KEYS.has(key) && mods.size === 0) return;
    // Nothing typed on the line: moving or recalling is fine, but what the line holds is no longer known.
    set(committed, moves ? 'recalled' : 'edited');
  }

  #terminals(ctx: ToolContext): Map<number, TerminalText> {
    return sessionSlots(ctx).slot(TERMINAL_TEXT_SLOT, () => new Map());
  }

  #pidCheck(): (pid: number) => Promise<boolean> {
    return this.#opts.isReinPid ?? reinPidCheck();
  }

  #pasteRefusal(doing: string): GuiRefusal {
    return new GuiRefusal(
      `${doing} would paste: Rein cannot check what the clipboard holds before it runs in a terminal; nothing was done. Type the command with type_text (accessibility) or type (computer).`,
    );
  }

  #unseenRefusal(doing: string, unseen: 'recalled' | 'edited'): GuiRefusal {
    const after = unseen === 'recalled' ? 'keys that moved or recalled history' : 'keys that may have changed it';
    const next =
      unseen === 'recalled'
        ? 'press Return to run the recalled line as it is, or clear it with ctrl+c or ctrl+u'
        : 'clear it with ctrl+c or ctrl+u';
    return new GuiRefusal(
      `${doing} is refused: after ${after}, the terminal's line may hold text Rein has not seen; nothing was done. First ${next}.`,
    );
  }

  #reinRefusal(doing: string, what: string): GuiRefusal {
    return new GuiRefusal(
      `${doing}: ${what} is Rein itself. GUI tools never operate Rein's own windows and dialogs (where approvals are answered), nor the terminal a rein command runs in; nothing was done. Ask the user to do it there.`,
    );
  }
}
