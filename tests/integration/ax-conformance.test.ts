// One conformance suite, written against the protocol (core/ax/protocol.ts) and nothing else: it runs
// against the Linux helper here (the fixture app under Xvfb) and against the Swift helper on a Mac
// (`describe.runIf(darwin)`, TextEdit as the app; the helper must be built and allowed first:
// `swift build -c release` in native/ax_server/macos, then grant Accessibility and Screen Recording).
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AXClient } from '../../src-main/core/ax/axClient.js';
import { locateHelper } from '../../src-main/core/ax/helperProcess.js';
import { AX_METHOD_NAMES, AX_ROLES, INTERACTIVE_ROLES, type Target } from '../../src-main/core/ax/protocol.js';
import { desktopParts, inCi, skipReason, startDesktop, type Desktop } from '../fixtures/ax/desktopSession.js';
import { readPng } from '../fixtures/ax/png.js';
import { useLeakCheck } from '../support/leaks.js';

interface Subject {
  client: AXClient;
  pid: number;
  /** An element name the app certainly shows (a button or a menu). */
  someName?: string;
  close(): Promise<void>;
}

function conformance(title: string, setup: () => Promise<Subject>) {
  describe(title, () => {
    useLeakCheck();
    let s: Subject;
    beforeAll(async () => {
      s = await setup();
    }, 60_000);
    afterAll(async () => {
      await s?.close();
    });

    it('says hello with protocol 1 and every method as a capability', async () => {
      const hello = await s.client.start();
      expect(hello.protocol).toBe(1);
      for (const m of AX_METHOD_NAMES.filter((n) => n !== 'hello')) expect(hello.capabilities, m).toContain(m);
      expect(['linux', 'darwin']).toContain(hello.helper.platform);
      expect(hello.screen?.width).toBeGreaterThan(0);
    });

    it('lists the app with its windows', async () => {
      const { apps } = await s.client.call('list_apps', {});
      const app = apps.find((a) => a.pid === s.pid)!;
      expect(app).toBeDefined();
      expect(app.windows.length).toBeGreaterThan(0);
    });

    it('snapshots a consistent flat tree: unique ids, parents before children, depths, roles of the vocabulary', async () => {
      const snap = await s.client.call('snapshot', { pid: s.pid });
      expect(snap.app.pid).toBe(s.pid);
      expect(snap.elements.length).toBeGreaterThan(3);
      expect(new Set(snap.elements.map((e) => e.id)).size).toBe(snap.elements.length);
      snap.elements.forEach((e, i) => {
        expect(AX_ROLES).toContain(e.role);
        const p = e.parent ?? -1;
        expect(p).toBeLessThan(i);
        expect(e.depth).toBe(p < 0 ? 0 : snap.elements[p]!.depth! + 1);
        if (e.bounds) expect(e.bounds[2] > 0 && e.bounds[3] > 0).toBe(true);
        if (e.secure) expect(e.value).toBeUndefined();
      });
      expect(snap.elements[0]!.role).toMatch(/^(window|dialog)$/);
      const small = await s.client.call('snapshot', { pid: s.pid, max_nodes: 3 });
      expect(small.elements.length).toBeLessThanOrEqual(3);
      expect(small.truncated).toBe(true);
      const controls = await s.client.call('snapshot', { pid: s.pid, filter: 'interactive' });
      for (const e of controls.elements)
        expect(INTERACTIVE_ROLES.has(e.role) || ['window', 'dialog'].includes(e.role) || e.name !== '').toBe(true);
    });

    it('finds by role with the ancestry of each match', async () => {
      const snap = await s.client.call('snapshot', { pid: s.pid, filter: 'interactive' });
      const role = snap.elements.find((e) => INTERACTIVE_ROLES.has(e.role))!.role;
      const found = await s.client.call('find', { pid: s.pid, role });
      expect(found.elements.length).toBeGreaterThan(0);
      for (const e of found.elements) {
        expect(e.role).toBe(role);
        expect(Array.isArray(e.ancestry)).toBe(true);
      }
    });

    it('refuses targets that name nothing: STALE_REF for a vanished element, APP_GONE for a gone app', async () => {
      const ghost: Target = {
        id: 'no-such-element',
        role: 'button',
        name: 'No such button 8c1f',
        app: { pid: s.pid, name: 'x' },
        ancestry: [],
      };
      await expect(s.client.call('click', { target: ghost })).rejects.toMatchObject({
        code: 'STALE_REF',
        hint: expect.any(String),
      });
      await expect(
        s.client.call('get_value', { target: { ...ghost, app: { pid: 2 ** 30, name: 'gone' } } }),
      ).rejects.toMatchObject({ code: 'APP_GONE' });
      await expect(s.client.call('key', { keys: 'nosuchmodifier+q' })).rejects.toMatchObject({ code: 'INVALID' });
    });

    it('answers a wait that cannot be met with TIMEOUT once its timeout has passed', async () => {
      await expect(
        s.client.call('wait_for', {
          pid: s.pid,
          condition: 'exists',
          query: { name: 'never there 5e2a' },
          timeout_ms: 400,
        }),
      ).rejects.toMatchObject({ code: 'TIMEOUT' });
    });

    it('reads a value and acknowledges an action with what it acted on and whether the app reacted', async () => {
      const found = await s.client.call('find', {
        pid: s.pid,
        ...(s.someName ? { name: s.someName, exact: true } : { role: 'button' }),
      });
      const el = found.elements[0]!;
      const target: Target = {
        id: el.id,
        role: el.role,
        name: el.name,
        app: { pid: s.pid, name: found.app.name },
        ancestry: el.ancestry ?? [],
      };
      const value = await s.client.call('get_value', { target });
      expect(value.acted_on).toMatchObject({ id: el.id, role: el.role, name: el.name, resolved_by: 'identity' });
      const click = await s.client.call('focus', { target });
      expect(click.acted_on).toMatchObject({ role: el.role, name: el.name });
    });

    it('takes a screenshot without alpha, scaled to the width asked for', async () => {
      const shot = await s.client.call('screenshot', { max_width: 640 });
      const pic = readPng(Buffer.from(shot.png, 'base64'));
      expect(pic.channels).toBe(3);
      expect(pic.width).toBeLessThanOrEqual(640);
      expect([pic.width, pic.height]).toEqual([shot.image.width, shot.image.height]);
    });

    it('reports its permissions', async () => {
      const p = await s.client.call('check_permissions', {});
      expect(p.accessibility).toBe('granted');
    });
  });
}

