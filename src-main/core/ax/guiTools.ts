/**
 * The GUI tools: `accessibility` (snapshots with refs, find, and actions on refs), `wait_for`,
 * `screenshot`, `computer` (mouse and keyboard by coordinates) and, on macOS, `applescript`. They all go
 * through one AXClient (the provider's); element refs live in the session's tool slot, so every run has
 * its own and a ref is never shared between sessions.
 *
 * Every GUI tool drives the GUI (traits): it asks in attended runs unless always-allowed, it is refused
 * in unattended runs unless `permissions.gui_unattended` names it, and a run that used one gets the higher
 * iteration floor. None is read-only, so none runs without that decision — even a snapshot reads other
 * apps' windows. When they run they check what the engine could not see in the input (guiGuard.ts): Rein's
 * own windows are never a target, the app a call names is the app acted on, and no line typed into a
 * terminal is one the bash tool would hard-block.
 */
import { callSummaryOf } from '../api/toolSummary.js';
import { z } from 'zod';
import { runProcess } from '../process/subprocess.js';
import { sessionSlots, slotKey } from '../tools/sessionSlots.js';
import {
  errorResult,
  okResult,
  type Tool,
  type ToolContext,
  type ToolErrorKind,
  type ToolResult,
} from '../tools/tool.js';
import type { ToolTraits } from '../tools/traits.js';
import type { AXClient } from './axClient.js';
import { AxDriver, type ActionMethod } from './axDriver.js';
import { AxError, isAxError, type AxClientErrorCode } from './axError.js';
import { GuiGuard, GuiRefusal, resolveApp, type GuiApp } from './guiGuard.js';
import { AxRole, type AxResult } from './protocol.js';
import { RefTable } from './refs.js';
import { renderFound, renderSnapshot } from './render.js';

/** The session's refs (one table per run context). */
export const AX_REFS_SLOT = slotKey<RefTable>('ax_refs');

export const refsOf = (ctx: ToolContext): RefTable => sessionSlots(ctx).slot(AX_REFS_SLOT, () => new RefTable());

const GUI: ToolTraits = { family: 'gui', drivesGui: true, repeatable: true };

const KIND: Partial<Record<AxClientErrorCode, ToolErrorKind>> = {
  INVALID: 'validation',
  PERMISSION: 'permission',
  TIMEOUT: 'transient',
  HELPER_EXITED: 'transient',
  COMMIT_UNKNOWN: 'transient',
  CANCELLED: 'transient',
};

/** An AxError as a result the model reads: the code first, then what happened, then what to do. */
export function axErrorResult(e: unknown): ToolResult {
  if (e instanceof GuiRefusal) return errorResult('permission', e.message);
  if (!isAxError(e)) return errorResult('business', e instanceof Error ? e.message : String(e));
  const hint = e.hint ? ` — ${e.hint}` : '';
  return errorResult(KIND[e.code] ?? 'business', `${e.code}: ${e.message}${hint}`);
}

async function guarded(fn: () => Promise<ToolResult>): Promise<ToolResult> {
  try {
    return await fn();
  } catch (e) {
    return axErrorResult(e);
  }
}

const png = (buf: Buffer | string) => ({
  mediaType: 'image/png' as const,
  data: typeof buf === 'string' ? buf : buf.toString('base64'),
});

// ------------------------------------------------------------------------------------------ accessibility

const ACTIONS = [
  'snapshot',
  'find',
  'click',
  'press',
  'set_value',
  'get_value',
  'focus',
  'scroll',
  'key',
  'type_text',
  'annotate',
  'list_apps',
  'check_permissions',
] as const;

