// `rein ax` as people and scripts use it: the built CLI against the fixture app. A snapshot is saved under
// REIN_HOME so its refs work in the next command — also when the UI changed in between: a benign change
// is followed, a semantic one refused with {ok: false, code} and exit 1, and the app shows nothing was done.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  desktopParts,
  inCi,
  skipReason,
  startDesktop,
  type Desktop,
  type FixtureApp,
} from '../fixtures/ax/desktopSession.js';
import { readPng } from '../fixtures/ax/png.js';
import { cleanEnv, rein } from '../support/cli.js';
import { startFakeAnthropic, text, toolCall, tools } from '../support/fakeAnthropic.js';
import { useLeakCheck } from '../support/leaks.js';

const missing = desktopParts();

describe.runIf(missing.length > 0 && inCi)('rein ax', () => {
  it('needs the desktop test packages under CI', () => {
    throw new Error(`the accessibility tests need ${missing.join(', ')} under CI=true (.ci/run installs them)`);
  });
});

type Json = Record<string, any>;

describe.skipIf(missing.length > 0)(missing.length ? `rein ax (${skipReason(missing)})` : 'rein ax', () => {
  useLeakCheck();
  let desktop: Desktop;
  let app: FixtureApp;
  let home: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    desktop = await startDesktop();
    app = await desktop.startFixture();
    const c = desktop.client();
    await desktop.waitForApp(c, app.pid);
    await c.disposeAsync();
    home = join(await mkdtemp(join(tmpdir(), 'rein-ax-cli-')), 'home');
    // A helper per command: the warm one outlives a command by design (ax-warm.test.ts), which this
    // file's leak check would count against each test.
    env = {
      ...cleanEnv({ REIN_HOME: home, REIN_AX_WARM: '0' }),
      DISPLAY: desktop.env.DISPLAY,
      DBUS_SESSION_BUS_ADDRESS: desktop.env.DBUS_SESSION_BUS_ADDRESS,
    };
  }, 60_000);

  afterAll(async () => {
    await desktop?.close();
  });

  const ax = async (...args: string[]) => {
    const r = await rein(['ax', ...args], { env, cwd: home.replace(/\/home$/, '') });
    return {
      ...r,
      json: (() => {
        try {
          return JSON.parse(r.stdout) as Json;
        } catch {
          return undefined;
        }
      })(),
    };
  };
  const refIn = (snap: Json, name: string, role = 'button'): string =>
    snap.elements.find((e: Json) => e.name === name && e.role === role).ref;

  it('prints a snapshot as {snapshot, app, elements: [{ref, role, name, …}]} and saves it privately', async () => {
    const r = await ax('snapshot', '--app', String(app.pid), '--json');
    expect(r.code, r.stderr).toBe(0);
    expect(r.json).toMatchObject({
      snapshot: expect.stringMatching(/^s-\d{8}-\d{6}-[0-9a-f]{4}$/),
      app: { pid: app.pid },
      truncated: false,
    });
    const save = r.json!.elements.find((e: Json) => e.name === 'Save');
    expect(save).toMatchObject({
      ref: expect.stringMatching(/^e\d+$/),
      role: 'button',
      name: 'Save',
      bounds: [expect.any(Number), expect.any(Number), expect.any(Number), expect.any(Number)],
    });
    expect(r.json!.elements.find((e: Json) => e.name === 'Password')).toMatchObject({ secure: true });
    const dir = join(home, 'ax', 'snapshots');
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, `${r.json!.snapshot}.json`)).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(dir, 'latest'), 'utf8').trim()).toBe(r.json!.snapshot);
    const textOut = await ax('snapshot', '--app', String(app.pid), '--interactive');
    expect(textOut.stdout).toContain(`button "Save" [${save.ref}]`);
    expect(textOut.stdout).toMatch(/saved as s-/);
  });

  it('clicks by ref from the latest snapshot, and follows the element when it was recreated in between', async () => {
    const snap = (await ax('snapshot', '--app', String(app.pid), '--json')).json!;
    const save = refIn(snap, 'Save');
    const before = (await app.state()).saved as number;
    const r = await ax('click', save, '--json');
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.json).toMatchObject({
      ok: true,
      action: 'click',
      ref: save,
      acted_on: { role: 'button', name: 'Save', resolved_by: 'identity' },
    });
    await app.command('recreate save');
    const again = await ax('click', save, '--json');
    expect(again.json).toMatchObject({ ok: true, acted_on: { name: 'Save', resolved_by: 'rematch' } });
    expect((await app.state()).saved).toBe(before + 2);
    // The re-match was written back: the next click finds it by identity.
    expect((await ax('click', save, '--json')).json).toMatchObject({ ok: true, acted_on: { resolved_by: 'identity' } });
  });

  it('refuses a ref whose element changed between snapshot and click: exit 1, {ok: false, code, message}', async () => {
    const snap = (await ax('snapshot', '--app', String(app.pid), '--json')).json!;
    const del = refIn(snap, 'Delete');
    await app.command('rename delete Delete everything');
    const r = await ax('click', del, '--json');
    expect(r.code, JSON.stringify(r.json)).toBe(1);
    expect(r.json).toEqual({
      ok: false,
      code: 'STALE_REF',
      message: expect.stringContaining('Delete everything'),
      hint: expect.any(String),
      method: 'click',
    });
    const textOut = await ax('click', del);
    expect(textOut.code).toBe(1);
    expect(textOut.stderr).toMatch(/^rein ax: STALE_REF: /);
    await app.command('rename delete Delete');
  });

  it('uses --snapshot ID for an older snapshot, and sets, reads and types values', async () => {
    const older = (await ax('snapshot', '--app', String(app.pid), '--json')).json!;
    await ax('snapshot', '--app', String(app.pid), '--interactive', '--json');
    const name = refIn(older, 'Name', 'textfield');
    expect((await ax('set-value', name, 'Grace', 'Hopper', '--snapshot', older.snapshot, '--json')).json).toMatchObject(
      { ok: true, value: 'Grace Hopper' },
    );
    expect((await ax('get-value', name, '--json')).json).toMatchObject({
      ok: true,
      value: 'Grace Hopper',
      acted_on: { name: 'Name' },
    });
    expect((await ax('press', 'ctrl+a', '--ref', name, '--json')).json).toMatchObject({ ok: true, action: 'key' });
    expect((await ax('type', 'Ada', '--json')).json).toMatchObject({ ok: true, action: 'type_text' });
    expect((await app.state()).name).toBe('Ada');
    expect((await ax('press', refIn(older, 'Count'), '--json')).json).toMatchObject({
      ok: true,
      action: 'press',
      acted_on: { name: 'Count' },
    });
    expect(
      (await ax('scroll', refIn(older, 'Row 000', 'row'), '--direction', 'down', '--amount', '3', '--json')).json,
    ).toMatchObject({ ok: true, action: 'scroll' });
    expect((await ax('wait-for', 'exists', '--app', String(app.pid), '--name', 'count:', '--json')).json).toMatchObject(
      { ok: true, met: true },
    );
    const secret = await ax('get-value', refIn(older, 'Password', 'textfield'), '--json');
    expect(secret.json).toMatchObject({ ok: true, value: null, secure: true });
  });

  it('writes an annotated screenshot and lists apps and permissions', async () => {
    const out = join(home, 'shot.png');
    const a = await ax('annotate', '--out', out, '--app', String(app.pid), '--json');
    expect(a.code, a.stderr).toBe(0);
    expect(existsSync(out)).toBe(true);
    expect(readPng(readFileSync(out))).toMatchObject({
      width: a.json!.image.width,
      height: a.json!.image.height,
      channels: 3,
    });
    expect(a.json!.labels[0]).toMatchObject({ label: 1, ref: expect.stringMatching(/^e\d+$/) });
    expect((await ax('apps', '--json')).json!.apps.map((x: Json) => x.pid)).toContain(app.pid);
    expect((await ax('permissions', '--json')).json).toMatchObject({
      ok: true,
      accessibility: 'granted',
      screen_recording: 'granted',
    });
  });

  it('rein run offers the GUI tools, clicks by ref with --yes, and exits as soon as the run is over', async () => {
    const fake = await startFakeAnthropic();
    try {
      let ref: string | undefined;
      fake.fallback = (req) => {
        const last = req.body.messages[req.body.messages.length - 1]!;
        const results = Array.isArray(last.content)
          ? (last.content as Json[]).filter((b) => b.type === 'tool_result')
          : [];
        const out = results
          .map((r) => (typeof r.content === 'string' ? r.content : (r.content as Json[]).map((c) => c.text).join('')))
          .join('');
        if (results.length === 0)
          return tools([
            toolCall('accessibility', { action: 'snapshot', app: String(app.pid), filter: 'interactive' }),
          ]);
        if (!ref) {
          ref = /button "Count" \[(e\d+)\]/.exec(out)?.[1];
          return ref
            ? tools([toolCall('accessibility', { action: 'click', ref })])
            : text(`no ref in ${out.slice(0, 100)}`);
        }
        return text(out);
      };
      const before = (await app.state()).count as number;
      const r = await rein(['run', '--yes', '--json', 'press Count'], {
        env: { ...env, ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: fake.url },
        cwd: home.replace(/\/home$/, ''),
      });
      expect(r.code, r.stderr).toBe(0);
      expect((await app.state()).count).toBe(before + 1);
      expect(r.stdout).toContain('clicked button \\"Count\\"');
    } finally {
      await fake.close();
    }
  });

  it('says what is wrong: no snapshot yet, not a ref, an unknown command', async () => {
    const fresh = { ...env, REIN_HOME: join(home, 'elsewhere') };
    const none = await rein(['ax', 'click', 'e1', '--json'], { env: fresh, cwd: home });
    expect(none.code).toBe(1);
    expect(JSON.parse(none.stdout)).toMatchObject({
      ok: false,
      code: 'NOT_FOUND',
      hint: expect.stringContaining('rein ax snapshot'),
    });
    expect((await ax('click', 'Save')).code).toBe(2);
    expect((await ax('frobnicate')).code).toBe(2);
    expect((await ax('--help')).stdout).toContain('rein ax snapshot');
  });
});