const missing = desktopParts();
if (process.platform === 'linux') {
  describe.runIf(missing.length > 0 && inCi)('ax protocol conformance: Linux helper', () => {
    it('needs the desktop test packages under CI', () => {
      throw new Error(`the accessibility tests need ${missing.join(', ')} under CI=true (.ci/run installs them)`);
    });
  });
  describe.skipIf(missing.length > 0)(
    missing.length ? `ax protocol conformance (${skipReason(missing)})` : 'ax protocol conformance',
    () => {
      let desktop: Desktop;
      conformance('Linux helper (AT-SPI, fixture app)', async () => {
        desktop = await startDesktop();
        const app = await desktop.startFixture();
        const client = desktop.client();
        await desktop.waitForApp(client, app.pid);
        return { client, pid: app.pid, someName: 'Count', close: () => desktop.close() };
      });
    },
  );
}

describe.runIf(process.platform === 'darwin')('ax protocol conformance: macOS helper', () => {
  let textEdit: ChildProcess | undefined;
  conformance('macOS helper (AX API, TextEdit)', async () => {
    const found = locateHelper({ platform: 'darwin' });
    if (!found.ok) throw new Error(`build the Swift helper first: ${found.reason}`);
    textEdit = spawn(
      '/usr/bin/open',
      ['-n', '-g', '-W', '-a', 'TextEdit', '--args', '-NSOpenUntitledDocumentOnLaunch', 'YES'],
      { stdio: 'ignore' },
    );
    const client = new AXClient({ idleMs: 0 }, { platform: 'darwin' });
    let pid = 0;
    for (let i = 0; i < 100 && !pid; i++) {
      pid =
        (await client.call('list_apps', {})).apps.find((a) => a.name === 'TextEdit' && a.windows.length > 0)?.pid ?? 0;
      if (!pid) await new Promise((r) => setTimeout(r, 100));
    }
    if (!pid) throw new Error('TextEdit did not open a window');
    return {
      client,
      pid,
      close: async () => {
        await client.disposeAsync();
        process.kill(pid, 'SIGTERM');
        textEdit?.kill();
      },
    };
  });
});