const accessibilityInput = z.strictObject({
  action: z.enum(ACTIONS).describe('What to do; see the tool description.'),
  app: z
    .string()
    .optional()
    .describe('App name or pid (snapshot, find, annotate, focus); default: the app with the active window.'),
  ref: z
    .string()
    .optional()
    .describe(
      'Element ref from a snapshot or find, e.g. "e12" (click, press, set_value, get_value, focus, scroll, and optionally key/type_text).',
    ),
  window: z.string().optional().describe('snapshot/annotate: only the window whose title contains this.'),
  filter: z
    .enum(['all', 'interactive'])
    .optional()
    .describe('snapshot/annotate: "interactive" lists only controls (and what contains them).'),
  max_nodes: z
    .number()
    .int()
    .positive()
    .max(2000)
    .optional()
    .describe('snapshot: at most this many elements (default 400).'),
  role: AxRole.optional().describe('find: button, checkbox, textfield, menuitem, row, link, tab, …'),
  name: z.string().optional().describe('find: part of the element’s label (case-insensitive).'),
  value: z
    .string()
    .optional()
    .describe(
      'set_value: the new value (text, a number for sliders, true/false for checkboxes, an item for comboboxes); find: part of the value.',
    ),
  text: z
    .string()
    .optional()
    .describe('type_text: the text to type (into ref if given, else where the keyboard focus is).'),
  keys: z.string().optional().describe('key: a key or combination, e.g. "Return", "Tab", "ctrl+a", "shift+F10".'),
  direction: z.enum(['up', 'down', 'left', 'right']).optional().describe('scroll: direction (default down).'),
  amount: z.number().int().min(1).max(50).optional().describe('scroll: steps (default 3).'),
  into_view: z.boolean().optional().describe('scroll: bring ref into view instead of scrolling by steps.'),
});
type AccessibilityInput = z.infer<typeof accessibilityInput>;

/** Approval requests show this much of a GUI call's summary: typed text may be a command line. */
const TYPED_SUMMARY_CHARS = 20_000;

export function accessibilityTool(client: AXClient, guard = new GuiGuard(client)): Tool<AccessibilityInput> {
  return {
    name: 'accessibility',
    source: 'gui',
    description: [
      'Operate other apps through their accessibility tree, by element refs instead of screen coordinates.',
      'Start with action "snapshot" (optionally app, filter: "interactive"): it lists elements as `role "label" [e12]` with values and states.',
      'Then act on a ref: click, press, set_value (value), get_value, focus, scroll (direction/amount, or into_view), key (keys, ref optional), type_text (text, ref optional).',
      '"find" searches by role/name/value and gives refs too; "annotate" returns a screenshot with numbered boxes; "list_apps" lists running apps.',
      'A ref means the element you saw: if it changed (other label or role), is hidden, disabled, or can no longer be told apart, the action is refused',
      '(STALE_REF, NOT_VISIBLE, DISABLED, AMBIGUOUS) and nothing is done — take a new snapshot and use its refs. Each action says what it acted on.',
    ].join(' '),
    input: accessibilityInput,
    isReadOnly: () => false,
    isConcurrencySafe: () => false,
    isDestructive: () => false,
    traits: { ...GUI, typesText: true },
    approvalSummaryChars: TYPED_SUMMARY_CHARS,
    summarize: (i) => callSummaryOf('accessibility', i),
    call: (i, ctx, signal) =>
      guarded(async () => {
        const driver = new AxDriver(client, refsOf(ctx));
        const opts = { signal };
        const doing = `accessibility ${i.action}${i.ref ? ` ${i.ref}` : ''}`;
        guard.refuseReinName(i.app, doing);
        switch (i.action) {
          case 'snapshot': {
            const view = await driver.snapshot(
              { app: i.app, window: i.window, filter: i.filter, maxNodes: i.max_nodes },
              opts,
            );
            await guard.refuseRein(view.app, doing);
            return okResult(renderSnapshot(view));
          }
          case 'find': {
            const found = await driver.find({ app: i.app, role: i.role, name: i.name, value: i.value }, opts);
            await guard.refuseRein(found.app, doing);
            return okResult(renderFound(found.app, found.elements, found.truncated));
          }
          case 'annotate': {
            const a = await driver.annotate({ app: i.app, window: i.window, filter: i.filter, maxWidth: 1280 }, opts);
            await guard.refuseRein(a.view.app, doing);
            const index = a.labels.map(
              (l) =>
                `[${l.label}] ${l.element.ref} ${l.element.role}${l.element.name ? ` ${JSON.stringify(l.element.name)}` : ''}`,
            );
            return okResult(
              [
                `App: ${a.view.app.name} (pid ${a.view.app.pid}) · ${a.labels.length} labelled elements (numbers on the picture → refs):`,
                ...index,
              ].join('\n'),
              [png(a.png)],
            );
          }
          case 'list_apps': {
            const { apps } = await client.call('list_apps', {}, opts);
            if (apps.length === 0) return okResult('No applications are on the accessibility bus.');
            return okResult(
              apps
                .map(
                  (a) =>
                    `${a.name} (pid ${a.pid})${a.active ? ' — active' : ''}: ${a.windows.map((w) => JSON.stringify(w.name || '(untitled)')).join(', ') || 'no windows'}`,
                )
                .join('\n'),
            );
          }
          case 'check_permissions':
            return okResult(JSON.stringify(await client.call('check_permissions', {}, opts), null, 2));
          default: {
            const method = i.action as ActionMethod;
            await checkAction(guard, ctx, method, i, doing, signal);
            const out = await driver.act(
              method,
              {
                app: i.app,
                ref: i.ref,
                value: i.value,
                text: i.text,
                keys: i.keys,
                direction: i.direction,
                amount: i.amount,
                intoView: i.into_view,
              },
              opts,
            );
            return okResult(out.summary);
          }
        }
      }),
  };
}

