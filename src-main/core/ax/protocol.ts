/**
 * The accessibility helper's protocol, in one place: JSON-RPC 2.0, one JSON object per line, over a
 * Unix socket (or the helper's stdin/stdout). Both helpers — Swift on macOS, Python on Linux — answer
 * these methods with these shapes; docs/ax-protocol.md is the prose of this file.
 *
 * Elements cross the wire with an opaque `id` (AT-SPI: `<bus name>|<object path>`; macOS: a handle the
 * helper holds). Refs (`e12`) are Rein's: the client keeps, per ref, what the element was in its snapshot
 * (id, role, name, named ancestors, app) and sends that whole description — a `Target` — with every
 * action, so the helper can resolve it by identity and, if the element was recreated, re-match it by
 * role + name + ancestry. Helpers keep no ref table; a restarted helper resolves old refs as well.
 *
 * Results are parsed as loose objects: a newer helper may add fields, never change these.
 */
import { z } from 'zod';

export const AX_PROTOCOL_VERSION = 1;

/** The one role vocabulary of both platforms (AX roles and AT-SPI roles map onto it). */
export const AX_ROLES = [
  'button',
  'checkbox',
  'radio',
  'switch',
  'textfield',
  'textarea',
  'slider',
  'spinbutton',
  'combobox',
  'menuitem',
  'menu',
  'menubar',
  'link',
  'tab',
  'tablist',
  'row',
  'cell',
  'header',
  'list',
  'table',
  'calendar',
  'window',
  'dialog',
  'text',
  'heading',
  'image',
  'scrollbar',
  'progressbar',
  'toolbar',
  'statusbar',
  'separator',
  'tooltip',
  'document',
  'application',
  'group',
  'unknown',
] as const;
export const AxRole = z.enum(AX_ROLES);
export type AxRole = z.infer<typeof AxRole>;

/** What a person operates; `filter: interactive` keeps these (and the windows and named containers around them). */
export const INTERACTIVE_ROLES: ReadonlySet<AxRole> = new Set<AxRole>([
  'button',
  'checkbox',
  'radio',
  'switch',
  'textfield',
  'textarea',
  'slider',
  'spinbutton',
  'combobox',
  'menuitem',
  'link',
  'tab',
  'row',
  'cell',
  'calendar',
]);

export const AX_STATES = [
  'disabled',
  'focused',
  'checked',
  'mixed',
  'pressed',
  'selected',
  'expanded',
  'collapsed',
  'modal',
  'readonly',
  'hidden',
] as const;

/** Screen pixels (AT-SPI) or points (macOS): x, y, width, height. */
export const Bounds = z.tuple([z.number(), z.number(), z.number(), z.number()]);
export type Bounds = z.infer<typeof Bounds>;

// ------------------------------------------------------------------------------------------------ errors

export const AX_ERROR_CODES = [
  'STALE_REF',
  'NOT_FOUND',
  'AMBIGUOUS',
  'NOT_VISIBLE',
  'DISABLED',
  'TIMEOUT',
  'PERMISSION',
  'APP_GONE',
  'UNSUPPORTED',
  'FAILED',
  'INVALID',
] as const;
export const AxErrorCode = z.enum(AX_ERROR_CODES);
export type AxErrorCode = z.infer<typeof AxErrorCode>;

/** JSON-RPC error numbers of the protocol's codes (the name also travels in `error.data.code`). */
export const AX_ERROR_NUMBERS: Readonly<Record<AxErrorCode, number>> = {
  STALE_REF: -32001,
  NOT_FOUND: -32002,
  AMBIGUOUS: -32003,
  NOT_VISIBLE: -32004,
  DISABLED: -32005,
  TIMEOUT: -32006,
  PERMISSION: -32007,
  APP_GONE: -32008,
  UNSUPPORTED: -32009,
  FAILED: -32010,
  INVALID: -32602,
};

/** The code of an error reply: its `data.code` when it names one, else from the number. */
export function errorCodeOf(error: { code: number; data?: unknown }): AxErrorCode {
  const named = (error.data as { code?: unknown } | undefined)?.code;
  const parsed = AxErrorCode.safeParse(named);
  if (parsed.success) return parsed.data;
  if (error.code === -32601) return 'UNSUPPORTED';
  if (error.code === -32602 || error.code === -32600 || error.code === -32700) return 'INVALID';
  const byNumber = (Object.entries(AX_ERROR_NUMBERS) as [AxErrorCode, number][]).find(([, n]) => n === error.code);
  return byNumber ? byNumber[0] : 'FAILED';
}

