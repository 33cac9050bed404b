// The Swift helper's own promises, on a Mac only (`describe.runIf(darwin)`; ax-conformance.test.ts runs
// the shared protocol suite there too). NOT RUN YET: written where Rein is developed (Linux, no Swift).
// Needs the helper built (`swift build -c release` in native/ax_server/macos, or Rein AX.app) and allowed
// (Accessibility), and TextEdit. Every effect is read back without the helper: through AppleScript
// (TextEdit's document text, the text a dialog returned).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AXClient } from '../../src-main/core/ax/axClient.js';
import { locateHelper } from '../../src-main/core/ax/helperProcess.js';
import type { Target, WireElement } from '../../src-main/core/ax/protocol.js';
import { cleanEnv, rein } from '../support/cli.js';

const osa = (...lines: string[]) =>
  execFileSync(
    '/usr/bin/osascript',
    lines.flatMap((l) => ['-e', l]),
    { encoding: 'utf8', timeout: 20_000 },
  ).trim();
const targetOf = (
  el: WireElement & { ancestry?: Target['ancestry'] },
  app: { pid: number; name: string },
  ancestry?: Target['ancestry'],
): Target => ({
  id: el.id,
  role: el.role,
  name: el.name,
  app,
  ancestry: ancestry ?? el.ancestry ?? [],
  ...(el.identifier ? { identifier: el.identifier } : {}),
});

