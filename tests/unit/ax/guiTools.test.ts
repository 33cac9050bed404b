// The GUI tools as the loop and the permission engine see them — GUI traits, never read-only, one refs
// table per session — and as the model sees them: AxErrors as [kind error] CODE results with the hint,
// computer coordinates scaled from the screenshot to the screen. Plus when a runtime gets them at all.
import { afterEach, describe, expect, it } from 'vitest';
import { AXClient } from '../../../src-main/core/ax/axClient.js';
import { AxError } from '../../../src-main/core/ax/axError.js';
import { guiAvailability, guiProviderFor, GuiToolProvider } from '../../../src-main/core/ax/guiProvider.js';
import { AX_REFS_SLOT, axErrorResult, screenScale, toScreen } from '../../../src-main/core/ax/guiTools.js';
import { SessionSlots } from '../../../src-main/core/tools/sessionSlots.js';
import { drivesGui } from '../../../src-main/core/tools/traits.js';
import type { ToolContext } from '../../../src-main/core/tools/tool.js';
import { createPermissionEngine } from '../../../src-main/core/permissions/engine.js';
import { PermissionsConfig } from '../../../src-main/core/config/schema.js';
import { useLeakCheck } from '../../support/leaks.js';
import { fakeAxServer, type FakeAxServer } from './fakeAxServer.js';

useLeakCheck();

const ctx = (): ToolContext =>
  ({
    cwd: '/',
    sessionId: 's',
    sessionDir: '/tmp',
    reinHome: '/tmp',
    agent: 'default',
    readTracker: {} as never,
    egress: async () => ({ allowed: true }),
    session: new SessionSlots(),
  }) as ToolContext;

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

const snapshotAnswer = {
  app: { name: 'Notes', pid: 7 },
  windows: [{ id: 'w', name: 'Notes' }],
  truncated: false,
  elements: [
    { id: 'w', role: 'window', name: 'Notes', parent: -1, depth: 0, bounds: [0, 0, 100, 100] },
    { id: 'b', role: 'button', name: 'Save', parent: 0, depth: 1, bounds: [1, 1, 10, 10] },
  ],
};

async function provider(reply: FakeAxServer['reply'], platform: NodeJS.Platform = 'linux') {
  const server = await fakeAxServer(reply);
  const client = new AXClient({ connect: server.connect, idleMs: 0 });
  const p = new GuiToolProvider({ client, platform });
  cleanup.push(async () => {
    p.dispose();
    await client.disposeAsync();
    await server.close();
  });
  return { server, p, tools: new Map((await p.tools()).map((t) => [t.name, t])) };
}