// ------------------------------------------------------------------------------------------------ shapes

export const AppInfo = z.looseObject({
  name: z.string(),
  pid: z.number().int(),
  /** AT-SPI unique bus name; a restarted app has a new one. */
  bus: z.string().optional(),
  toolkit: z.string().optional(),
});
export type AppInfo = z.infer<typeof AppInfo>;

export const WindowInfo = z.looseObject({
  id: z.string(),
  name: z.string(),
  bounds: Bounds.nullable().optional(),
  active: z.boolean().optional(),
});

export const Ancestor = z.object({ role: AxRole, name: z.string() });
export type Ancestor = z.infer<typeof Ancestor>;

/** An element as a helper reports it. Values are cut at 200 characters; a secure field has none. */
export const WireElement = z.looseObject({
  id: z.string(),
  role: AxRole,
  name: z.string(),
  raw_role: z.string().optional(),
  states: z.array(z.string()).optional(),
  bounds: Bounds.nullable().optional(),
  value: z.string().optional(),
  description: z.string().optional(),
  identifier: z.string().optional(),
  secure: z.boolean().optional(),
  /** Snapshots: index of the parent in the same list (-1 for a top-level window) and depth. */
  parent: z.number().int().optional(),
  depth: z.number().int().optional(),
  /** Find results: the named ancestors from the window down. */
  ancestry: z.array(Ancestor).optional(),
});
export type WireElement = z.infer<typeof WireElement>;

/** What an action is about: the element as it was in its snapshot. */
export const Target = z.object({
  id: z.string(),
  role: AxRole,
  /** Whitespace collapsed; compared exactly. */
  name: z.string(),
  app: z.object({ pid: z.number().int(), name: z.string() }),
  /** Named ancestors (and the window), from the window down to the parent. */
  ancestry: z.array(Ancestor),
  identifier: z.string().optional(),
});
export type Target = z.infer<typeof Target>;

/** What the action found it acting on, and how the target was found. */
export const ActedOn = z.looseObject({
  id: z.string(),
  role: AxRole,
  name: z.string(),
  bounds: Bounds.nullable(),
  resolved_by: z.enum(['identity', 'rematch']),
});
export type ActedOn = z.infer<typeof ActedOn>;

/** Whether the app visibly reacted (an accessibility event from it) before the helper answered. */
export const Effect = z.looseObject({ observed: z.boolean(), events: z.array(z.string()), waited_ms: z.number() });
export type Effect = z.infer<typeof Effect>;

const AppParams = { pid: z.number().int().optional(), app: z.string().optional() };
/** How long an action waits for its effect before it answers (default 800 ms, at most 10 s). */
const WaitParam = { wait_ms: z.number().int().min(0).max(10_000).optional() };

const ActionResult = z.looseObject({
  acted_on: ActedOn.optional(),
  method: z.string().optional(),
  effect: Effect.optional(),
});

const PngResult = {
  png: z.string(),
  image: z.object({ width: z.number().int(), height: z.number().int() }),
  region: Bounds,
  /** image pixels per screen unit */
  scale: z.number(),
};

export const Screen = z.looseObject({ width: z.number(), height: z.number(), scale: z.number() });

export const SnapshotParams = z.object({
  ...AppParams,
  window: z.string().optional(),
  filter: z.enum(['all', 'interactive']).optional(),
  max_nodes: z.number().int().positive().max(5000).optional(),
  max_depth: z.number().int().positive().max(200).optional(),
  include_hidden: z.boolean().optional(),
});
export const SnapshotResult = z.looseObject({
  app: AppInfo,
  windows: z.array(z.looseObject({ id: z.string(), name: z.string() })),
  elements: z.array(WireElement),
  truncated: z.boolean(),
  visited: z.number().optional(),
  took_ms: z.number().optional(),
});
export type SnapshotResult = z.infer<typeof SnapshotResult>;