describe.runIf(process.platform === 'darwin')('the macOS helper (TextEdit)', () => {
  let client: AXClient;
  let pid = 0;
  let app: { pid: number; name: string };

  beforeAll(async () => {
    const found = locateHelper({ platform: 'darwin' });
    if (!found.ok) throw new Error(`build the Swift helper first: ${found.reason}`);
    osa('tell application "TextEdit" to activate', 'tell application "TextEdit" to make new document');
    client = new AXClient({ idleMs: 0 }, { platform: 'darwin' });
    for (let i = 0; i < 100 && !pid; i++) {
      pid =
        (await client.call('list_apps', {})).apps.find((a) => a.name === 'TextEdit' && a.windows.length > 0)?.pid ?? 0;
      if (!pid) await new Promise((r) => setTimeout(r, 100));
    }
    if (!pid) throw new Error('TextEdit did not open a window');
    app = { pid, name: 'TextEdit' };
  }, 60_000);

  afterAll(async () => {
    await client?.disposeAsync();
    try {
      osa('tell application "TextEdit" to close every document saving no', 'tell application "TextEdit" to quit');
    } catch {
      if (pid) process.kill(pid, 'SIGTERM');
    }
  });

  const textArea = async () => {
    const found = await client.call('find', { pid, role: 'textarea' });
    const el = found.elements[0];
    if (!el) throw new Error('TextEdit shows no text area');
    return el;
  };

  it('gives ids that a helper started later resolves by identity (they are places, not handles)', async () => {
    const el = await textArea();
    expect(el.id).toMatch(new RegExp(`^${pid}:(w\\d+|i\\d+):[0-9.]*(~\\d+)?$`));
    const target = targetOf(el, app);
    await client.stop(); // the next call starts another helper
    const value = await client.call('get_value', { target });
    expect(value.acted_on).toMatchObject({ id: el.id, role: 'textarea', resolved_by: 'identity' });
    expect(client.starts).toBeGreaterThanOrEqual(2);
  });

  it('types keys found on the current keyboard layout, into the named app only', async () => {
    const el = await textArea();
    const target = targetOf(el, app);
    await client.call('focus', { pid });
    await client.call('set_value', { target, value: 'draft' });
    expect(osa('tell application "TextEdit" to get text of document 1')).toBe('draft');
    await client.call('key', { keys: 'cmd+a', target });
    const typed = await client.call('key', { keys: ['x', 'y', 'z'], pid });
    expect(typed).toMatchObject({ method: 'keys', app: { pid } });
    expect(osa('tell application "TextEdit" to get text of document 1')).toBe('xyz');
    await expect(client.call('key', { keys: 'cmd+€§' })).rejects.toMatchObject({ code: 'INVALID' });
  });

  it('verifies a set text by reading it back', async () => {
    const el = await textArea();
    const r = await client.call('set_value', { target: targetOf(el, app), value: 'Grüße, 日本 🙂' });
    expect(r).toMatchObject({ method: 'value', verified: true });
    expect(osa('tell application "TextEdit" to get text of document 1')).toBe('Grüße, 日本 🙂');
  });

  it('names static text by its AXValue, and verifies a password by its length', async () => {
    // A dialog of TextEdit's own: a static text, a secure field, OK. What it returns is our read-back.
    const dialog: ChildProcess = spawn(
      '/usr/bin/osascript',
      [
        '-e',
        'tell application "TextEdit" to activate',
        '-e',
        'tell application "TextEdit" to display dialog "Rein static 7f3a" default answer "" with hidden answer with title "Rein password check"',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    dialog.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
    const closed = new Promise<void>((r) => dialog.once('close', () => r()));
    try {
      let snap: Awaited<ReturnType<typeof client.call<'snapshot'>>> | undefined;
      for (let i = 0; i < 50; i++) {
        snap = await client.call('snapshot', { pid, window: 'Rein password check' }).catch(() => undefined);
        if (snap?.elements.some((e) => e.secure)) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      if (!snap) throw new Error('the dialog did not appear');
      expect(snap.elements.find((e) => e.role === 'text' && e.name === 'Rein static 7f3a')).toBeDefined();
      const field = snap.elements.find((e) => e.secure)!;
      const set = await client.call('set_value', {
        target: targetOf(field, app, [{ role: 'dialog', name: 'Rein password check' }]),
        value: 'hunter2ÄÖ',
      });
      expect(set).toMatchObject({ secure: true, verified: true, value: null });
      const read = await client.call('get_value', {
        target: targetOf(field, app, [{ role: 'dialog', name: 'Rein password check' }]),
      });
      expect(read).toMatchObject({ secure: true, value: null, length: 9 });
      const ok = snap.elements.find((e) => e.role === 'button' && e.name === 'OK')!;
      await client.call('click', { target: targetOf(ok, app, [{ role: 'dialog', name: 'Rein password check' }]) });
      await closed;
      expect(out).toContain('text returned:hunter2ÄÖ');
    } finally {
      dialog.kill();
    }
  });

  it('answers for a hung app with FAILED instead of stalling (the messaging timeout)', async () => {
    process.kill(pid, 'SIGSTOP');
    try {
      await expect(client.call('snapshot', { pid })).rejects.toMatchObject({
        code: 'FAILED',
        message: expect.stringContaining('not responding'),
      });
      // Other calls still work meanwhile: the helper was not stalled.
      expect((await client.call('ping', {})).ok).toBe(true);
    } finally {
      process.kill(pid, 'SIGCONT');
    }
  });

  it('keeps one warm helper for successive rein ax commands, whose refs work in the next', async () => {
    const home = join(await mkdtemp(join(tmpdir(), 'rein-ax-mac-')), 'home');
    const env = cleanEnv({ REIN_HOME: home });
    const ax = async (...args: string[]) =>
      JSON.parse((await rein(['ax', ...args, '--json'], { env, cwd: tmpdir() })).stdout) as Record<string, any>;
    try {
      const snap = await ax('snapshot', '--app', String(pid));
      const first = await ax('helper');
      expect(first).toMatchObject({ running: true, helper_pid: expect.any(Number) });
      const area = snap.elements.find((e: { role: string }) => e.role === 'textarea');
      expect(await ax('get-value', area.ref)).toMatchObject({ ok: true, acted_on: { resolved_by: 'identity' } });
      expect((await ax('helper')).helper_pid).toBe(first.helper_pid);
    } finally {
      await rein(['ax', 'helper', 'stop'], { env, cwd: tmpdir() });
    }
  });
});