describe('the GUI tools', () => {
  it('are GUI tools that drive the GUI, are never read-only, and applescript is macOS only', async () => {
    const linux = await provider(() => ({ result: {} }));
    expect([...linux.tools.keys()].sort()).toEqual(['accessibility', 'computer', 'screenshot', 'wait_for']);
    for (const t of linux.tools.values()) {
      expect(t.source).toBe('gui');
      expect(drivesGui(t.traits)).toBe(true);
      expect(t.isReadOnly({} as never)).toBe(false);
      expect(t.isConcurrencySafe?.({} as never)).toBe(false);
    }
    expect(linux.tools.get('screenshot')!.traits?.looksAtScreen).toBe(true);
    const mac = await provider(() => ({ result: {} }), 'darwin');
    expect(mac.tools.get('applescript')?.traits).toMatchObject({ drivesGui: true, reportsOwnSuccess: true });
  });

  it('ask in an attended run, and are refused in an unattended one unless gui_unattended names them', async () => {
    const { tools } = await provider(() => ({ result: {} }));
    const engine = createPermissionEngine({
      permissions: PermissionsConfig.parse({}),
      home: '/tmp',
      reinHome: '/tmp',
      yes: false,
    });
    const check = (origin: 'attended' | 'unattended', permissions = PermissionsConfig.parse({})) =>
      createPermissionEngine({ permissions, home: '/tmp', reinHome: '/tmp', yes: false }).check({
        tool: tools.get('accessibility')!,
        input: { action: 'snapshot' },
        cwd: '/tmp',
        mode: 'default',
        source: origin === 'attended' ? 'cli' : 'schedule',
        origin,
      } as never);
    expect(engine).toBeDefined();
    expect(await check('attended')).toMatchObject({ decision: 'ask' });
    expect(await check('unattended')).toMatchObject({ decision: 'deny', layer: 'unattended_gui' });
    expect(await check('unattended', PermissionsConfig.parse({ gui_unattended: ['accessibility'] }))).not.toMatchObject(
      { layer: 'unattended_gui' },
    );
  });

  it('keep one refs table per session: a ref from one session means nothing in another', async () => {
    const { tools } = await provider((req) =>
      req.method === 'snapshot' ? { result: snapshotAnswer } : { error: { code: -32001, message: 'x' } },
    );
    const a = ctx();
    const b = ctx();
    const acc = tools.get('accessibility')!;
    const shot = await acc.call({ action: 'snapshot' }, a, new AbortController().signal);
    expect(shot.ok).toBe(true);
    expect(shot.content).toContain('button "Save" [e2]');
    expect(a.session!.slot(AX_REFS_SLOT, () => undefined as never).size).toBe(2);
    const other = await acc.call({ action: 'click', ref: 'e2' }, b, new AbortController().signal);
    expect(other).toMatchObject({
      ok: false,
      errorKind: 'business',
      content: expect.stringMatching(/^\[business error\] NOT_FOUND: unknown ref e2/),
    });
  });

  it('send the ref’s whole description and say what was acted on', async () => {
    const { server, tools } = await provider((req) =>
      req.method === 'snapshot'
        ? { result: snapshotAnswer }
        : {
            result: {
              acted_on: { id: 'b', role: 'button', name: 'Save', bounds: [1, 1, 10, 10], resolved_by: 'identity' },
              method: 'action:click',
              effect: { observed: true, events: ['object:state-changed:focused'], waited_ms: 2 },
            },
          },
    );
    const c = ctx();
    const acc = tools.get('accessibility')!;
    await acc.call({ action: 'snapshot' }, c, new AbortController().signal);
    const r = await acc.call({ action: 'click', ref: 'e2' }, c, new AbortController().signal);
    expect(r.content).toBe(
      'clicked button "Save" [e2] at (1, 1, 10×10) via action:click — the app reacted (object:state-changed:focused)',
    );
    const click = server.requests.find((q) => q.method === 'click')!;
    expect(click.params.target).toEqual({
      id: 'b',
      role: 'button',
      name: 'Save',
      app: { pid: 7, name: 'Notes' },
      ancestry: [{ role: 'window', name: 'Notes' }],
    });
  });

  it('turn AxErrors into results the model can act on', () => {
    expect(
      axErrorResult(new AxError('STALE_REF', 'the element changed', 'click', { hint: 'take a new snapshot' })),
    ).toEqual({
      ok: false,
      errorKind: 'business',
      content: '[business error] STALE_REF: the element changed — take a new snapshot',
    });
    expect(axErrorResult(new AxError('INVALID', 'bad', 'click')).errorKind).toBe('validation');
    expect(axErrorResult(new AxError('PERMISSION', 'no grant')).errorKind).toBe('permission');
    expect(axErrorResult(new AxError('HELPER_EXITED', 'gone')).errorKind).toBe('transient');
  });

  it('computer: scales the screenshot’s coordinates to the real screen and clamps them', () => {
    const s = screenScale({ width: 2560, height: 1600 });
    expect(s.factor).toBe(0.5);
    expect(toScreen([640, 400], s)).toEqual([1280, 800]);
    expect(toScreen([5000, -3], s)).toEqual([2559, 0]);
    expect(screenScale({ width: 1280, height: 1024 }).factor).toBe(1);
  });
});

describe('guiAvailability', () => {
  it('follows gui.enabled and, on Linux, needs a display and the helper', () => {
    expect(guiAvailability(false, {}, 'darwin')).toMatchObject({ available: false });
    expect(guiAvailability('auto', {}, 'darwin')).toEqual({ available: true });
    expect(guiAvailability('auto', {}, 'linux')).toMatchObject({
      available: false,
      reason: expect.stringContaining('DISPLAY'),
    });
    expect(guiAvailability('auto', { DISPLAY: ':9', REIN_AX_PYTHON: '/nonexistent/python3' }, 'linux')).toMatchObject({
      available: false,
      reason: expect.stringContaining('/nonexistent/python3'),
    });
    expect(guiAvailability('auto', {}, 'win32')).toMatchObject({ available: false });
  });

  it('leaves the provider out when the caller brings one, or when it is off', () => {
    const mine = {
      id: 'gui',
      source: 'gui' as const,
      tools: async () => [],
      onDidChange: () => ({ dispose() {} }),
      dispose() {},
    };
    expect(guiProviderFor('auto', { DISPLAY: ':1' }, [mine], 'linux')).toBeUndefined();
    expect(guiProviderFor(false, {}, [], 'darwin')).toBeUndefined();
    expect(guiProviderFor('auto', {}, [], 'linux')).toBeUndefined();
  });
});