export const METHODS = {
  hello: {
    params: z.object({ protocol: z.number().int(), client: z.string() }),
    result: z.looseObject({
      protocol: z.number().int(),
      helper: z.looseObject({ name: z.string(), version: z.string(), platform: z.string(), pid: z.number().int() }),
      capabilities: z.array(z.string()),
      screen: Screen.nullable().optional(),
    }),
    mutation: false,
    timeoutMs: 10_000,
  },
  ping: { params: z.object({}), result: z.looseObject({ ok: z.literal(true) }), mutation: false, timeoutMs: 2_000 },
  list_apps: {
    params: z.object({}),
    result: z.looseObject({ apps: z.array(AppInfo.extend({ windows: z.array(WindowInfo), active: z.boolean() })) }),
    mutation: false,
    timeoutMs: 5_000,
  },
  snapshot: { params: SnapshotParams, result: SnapshotResult, mutation: false, timeoutMs: 15_000 },
  find: {
    params: z.object({
      ...AppParams,
      role: AxRole.optional(),
      name: z.string().optional(),
      value: z.string().optional(),
      identifier: z.string().optional(),
      exact: z.boolean().optional(),
      include_hidden: z.boolean().optional(),
      max_results: z.number().int().positive().max(200).optional(),
    }),
    result: z.looseObject({ app: AppInfo, elements: z.array(WireElement), truncated: z.boolean() }),
    mutation: false,
    timeoutMs: 5_000,
  },
  click: {
    params: z.object({
      target: Target.optional(),
      x: z.number().optional(),
      y: z.number().optional(),
      button: z.enum(['left', 'right', 'middle']).optional(),
      count: z.number().int().min(1).max(3).optional(),
      ...WaitParam,
    }),
    result: ActionResult,
    mutation: true,
    timeoutMs: 4_000,
  },
  press: { params: z.object({ target: Target, ...WaitParam }), result: ActionResult, mutation: true, timeoutMs: 4_000 },
  set_value: {
    params: z.object({ target: Target, value: z.string(), ...WaitParam }),
    result: ActionResult.extend({ value: z.string().nullable().optional(), secure: z.boolean().optional() }),
    mutation: true,
    timeoutMs: 4_000,
  },
  get_value: {
    params: z.object({ target: Target }),
    result: z.looseObject({
      acted_on: ActedOn,
      value: z.string().nullable(),
      kind: z.enum(['text', 'number', 'state', 'name']),
      secure: z.boolean().optional(),
      min: z.number().nullable().optional(),
      max: z.number().nullable().optional(),
    }),
    mutation: false,
    timeoutMs: 4_000,
  },
  focus: {
    params: z.object({ target: Target.optional(), ...AppParams }),
    result: z.looseObject({ focused: z.boolean(), acted_on: ActedOn.optional(), window: z.string().optional() }),
    mutation: true,
    timeoutMs: 4_000,
  },
  scroll: {
    params: z.object({
      target: Target.optional(),
      direction: z.enum(['up', 'down', 'left', 'right']).optional(),
      amount: z.number().int().min(1).max(50).optional(),
      into_view: z.boolean().optional(),
      x: z.number().optional(),
      y: z.number().optional(),
      ...WaitParam,
    }),
    result: ActionResult.extend({ in_view: z.boolean().optional() }),
    mutation: true,
    timeoutMs: 4_000,
  },
  key: {
    /** Without a target, `pid`/`app` names the app the keys are for (else: the app holding the keyboard focus). */
    params: z.object({
      keys: z.union([z.string(), z.array(z.string()).max(50)]),
      target: Target.optional(),
      ...AppParams,
      ...WaitParam,
    }),
    result: ActionResult,
    mutation: true,
    timeoutMs: 4_000,
  },
  type_text: {
    params: z.object({ text: z.string().min(1).max(10_000), target: Target.optional(), ...AppParams, ...WaitParam }),
    result: ActionResult,
    mutation: true,
    timeoutMs: 15_000,
  },
  mouse: {
    params: z.object({
      action: z.enum(['click', 'move', 'down', 'up', 'drag']),
      x: z.number(),
      y: z.number(),
      to_x: z.number().optional(),
      to_y: z.number().optional(),
      button: z.enum(['left', 'right', 'middle']).optional(),
      count: z.number().int().min(1).max(3).optional(),
      ...WaitParam,
    }),
    result: ActionResult.extend({ point: z.tuple([z.number(), z.number()]).optional() }),
    mutation: true,
    timeoutMs: 4_000,
  },
  wait_for: {
    params: z.object({
      ...AppParams,
      condition: z.enum(['exists', 'gone', 'value', 'enabled', 'focused', 'checked', 'unchecked', 'window']),
      query: z
        .object({
          role: AxRole.optional(),
          name: z.string().optional(),
          value: z.string().optional(),
          identifier: z.string().optional(),
        })
        .optional(),
      target: Target.optional(),
      value: z.string().optional(),
      exact: z.boolean().optional(),
      timeout_ms: z.number().int().min(0).max(120_000).optional(),
    }),
    result: z.looseObject({ met: z.literal(true), waited_ms: z.number(), element: WireElement.optional() }),
    mutation: false,
    /** Plus the wait's own timeout (see timeoutFor). */
    timeoutMs: 3_000,
  },
  annotate: {
    params: SnapshotParams.extend({
      max_labels: z.number().int().positive().max(200).optional(),
      max_width: z.number().int().min(0).max(8000).optional(),
    }),
    result: SnapshotResult.extend({
      ...PngResult,
      labels: z.array(z.object({ label: z.number().int(), index: z.number().int() })),
      screen: Screen.nullable().optional(),
    }),
    mutation: false,
    timeoutMs: 20_000,
  },
  screenshot: {
    params: z.object({ region: Bounds.optional(), max_width: z.number().int().min(0).max(8000).optional() }),
    result: z.looseObject({ ...PngResult, screen: Screen.nullable().optional() }),
    mutation: false,
    timeoutMs: 10_000,
  },
  check_permissions: {
    params: z.object({}),
    result: z.looseObject({
      accessibility: z.enum(['granted', 'denied', 'unknown', 'not_applicable']),
      screen_recording: z.enum(['granted', 'denied', 'unknown', 'not_applicable']),
      automation: z.enum(['granted', 'denied', 'unknown', 'not_applicable']),
      details: z.record(z.string(), z.unknown()).optional(),
    }),
    mutation: false,
    timeoutMs: 5_000,
  },
} as const satisfies Record<string, { params: z.ZodType; result: z.ZodType; mutation: boolean; timeoutMs: number }>;