/**
 * Before an action: the app it acts on (the ref's, the keyboard focus's, the one `focus` names) is not Rein
 * and is the app the input names; text and keys for a terminal pass the terminal checks (guiGuard.ts).
 */
async function checkAction(
  guard: GuiGuard,
  ctx: ToolContext,
  method: ActionMethod,
  i: AccessibilityInput,
  doing: string,
  signal: AbortSignal,
): Promise<void> {
  let app: GuiApp | undefined;
  let where: string | undefined;
  if (i.ref) {
    const entry = refsOf(ctx).get(i.ref);
    app = entry.app;
    where = i.ref.trim();
    if (method === 'click' || method === 'press') guard.refusePasteItem(app, entry, doing);
  } else if (method === 'key' || method === 'type_text') {
    app = await guard.focused(signal);
    where = 'focus';
  } else if (method === 'focus' && i.app) {
    app = resolveApp(i.app, await guard.apps(signal));
    where = 'focus';
  }
  if (!app || where === undefined) return;
  await guard.refuseRein(app, doing);
  guard.refuseOtherApp(i.app, app, doing);
  if (method === 'type_text' && i.text) await guard.typing(ctx, app, where, i.text);
  else if (method === 'set_value' && i.value !== undefined) await guard.typing(ctx, app, where, i.value, true);
  else if (method === 'key' && i.keys) guard.keys(ctx, app, where, i.keys);
  else if (method !== 'get_value') guard.refuseWhileTyping(ctx, doing, app, where);
}

// ------------------------------------------------------------------------------------------ wait_for

const waitInput = z.strictObject({
  condition: z
    .enum(['exists', 'gone', 'value', 'enabled', 'focused', 'checked', 'unchecked', 'window'])
    .describe(
      'exists/gone: an element matching role/name/value (or ref, for gone); value/enabled/focused/checked/unchecked: the ref; window: a window title containing value.',
    ),
  ref: z.string().optional(),
  app: z.string().optional().describe('App name or pid.'),
  role: AxRole.optional(),
  name: z.string().optional(),
  value: z.string().optional(),
  exact: z.boolean().optional().describe('Compare value/name exactly instead of "contains".'),
  timeout: z.number().positive().max(120).optional().describe('Seconds (default 10).'),
});
type WaitInput = z.infer<typeof waitInput>;

