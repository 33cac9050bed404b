/**
 * `rein ax …`: the accessibility bridge for people and scripts. Commands share a warm helper
 * (core/ax/warmHelper.ts): the first starts it, the next ones reuse it, and it ends after 60 s without a
 * call; with REIN_AX_WARM=0 each command starts its own helper and stops it. Snapshots (and find results) are saved under REIN_HOME/ax/snapshots, so a ref
 * printed by one command works in the next: the latest snapshot by default, `--snapshot ID` for another.
 * With --json a snapshot prints {snapshot, app, elements: [{ref, role, name, …}]}, an action {ok: true, …};
 * a refused or failed action exits 1 with {ok: false, code, message, hint}.
 */
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { reinHome } from '../../core/config/paths.js';
import { AXClient } from '../../core/ax/axClient.js';
import { AxDriver, type ActionMethod, type ActionOutcome } from '../../core/ax/axDriver.js';
import { AxError, isAxError } from '../../core/ax/axError.js';
import { AxRole, type AxResult } from '../../core/ax/protocol.js';
import { REF_RE, RefTable, type RefElement } from '../../core/ax/refs.js';
import { renderFound, renderSnapshot } from '../../core/ax/render.js';
import { newSnapshotId, SnapshotStore } from '../../core/ax/snapshotStore.js';
import { launchHelper, locateHelper, type HelperConnection } from '../../core/ax/helperProcess.js';
import { connectWarm, stopWarm, warmEnabled, warmIdleMs, warmPathsFor, warmStatus } from '../../core/ax/warmHelper.js';
import { UsageError, type CliIo } from '../io.js';

export const AX_HELP = `Usage:
  rein ax apps                                  applications on the accessibility bus and their windows
  rein ax snapshot [--app NAME|PID] [--window TITLE] [--interactive] [--max-nodes N] [--all-hidden]
                                                the element tree with refs (saved: its refs work below)
  rein ax find [--app A] [--role R] [--name TEXT] [--value TEXT] [--exact]
  rein ax click REF            rein ax press REF|KEYS [--ref REF]     rein ax focus REF|--app A
  rein ax set-value REF TEXT   rein ax get-value REF
  rein ax scroll REF [--direction up|down|left|right] [--amount N] [--into-view]
  rein ax type TEXT [--ref REF]
  rein ax wait-for exists|gone|value|enabled|focused|checked|unchecked|window [--ref REF]
                   [--role R] [--name TEXT] [--value TEXT] [--timeout SECONDS] [--app A]
  rein ax annotate --out FILE.png [--app A]     a screenshot with numbered boxes, and the refs they are
  rein ax permissions                           can the helper read apps and the screen?
  rein ax helper [stop]                         the warm helper the commands share: is it running, or end it

Options for every command: --json (machine-readable output), --snapshot ID (the snapshot whose refs
are meant; default the latest), --wait-ms N (how long an action waits for the app to react).

The commands share one helper, kept warm between them and ended after 60 s without a call
(REIN_AX_WARM_IDLE_MS sets the time). REIN_AX_WARM=0 starts a helper for each command instead.

A ref names the element as it was in its snapshot. If it has since changed label or role, is hidden,
disabled, or can no longer be told apart from another, the action is refused (STALE_REF, NOT_VISIBLE,
DISABLED, AMBIGUOUS; exit 1) and nothing is done: take a new snapshot.
`;

