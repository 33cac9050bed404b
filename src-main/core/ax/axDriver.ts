/**
 * What the GUI tools and `rein ax` both do with a client and a ref table: take snapshots (giving refs),
 * find, act on a ref (sending the ref's Target, then noting what the helper acted on), wait, annotate.
 * Every action's outcome says what it acted on — role, name, bounds — and whether the app reacted.
 */
import type { AXClient, CallOptions } from './axClient.js';
import { AxError } from './axError.js';
import type { ActedOn, AxParams, AxResult, AxRole, Effect } from './protocol.js';
import { describeActedOn, describeEffect } from './render.js';
import type { RefElement, RefTable, SnapshotView } from './refs.js';

export type ActionMethod = 'click' | 'press' | 'set_value' | 'get_value' | 'focus' | 'scroll' | 'key' | 'type_text';

export interface AppChoice {
  /** A name or a pid (digits); the app with the active window when absent. */
  app?: string | undefined;
}

export interface ViewId {
  /** The id the snapshot (or find) is recorded under; the table numbers them s1, s2… otherwise. */
  snapshotId?: string | undefined;
}

export interface SnapshotRequest extends AppChoice, ViewId {
  window?: string | undefined;
  filter?: 'all' | 'interactive' | undefined;
  maxNodes?: number | undefined;
  includeHidden?: boolean | undefined;
}

export interface FindRequest extends AppChoice, ViewId {
  role?: AxRole | undefined;
  name?: string | undefined;
  value?: string | undefined;
  identifier?: string | undefined;
  exact?: boolean | undefined;
  maxResults?: number | undefined;
}

export interface ActionRequest extends AppChoice {
  ref?: string | undefined;
  value?: string | undefined;
  text?: string | undefined;
  keys?: string | undefined;
  direction?: 'up' | 'down' | 'left' | 'right' | undefined;
  amount?: number | undefined;
  intoView?: boolean | undefined;
  x?: number | undefined;
  y?: number | undefined;
  button?: 'left' | 'right' | 'middle' | undefined;
  count?: number | undefined;
  waitMs?: number | undefined;
}

export interface ActionOutcome {
  method: ActionMethod;
  ref?: string;
  actedOn?: ActedOn;
  effect?: Effect;
  /** The helper's whole answer (value, in_view, method used…). */
  result: Record<string, unknown>;
  /** One line for the model or a person. */
  summary: string;
}

export interface WaitRequest extends AppChoice {
  condition: AxParams<'wait_for'>['condition'];
  ref?: string | undefined;
  role?: AxRole | undefined;
  name?: string | undefined;
  value?: string | undefined;
  exact?: boolean | undefined;
  timeoutMs?: number | undefined;
}

const appParams = (a: AppChoice): { app?: string } =>
  a.app !== undefined && a.app.trim() !== '' ? { app: a.app.trim() } : {};
const defined = <T extends object>(o: T): T =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

const VERB: Record<ActionMethod, string> = {
  click: 'clicked',
  press: 'pressed',
  set_value: 'set the value of',
  get_value: 'read',
  focus: 'focused',
  scroll: 'scrolled',
  key: 'sent keys to',
  type_text: 'typed into',
};

export class AxDriver {
  constructor(
    readonly client: AXClient,
    readonly refs: RefTable,
  ) {}

  async snapshot(req: SnapshotRequest, opts: CallOptions = {}): Promise<SnapshotView> {
    const result = await this.client.call(
      'snapshot',
      defined({
        ...appParams(req),
        window: req.window,
        filter: req.filter,
        max_nodes: req.maxNodes,
        include_hidden: req.includeHidden,
      }),
      opts,
    );
    return this.refs.ingestSnapshot(result, req.snapshotId);
  }

  async find(
    req: FindRequest,
    opts: CallOptions = {},
  ): Promise<{ app: AxResult<'find'>['app']; elements: RefElement[]; truncated: boolean }> {
    if (!req.role && req.name === undefined && req.value === undefined && !req.identifier) {
      throw new AxError('INVALID', 'find needs a role, name, value or identifier', 'find');
    }
    const result = await this.client.call(
      'find',
      defined({
        ...appParams(req),
        role: req.role,
        name: req.name,
        value: req.value,
        identifier: req.identifier,
        exact: req.exact,
        max_results: req.maxResults,
      }),
      opts,
    );
    return {
      app: result.app,
      elements: this.refs.ingestFound(result.app, result.elements, req.snapshotId),
      truncated: result.truncated,
    };
  }