export function waitForTool(client: AXClient, guard = new GuiGuard(client)): Tool<WaitInput> {
  return {
    name: 'wait_for',
    source: 'gui',
    description:
      'Wait until something holds in another app’s UI — an element appears or disappears, a ref gets a value, becomes enabled, focused or checked, or a window opens — instead of sleeping. Fails with TIMEOUT when it does not happen in time.',
    input: waitInput,
    isReadOnly: () => false,
    isConcurrencySafe: () => false,
    isDestructive: () => false,
    traits: GUI,
    summarize: (i) => callSummaryOf('wait_for', i),
    call: (i, ctx, signal) =>
      guarded(async () => {
        guard.refuseReinName(i.app, `wait_for ${i.condition}`);
        if (i.ref) await guard.refuseRein(refsOf(ctx).get(i.ref).app, `wait_for ${i.condition} ${i.ref}`);
        const driver = new AxDriver(client, refsOf(ctx));
        const r = await driver.waitFor(
          {
            condition: i.condition,
            ref: i.ref,
            app: i.app,
            role: i.role,
            name: i.name,
            value: i.value,
            exact: i.exact,
            timeoutMs: Math.round((i.timeout ?? 10) * 1000),
          },
          { signal },
        );
        const el = r.element ? ` (${r.element.role}${r.element.name ? ` ${JSON.stringify(r.element.name)}` : ''})` : '';
        return okResult(`${i.condition}: met after ${Math.round(r.waited_ms)} ms${el}`);
      }),
  };
}

// ------------------------------------------------------------------------------------------ screenshot

const screenshotInput = z.strictObject({
  app: z.string().optional().describe('Only the first window of this app (name or pid); default: the whole screen.'),
});

async function appRegion(
  client: AXClient,
  guard: GuiGuard,
  app: string | undefined,
  signal: AbortSignal,
): Promise<[number, number, number, number] | undefined> {
  if (!app) return undefined;
  guard.refuseReinName(app, 'screenshot');
  const { apps } = await client.call('list_apps', {}, { signal });
  const want = app.trim().toLowerCase();
  const hit =
    apps.find((a) => String(a.pid) === want) ??
    apps.find((a) => a.name.toLowerCase() === want) ??
    apps.find((a) => a.name.toLowerCase().includes(want));
  if (!hit)
    throw new AxError('NOT_FOUND', `no running app matches ${JSON.stringify(app)}`, 'screenshot', {
      hint: 'accessibility list_apps shows the names',
    });
  await guard.refuseRein(hit, 'screenshot');
  const win = hit.windows.find((w) => w.bounds);
  if (!win?.bounds) throw new AxError('NOT_VISIBLE', `${hit.name} has no window on screen`, 'screenshot');
  return win.bounds as [number, number, number, number];
}

export function screenshotTool(client: AXClient, guard = new GuiGuard(client)): Tool<z.infer<typeof screenshotInput>> {
  return {
    name: 'screenshot',
    source: 'gui',
    description:
      'Take a screenshot of the screen (or of one app’s window), scaled to at most 1280 pixels wide. Prefer accessibility snapshot to find and operate controls.',
    input: screenshotInput,
    isReadOnly: () => false,
    isConcurrencySafe: () => false,
    isDestructive: () => false,
    traits: { ...GUI, looksAtScreen: true },
    summarize: (i) => callSummaryOf('screenshot', i),
    call: (i, _ctx, signal) =>
      guarded(async () => {
        const region = await appRegion(client, guard, i.app, signal);
        const shot = await client.call('screenshot', { ...(region ? { region } : {}), max_width: 1280 }, { signal });
        return okResult(
          `Screenshot of ${i.app ? `${i.app}’s window` : 'the screen'} at (${shot.region.join(', ')}), ${shot.image.width}×${shot.image.height} px.`,
          [png(shot.png)],
        );
      }),
  };
}

// ------------------------------------------------------------------------------------------ computer

/** The model's coordinates are those of the screenshots it gets: the screen scaled to at most this wide. */
export const COMPUTER_MAX_WIDTH = 1280;

const Point = z.tuple([z.number(), z.number()]);
const computerInput = z.strictObject({
  action: z.enum([
    'screenshot',
    'left_click',
    'right_click',
    'middle_click',
    'double_click',
    'triple_click',
    'mouse_move',
    'left_click_drag',
    'key',
    'type',
    'scroll',
  ]),
  coordinate: Point.optional().describe('[x, y] in the screenshot’s pixels.'),
  start_coordinate: Point.optional().describe(
    'left_click_drag: where the drag starts ([x, y]); coordinate is where it ends.',
  ),
  text: z.string().optional().describe('type: the text; key: the keys, e.g. "ctrl+s", "Return".'),
  scroll_direction: z.enum(['up', 'down', 'left', 'right']).optional(),
  scroll_amount: z.number().int().min(1).max(50).optional(),
});
type ComputerInput = z.infer<typeof computerInput>;