const OPTIONS = {
  json: { type: 'boolean' },
  app: { type: 'string' },
  window: { type: 'string' },
  interactive: { type: 'boolean' },
  filter: { type: 'string' },
  'max-nodes': { type: 'string' },
  'all-hidden': { type: 'boolean' },
  role: { type: 'string' },
  name: { type: 'string' },
  value: { type: 'string' },
  exact: { type: 'boolean' },
  ref: { type: 'string' },
  snapshot: { type: 'string' },
  direction: { type: 'string' },
  amount: { type: 'string' },
  'into-view': { type: 'boolean' },
  timeout: { type: 'string' },
  out: { type: 'string' },
  'wait-ms': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = ReturnType<typeof parse>['values'];

function parse(argv: string[]) {
  try {
    return parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

export interface AxCommandDeps {
  /** Tests bring a client; otherwise one is started for the command and stopped after it. */
  client?: AXClient;
}

export async function axCommand(argv: string[], io: CliIo, deps: AxCommandDeps = {}): Promise<number> {
  const { values, positionals } = parse(argv);
  const [sub, ...args] = positionals;
  if (values.help || sub === undefined) {
    io.stdout.write(AX_HELP);
    return values.help ? 0 : 2;
  }
  const json = values.json === true;
  if (sub === '__warm-serve') return warmServe(args[0], io);
  if (sub === 'helper') return helperCommand(args, io, json);
  const store = new SnapshotStore(join(reinHome(io.env), 'ax', 'snapshots'));
  const client =
    deps.client ??
    new AXClient({ clientName: 'rein-cli', idleMs: 0, connect: () => connectHelper(warmDir(io.env), io.env) });
  try {
    return await run(sub, args, values, { io, store, client, json });
  } catch (err) {
    if (err instanceof UsageError) throw err;
    return failure(err, io, json);
  } finally {
    if (!deps.client) await client.disposeAsync();
  }
}

const warmDir = (env: NodeJS.ProcessEnv) => join(reinHome(env), 'ax', 'warm');

/** The warm helper unless it is turned off (or its socket path would be too long); else one of our own. */
async function connectHelper(dir: string, env: NodeJS.ProcessEnv): Promise<HelperConnection> {
  if (warmEnabled(env)) {
    const warm = await connectWarm(dir, env);
    if (warm) return warm;
  }
  const found = locateHelper({ env });
  if (!found.ok) throw new AxError('HELPER_UNAVAILABLE', found.reason);
  return launchHelper(found.spec);
}

/** The hidden command the warm helper runs as (started detached by connectWarm). */
async function warmServe(key: string | undefined, io: CliIo): Promise<number> {
  if (!key) throw new UsageError('rein ax __warm-serve needs its key');
  const paths = warmPathsFor(warmDir(io.env), key);
  // The starting command reads the ready line and closes the pipe: nothing more goes there.
  process.stdout.on('error', () => undefined);
  const { serveWarm } = await import('../../core/ax/warmServer.js');
  return serveWarm({
    socket: paths.socket,
    info: paths.info,
    idleMs: warmIdleMs(io.env),
    env: io.env,
    ready: (line) => process.stdout.write(`${line}\n`),
    log: (line) => process.stderr.write(`${line}\n`),
  });
}

/** `rein ax helper`: the warm helper's state; `rein ax helper stop` ends it. */
async function helperCommand(args: string[], io: CliIo, json: boolean): Promise<number> {
  const what = args[0] ?? 'status';
  if (what === 'stop') {
    const stopped = await stopWarm(warmDir(io.env), io.env);
    if (json) print(io, { ok: true, stopped });
    else
      io.stdout.write(
        stopped ? 'The warm accessibility helper was stopped.\n' : 'No warm accessibility helper was running.\n',
      );
    return 0;
  }
  if (what !== 'status') throw new UsageError('rein ax helper takes no argument, or stop');
  const enabled = warmEnabled(io.env);
  const s = await warmStatus(warmDir(io.env), io.env);
  if (json) print(io, { ok: true, warm: enabled, idle_ms: warmIdleMs(io.env), ...s });
  else if (!enabled)
    io.stdout.write('The warm helper is off (REIN_AX_WARM=0): each rein ax command starts its own helper.\n');
  else if (!s.running)
    io.stdout.write(`No warm accessibility helper is running; the next rein ax command starts one (${s.socket}).\n`);
  else {
    io.stdout.write(`warm helper: relay pid ${s.pid}, helper pid ${s.helper_pid ?? '?'}, since ${s.started_at}\n`);
    io.stdout.write(
      `socket: ${s.socket}\nidle: ${Math.round((s.idle_for_ms ?? 0) / 1000)} s of ${Math.round((s.idle_ms ?? 0) / 1000)} s, ${s.calls ?? 0} calls served\n`,
    );
  }
  return 0;
}

interface Ctx {
  io: CliIo;
  store: SnapshotStore;
  client: AXClient;
  json: boolean;
}

const print = (io: CliIo, v: unknown) => io.stdout.write(`${JSON.stringify(v, null, 2)}\n`);

function failure(err: unknown, io: CliIo, json: boolean): number {
  const e = isAxError(err) ? err : new AxError('FAILED', err instanceof Error ? err.message : String(err));
  if (json)
    print(io, {
      ok: false,
      code: e.code,
      message: e.message,
      ...(e.hint ? { hint: e.hint } : {}),
      ...(e.method ? { method: e.method } : {}),
    });
  else io.stderr.write(`rein ax: ${e.code}: ${e.message}${e.hint ? `\n  hint: ${e.hint}` : ''}\n`);
  return 1;
}

const int = (v: string | undefined, flag: string, min: number, max: number): number | undefined => {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new UsageError(`${flag} must be a whole number from ${min} to ${max}`);
  return n;
};

function role(v: string | undefined): AxRole | undefined {
  if (v === undefined) return undefined;
  const r = AxRole.safeParse(v);
  if (!r.success) throw new UsageError(`--role must be one of ${AxRole.options.join(', ')}`);
  return r.data;
}

function needRef(v: string | undefined, cmd: string): string {
  if (!v) throw new UsageError(`rein ax ${cmd} needs a REF (from rein ax snapshot)`);
  if (!REF_RE.test(v)) throw new UsageError(`"${v}" is not a ref (refs look like e12)`);
  return v;
}

async function run(sub: string, args: string[], v: Values, c: Ctx): Promise<number> {
  const waitMs = int(v['wait-ms'], '--wait-ms', 0, 10_000);
  switch (sub) {
    case 'apps':
      return apps(c);
    case 'snapshot':
      return snapshot(v, c);
    case 'find':
      return find(v, c);
    case 'annotate':
      return annotate(v, c);
    case 'permissions':
      return permissions(c);
    case 'wait-for':
      return waitFor(args, v, c);
    case 'click':
      return act(c, v, 'click', { ref: needRef(args[0], 'click'), waitMs });
    case 'press': {
      const what = v.ref ?? args[0];
      if (!what) throw new UsageError('rein ax press needs a REF or KEYS (Return, ctrl+a …)');
      if (REF_RE.test(what) && !v.ref) return act(c, v, 'press', { ref: what, waitMs });
      return act(c, v, 'key', {
        keys: v.ref ? needKeys(args[0]) : what,
        ...(v.ref ? { ref: needRef(v.ref, 'press') } : {}),
        waitMs,
      });
    }
    case 'focus':
      if (args[0]) return act(c, v, 'focus', { ref: needRef(args[0], 'focus'), waitMs });
      if (!v.app) throw new UsageError('rein ax focus needs a REF or --app');
      return act(c, v, 'focus', { app: v.app, waitMs }, false);
    case 'set-value': {
      const ref = needRef(args[0], 'set-value');
      if (args.length < 2) throw new UsageError('rein ax set-value needs REF and TEXT');
      return act(c, v, 'set_value', { ref, value: args.slice(1).join(' '), waitMs });
    }
    case 'get-value':
      return act(c, v, 'get_value', { ref: needRef(args[0], 'get-value') });
    case 'scroll': {
      const direction = v.direction;
      if (direction !== undefined && !['up', 'down', 'left', 'right'].includes(direction))
        throw new UsageError('--direction must be up, down, left or right');
      return act(c, v, 'scroll', {
        ref: needRef(args[0], 'scroll'),
        ...(direction ? { direction: direction as 'up' } : {}),
        amount: int(v.amount, '--amount', 1, 50),
        intoView: v['into-view'] === true,
        waitMs,
      });
    }
    case 'type': {
      if (args.length === 0) throw new UsageError('rein ax type needs TEXT');
      return act(c, v, 'type_text', {
        text: args.join(' '),
        ...(v.ref ? { ref: needRef(v.ref, 'type') } : {}),
        waitMs,
      });
    }
    default:
      throw new UsageError(`unknown ax command "${sub}" (rein ax --help)`);
  }
}

function needKeys(k: string | undefined): string {
  if (!k) throw new UsageError('rein ax press --ref REF needs KEYS');
  return k;
}

async function apps(c: Ctx): Promise<number> {
  const { apps } = await c.client.call('list_apps', {});
  if (c.json) print(c.io, { ok: true, apps });
  else if (apps.length === 0) c.io.stdout.write('No applications are on the accessibility bus.\n');
  else {
    for (const a of apps) {
      c.io.stdout.write(`${a.name}  pid ${a.pid}${a.toolkit ? `  ${a.toolkit}` : ''}${a.active ? '  (active)' : ''}\n`);
      for (const w of a.windows)
        c.io.stdout.write(
          `  window ${JSON.stringify(w.name || '(untitled)')}${w.bounds ? ` at ${w.bounds.join(',')}` : ''}\n`,
        );
    }
  }
  return 0;
}

const publicElement = (el: RefElement, all: readonly RefElement[]) => {
  const parent = el.parent !== undefined && el.parent >= 0 ? all[el.parent]?.ref : undefined;
  return {
    ref: el.ref,
    role: el.role,
    name: el.name,
    ...(el.value !== undefined ? { value: el.value } : {}),
    ...(el.secure ? { secure: true } : {}),
    ...(el.states?.length ? { states: el.states } : {}),
    bounds: el.bounds ?? null,
    ...(el.description ? { description: el.description } : {}),
    ...(el.identifier ? { identifier: el.identifier } : {}),
    ...(el.depth !== undefined ? { depth: el.depth } : {}),
    ...(parent ? { parent: parent } : {}),
    ...(el.ancestry.length ? { ancestry: el.ancestry } : {}),
  };
};

async function snapshot(v: Values, c: Ctx): Promise<number> {
  const table = await c.store.tableForNext();
  const filter = v.interactive
    ? 'interactive'
    : v.filter === undefined
      ? undefined
      : v.filter === 'interactive' || v.filter === 'all'
        ? v.filter
        : bad('--filter must be all or interactive');
  const id = newSnapshotId();
  const view = await new AxDriver(c.client, table).snapshot({
    snapshotId: id,
    app: v.app,
    window: v.window,
    filter,
    maxNodes: int(v['max-nodes'], '--max-nodes', 1, 5000),
    includeHidden: v['all-hidden'] === true,
  });
  await c.store.save('snapshot', view, table);
  if (c.json) {
    print(c.io, {
      snapshot: view.id,
      app: view.app,
      windows: view.windows,
      truncated: view.truncated,
      elements: view.elements.map((el) => publicElement(el, view.elements)),
    });
  } else {
    c.io.stdout.write(
      `${renderSnapshot(view, Number.MAX_SAFE_INTEGER)}\n(saved as ${view.id}; its refs work in rein ax click REF and the like)\n`,
    );
  }
  return 0;
}

function bad(message: string): never {
  throw new UsageError(message);
}

async function find(v: Values, c: Ctx): Promise<number> {
  const table = await c.store.tableForNext();
  const id = newSnapshotId();
  const found = await new AxDriver(c.client, table).find({
    snapshotId: id,
    app: v.app,
    role: role(v.role),
    name: v.name,
    value: v.value,
    exact: v.exact,
  });
  await c.store.save(
    'find',
    {
      id,
      app: found.app,
      windows: [],
      truncated: found.truncated,
      takenAt: new Date().toISOString(),
      elements: found.elements,
    },
    table,
  );
  if (c.json)
    print(c.io, {
      snapshot: id,
      app: found.app,
      truncated: found.truncated,
      elements: found.elements.map((el) => publicElement(el, [])),
    });
  else c.io.stdout.write(`${renderFound(found.app, found.elements, found.truncated)}\n(saved as ${id})\n`);
  return 0;
}

async function annotate(v: Values, c: Ctx): Promise<number> {
  if (!v.out) throw new UsageError('rein ax annotate needs --out FILE.png');
  const out = resolve(c.io.cwd, v.out);
  const table = await c.store.tableForNext();
  const id = newSnapshotId();
  const a = await new AxDriver(c.client, table).annotate({ snapshotId: id, app: v.app, window: v.window });
  await writeFile(out, a.png);
  await c.store.save('annotate', a.view, table);
  const labels = a.labels.map((l) => ({
    label: l.label,
    ref: l.element.ref,
    role: l.element.role,
    name: l.element.name,
    bounds: l.element.bounds ?? null,
  }));
  if (c.json)
    print(c.io, {
      ok: true,
      snapshot: id,
      out,
      app: a.view.app,
      image: a.image,
      region: a.region,
      scale: a.scale,
      labels,
    });
  else {
    c.io.stdout.write(`wrote ${out} (${a.image.width}×${a.image.height}); snapshot ${id}\n`);
    for (const l of labels)
      c.io.stdout.write(
        `[${l.label}] ${l.ref} ${l.role}${l.name ? ` ${JSON.stringify(l.name)}` : ''}${l.bounds ? ` (${l.bounds.join(',')})` : ''}\n`,
      );
  }
  return 0;
}

async function permissions(c: Ctx): Promise<number> {
  const p: AxResult<'check_permissions'> = await c.client.call('check_permissions', {});
  const ok = p.accessibility === 'granted';
  if (c.json) print(c.io, { ok, ...p });
  else {
    c.io.stdout.write(
      `accessibility: ${p.accessibility}\nscreen recording: ${p.screen_recording}\nautomation: ${p.automation}\n`,
    );
    const hint = p.details?.hint;
    if (typeof hint === 'string' && hint) c.io.stdout.write(`hint: ${hint}\n`);
  }
  return ok ? 0 : 1;
}

async function waitFor(args: string[], v: Values, c: Ctx): Promise<number> {
  const condition = args[0];
  const conditions = ['exists', 'gone', 'value', 'enabled', 'focused', 'checked', 'unchecked', 'window'] as const;
  if (!condition || !conditions.includes(condition as (typeof conditions)[number]))
    throw new UsageError(`rein ax wait-for needs a condition: ${conditions.join(', ')}`);
  const saved = v.ref ? await c.store.load(v.snapshot) : undefined;
  const table = saved ? RefTable.fromJSON(saved.refs) : await c.store.tableForNext();
  const timeout = v.timeout === undefined ? 10 : Number(v.timeout);
  if (!(timeout > 0 && timeout <= 120)) throw new UsageError('--timeout must be seconds from 0 to 120');
  const r = await new AxDriver(c.client, table).waitFor({
    condition: condition as (typeof conditions)[number],
    ref: v.ref ? needRef(v.ref, 'wait-for') : undefined,
    app: v.app,
    role: role(v.role),
    name: v.name,
    value: v.value,
    exact: v.exact,
    timeoutMs: Math.round(timeout * 1000),
  });
  if (c.json) print(c.io, { ok: true, ...r });
  else c.io.stdout.write(`${condition}: met after ${Math.round(r.waited_ms)} ms\n`);
  return 0;
}

async function act(
  c: Ctx,
  v: Values,
  method: ActionMethod,
  req: Parameters<AxDriver['act']>[1],
  needsSnapshot = true,
): Promise<number> {
  let table: RefTable;
  let snapshotId: string | undefined;
  if (needsSnapshot && req.ref) {
    const saved = await c.store.load(v.snapshot);
    snapshotId = saved.id;
    table = RefTable.fromJSON(saved.refs);
  } else {
    table = await c.store.tableForNext();
  }
  const before = req.ref && table.has(req.ref) ? table.get(req.ref).id : undefined;
  const out: ActionOutcome = await new AxDriver(c.client, table).act(method, req);
  if (snapshotId && req.ref && table.get(req.ref).id !== before) await c.store.updateRefs(snapshotId, table);
  if (c.json) {
    print(c.io, {
      ok: true,
      action: method,
      ...(out.ref ? { ref: out.ref } : {}),
      ...(snapshotId ? { snapshot: snapshotId } : {}),
      ...(out.actedOn
        ? {
            acted_on: {
              role: out.actedOn.role,
              name: out.actedOn.name,
              bounds: out.actedOn.bounds,
              resolved_by: out.actedOn.resolved_by,
            },
          }
        : {}),
      ...resultFields(out.result),
    });
  } else c.io.stdout.write(`${out.summary}\n`);
  return 0;
}

function resultFields(r: Record<string, unknown>): Record<string, unknown> {
  const { acted_on: _acted, ...rest } = r;
  return rest;
}