export type AxMethod = keyof typeof METHODS;
export type AxParams<M extends AxMethod> = z.input<(typeof METHODS)[M]['params']>;
export type AxResult<M extends AxMethod> = z.output<(typeof METHODS)[M]['result']>;

export const AX_METHOD_NAMES = Object.keys(METHODS) as AxMethod[];

/** How long the client waits for an answer: the method's time plus whatever wait the call asked for. */
export function timeoutFor<M extends AxMethod>(method: M, params: AxParams<M>): number {
  const p = params as { wait_ms?: number; timeout_ms?: number };
  return METHODS[method].timeoutMs + (p.wait_ms ?? 0) + (method === 'wait_for' ? (p.timeout_ms ?? 10_000) : 0);
}

// ------------------------------------------------------------------------------------------------ wire

export const RpcErrorBody = z.object({ code: z.number(), message: z.string(), data: z.unknown().optional() });
export type RpcErrorBody = z.infer<typeof RpcErrorBody>;

/** One line from the helper: an answer to a request (by id), or an error it could not tie to one (id null). */
export const RpcReply = z.union([
  z.object({
    jsonrpc: z.literal('2.0'),
    id: z.number().int(),
    result: z.unknown().refine((v) => v !== undefined, 'result is missing'),
  }),
  z.object({ jsonrpc: z.literal('2.0'), id: z.number().int().nullable(), error: RpcErrorBody }),
]);
export type RpcReply = z.infer<typeof RpcReply>;

/** The line a helper started with `--socket` prints on stdout once it listens. */
export const ReadyLine = z.looseObject({
  ready: z.literal(true),
  socket: z.string(),
  pid: z.number().int(),
  protocol: z.number().int(),
});

/** Whitespace collapsed: how names are compared on both sides. */
export const normName = (s: string): string => s.split(/\s+/).filter(Boolean).join(' ');