export interface ScreenScale {
  /** Screen size in the helper's units. */
  screen: { width: number; height: number };
  /** Screenshot pixels per screen unit (≤ 1). */
  factor: number;
}

export function screenScale(screen: { width: number; height: number }, maxWidth = COMPUTER_MAX_WIDTH): ScreenScale {
  return { screen, factor: screen.width > maxWidth ? maxWidth / screen.width : 1 };
}

/** A point the model gave (screenshot pixels) on the real screen, clamped to it. */
export function toScreen(p: readonly [number, number], s: ScreenScale): [number, number] {
  const clamp = (v: number, max: number) => Math.max(0, Math.min(max - 1, Math.round(v)));
  return [clamp(p[0] / s.factor, s.screen.width), clamp(p[1] / s.factor, s.screen.height)];
}

export function computerTool(client: AXClient, guard = new GuiGuard(client)): Tool<ComputerInput> {
  const scale = async (): Promise<ScreenScale> => {
    const hello = client.hello ?? (await client.start());
    const screen = hello.screen;
    if (!screen)
      throw new AxError(
        'PERMISSION',
        'the helper has no screen to work on (no display, or no Screen Recording permission)',
        'computer',
      );
    return screenScale(screen);
  };
  const shot = async (signal: AbortSignal) => client.call('screenshot', { max_width: COMPUTER_MAX_WIDTH }, { signal });
  return {
    name: 'computer',
    source: 'gui',
    description: [
      'Use the mouse and keyboard by screen coordinates, and take screenshots. Coordinates are pixels of the screenshots this tool returns',
      `(the screen scaled to at most ${COMPUTER_MAX_WIDTH} px wide). Every action returns a fresh screenshot.`,
      'Prefer the accessibility tool: refs cannot hit the wrong element, coordinates can.',
    ].join(' '),
    input: computerInput,
    isReadOnly: () => false,
    isConcurrencySafe: () => false,
    isDestructive: () => false,
    traits: { ...GUI, typesText: true },
    approvalSummaryChars: TYPED_SUMMARY_CHARS,
    summarize: (i) => callSummaryOf('computer', i),
    call: (i, ctx, signal) =>
      guarded(async () => {
        const s = await scale();
        const doing = `computer ${i.action}`;
        // A point on one of Rein's windows is refused; so is a click while a line is being typed into a
        // terminal (it could move the keyboard to another tab).
        const at = async (p: readonly [number, number] | undefined, what: string) => {
          if (!p) throw new AxError('INVALID', `${i.action} needs ${what}`, 'computer');
          const point = toScreen(p, s);
          if (i.action !== 'scroll') guard.refuseWhileTyping(ctx, `${doing} at (${point.join(', ')})`);
          // A middle click pastes the selection (X11): never into a terminal.
          await guard.refuseReinPoints(
            [point],
            `${doing} at (${point.join(', ')})`,
            signal,
            i.action === 'middle_click',
          );
          return point;
        };
        // Keys and text go to the app with the keyboard focus: not Rein, and a terminal's checks.
        const keyboard = async (): Promise<GuiApp | undefined> => {
          const app = await guard.focused(signal);
          if (app) await guard.refuseRein(app, doing);
          return app;
        };
        let did: string;
        switch (i.action) {
          case 'screenshot':
            did = 'screenshot';
            break;
          case 'left_click':
          case 'right_click':
          case 'middle_click':
          case 'double_click':
          case 'triple_click': {
            const [x, y] = await at(i.coordinate, 'coordinate');
            const button = i.action === 'right_click' ? 'right' : i.action === 'middle_click' ? 'middle' : 'left';
            const count = i.action === 'double_click' ? 2 : i.action === 'triple_click' ? 3 : 1;
            await client.call('mouse', { action: 'click', x, y, button, count }, { signal });
            did = `${i.action} at (${x}, ${y}) on the screen`;
            break;
          }
          case 'mouse_move': {
            if (!i.coordinate) throw new AxError('INVALID', `${i.action} needs coordinate`, 'computer');
            const [x, y] = toScreen(i.coordinate, s);
            await client.call('mouse', { action: 'move', x, y }, { signal });
            did = `moved the pointer to (${x}, ${y})`;
            break;
          }
          case 'left_click_drag': {
            const [x, y] = await at(i.start_coordinate, 'start_coordinate');
            const [tx, ty] = await at(i.coordinate, 'coordinate');
            await client.call('mouse', { action: 'drag', x, y, to_x: tx, to_y: ty }, { signal });
            did = `dragged from (${x}, ${y}) to (${tx}, ${ty})`;
            break;
          }
          case 'key': {
            if (!i.text) throw new AxError('INVALID', 'key needs text (the keys)', 'computer');
            const app = await keyboard();
            if (app) guard.keys(ctx, app, 'focus', i.text);
            await client.call('key', { keys: i.text }, { signal });
            did = `pressed ${i.text}`;
            break;
          }
          case 'type': {
            if (!i.text) throw new AxError('INVALID', 'type needs text', 'computer');
            const app = await keyboard();
            if (app) await guard.typing(ctx, app, 'focus', i.text);
            await client.call('type_text', { text: i.text }, { signal });
            did = `typed ${i.text.length} character${i.text.length === 1 ? '' : 's'}`;
            break;
          }
          case 'scroll': {
            const [x, y] = await at(i.coordinate, 'coordinate');
            await client.call(
              'scroll',
              { x, y, direction: i.scroll_direction ?? 'down', amount: i.scroll_amount ?? 3 },
              { signal },
            );
            did = `scrolled ${i.scroll_direction ?? 'down'} at (${x}, ${y})`;
            break;
          }
        }
        const picture = await shot(signal);
        return okResult(
          `${did}; screenshot ${picture.image.width}×${picture.image.height} px (screen ${s.screen.width}×${s.screen.height}).`,
          [png(picture.png)],
        );
      }),
  };
}