  async act(method: ActionMethod, req: ActionRequest, opts: CallOptions = {}): Promise<ActionOutcome> {
    const target = req.ref ? this.refs.target(req.ref) : undefined;
    const wait = req.waitMs !== undefined ? { wait_ms: req.waitMs } : {};
    let result: Record<string, unknown>;
    switch (method) {
      case 'click':
        if (!target && (req.x === undefined || req.y === undefined))
          throw new AxError('INVALID', 'click needs a ref (or x and y)', method);
        result = await this.client.call(
          'click',
          defined({ target, x: req.x, y: req.y, button: req.button, count: req.count, ...wait }),
          opts,
        );
        break;
      case 'press':
        result = await this.client.call('press', { target: need(target, method), ...wait }, opts);
        break;
      case 'set_value':
        if (req.value === undefined) throw new AxError('INVALID', 'set_value needs a value', method);
        result = await this.client.call('set_value', { target: need(target, method), value: req.value, ...wait }, opts);
        break;
      case 'get_value':
        result = await this.client.call('get_value', { target: need(target, method) }, opts);
        break;
      case 'focus':
        result = await this.client.call('focus', target ? { target } : appParams(req), opts);
        break;
      case 'scroll':
        if (!target && (req.x === undefined || req.y === undefined))
          throw new AxError('INVALID', 'scroll needs a ref (or x and y)', method);
        result = await this.client.call(
          'scroll',
          defined({
            target,
            direction: req.direction,
            amount: req.amount,
            into_view: req.intoView,
            x: req.x,
            y: req.y,
            ...wait,
          }),
          opts,
        );
        break;
      case 'key':
        if (!req.keys) throw new AxError('INVALID', 'key needs keys (Return, ctrl+a, …)', method);
        result = await this.client.call(
          'key',
          defined({ keys: req.keys, target, ...(target ? {} : appParams(req)), ...wait }),
          opts,
        );
        break;
      case 'type_text':
        if (!req.text) throw new AxError('INVALID', 'type_text needs text', method);
        result = await this.client.call(
          'type_text',
          defined({ text: req.text, target, ...(target ? {} : appParams(req)), ...wait }),
          opts,
        );
        break;
    }
    const actedOn = result.acted_on as ActedOn | undefined;
    if (req.ref) this.refs.noteActedOn(req.ref, actedOn);
    const effect = result.effect as Effect | undefined;
    return {
      method,
      ...(req.ref ? { ref: req.ref } : {}),
      ...(actedOn ? { actedOn } : {}),
      ...(effect ? { effect } : {}),
      result,
      summary: summarize(method, req, result, actedOn, effect),
    };
  }

  async waitFor(req: WaitRequest, opts: CallOptions = {}): Promise<AxResult<'wait_for'>> {
    const target = req.ref ? this.refs.target(req.ref) : undefined;
    const query = defined({
      role: req.role,
      name: req.name,
      value: req.condition === 'exists' || req.condition === 'gone' ? req.value : undefined,
    });
    return this.client.call(
      'wait_for',
      defined({
        ...appParams(req),
        condition: req.condition,
        target,
        query: Object.keys(query).length ? query : undefined,
        value: req.condition === 'exists' || req.condition === 'gone' ? undefined : req.value,
        exact: req.exact,
        timeout_ms: req.timeoutMs,
      }),
      opts,
    );
  }

  /** A screenshot with numbered boxes on the interactive elements, and which ref each number is. */
  async annotate(req: SnapshotRequest & { maxLabels?: number; maxWidth?: number }, opts: CallOptions = {}) {
    const result = await this.client.call(
      'annotate',
      defined({
        ...appParams(req),
        window: req.window,
        filter: req.filter ?? 'interactive',
        max_nodes: req.maxNodes,
        max_labels: req.maxLabels,
        max_width: req.maxWidth,
      }),
      opts,
    );
    const view = this.refs.ingestSnapshot(result, req.snapshotId);
    const labels = result.labels
      .map((l) => ({ label: l.label, element: view.elements[l.index]! }))
      .filter((l) => l.element);
    return {
      view,
      png: Buffer.from(result.png, 'base64'),
      image: result.image,
      region: result.region,
      scale: result.scale,
      labels,
    };
  }
}

function need<T>(target: T | undefined, method: string): T {
  if (!target) throw new AxError('INVALID', `${method} needs a ref`, method);
  return target;
}

function summarize(
  method: ActionMethod,
  req: ActionRequest,
  result: Record<string, unknown>,
  acted: ActedOn | undefined,
  effect: Effect | undefined,
): string {
  const what = acted
    ? describeActedOn(acted, req.ref)
    : req.x !== undefined
      ? `the point (${req.x}, ${req.y})`
      : 'the focused element';
  const via = typeof result.method === 'string' ? ` via ${result.method}` : '';
  const extra: string[] = [];
  if (method === 'get_value')
    extra.push(result.secure ? 'value: (secure, not shown)' : `value: ${JSON.stringify(result.value ?? null)}`);
  if (method === 'set_value' && 'value' in result)
    extra.push(result.secure ? 'value set (secure, not shown)' : `value now ${JSON.stringify(result.value ?? null)}`);
  if (method === 'focus') extra.push(result.focused ? 'it has the focus' : 'the focus did not move');
  if (method === 'scroll' && result.in_view) extra.push('it is in view');
  const e = describeEffect(effect);
  if (e && method !== 'get_value') extra.push(e);
  return `${VERB[method]} ${what}${via}${extra.length ? ` — ${extra.join('; ')}` : ''}`;
}