// ------------------------------------------------------------------------------------------ applescript

const APPLESCRIPT_MAX = 20_000;

const applescriptInput = z.strictObject({
  script: z.string().min(1).max(APPLESCRIPT_MAX).describe('AppleScript source, run with osascript.'),
  timeout: z.number().positive().max(120).optional().describe('Seconds (default 30).'),
});

/** macOS only: the provider leaves it out elsewhere. */
export function applescriptTool(): Tool<z.infer<typeof applescriptInput>> {
  return {
    name: 'applescript',
    source: 'gui',
    description:
      'Run an AppleScript (osascript) to control a scriptable Mac app; returns what the script returns. Reports its own success: no screenshot is needed to check it.',
    input: applescriptInput,
    isReadOnly: () => false,
    isConcurrencySafe: () => false,
    isDestructive: () => false,
    traits: { ...GUI, repeatable: false, reportsOwnSuccess: true, runsScript: 'applescript' },
    // A person approves what they see: an approval request carries the whole script.
    approvalSummaryChars: APPLESCRIPT_MAX,
    summarize: (i) => callSummaryOf('applescript', i),
    async call(i, _ctx, signal) {
      const r = await runProcess({
        file: '/usr/bin/osascript',
        args: ['-e', i.script],
        timeoutMs: Math.round((i.timeout ?? 30) * 1000),
        signal,
      });
      if (r.kind === 'spawn_failed') return errorResult('business', `osascript could not run: ${r.error.message}`);
      if (r.kind === 'timed_out')
        return errorResult('transient', `the script ran longer than ${i.timeout ?? 30} s and was stopped`);
      if (r.kind === 'cancelled') return errorResult('transient', 'cancelled');
      if (r.exitCode !== 0)
        return errorResult(
          /not allowed|1743/.test(r.stderr) ? 'permission' : 'business',
          `osascript failed: ${r.stderr.trim() || `exit code ${r.exitCode}`}`,
        );
      return okResult(r.stdout.trim() || '(the script returned nothing)');
    },
  };
}

export type { AxResult };
