/** The update rules in plain Node: which builds update, when they check, what a result does. */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import {
  UpdateController,
  noteRunningVersion,
  parseCodesignDisplay,
  readBuildInfo,
  updateEligibility,
  type Clock,
  type UpdaterEvent,
  type UpdaterPort,
} from '../../../src-main/core/desktop/updates.js';

/** A scripted electron-updater: each check emits the events the test queued, as the real one does before it resolves. */
class FakeUpdater implements UpdaterPort {
  readonly listeners = new Set<(e: UpdaterEvent) => void>();
  next: UpdaterEvent[] = [{ type: 'checking' }, { type: 'not-available', version: '0.1.0' }];
  checks = 0;
  installs = 0;
  failWith: Error | undefined;
  async checkForUpdates(): Promise<unknown> {
    this.checks++;
    for (const e of this.next) this.emit(e);
    if (this.failWith) throw this.failWith;
    return {};
  }
  quitAndInstall(): void {
    this.installs++;
  }
  onEvent(listener: (e: UpdaterEvent) => void) {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }
  emit(e: UpdaterEvent): void {
    for (const l of this.listeners) l(e);
  }
}

/** Timers the test fires by hand. */
class ManualClock implements Clock {
  timeouts: { fn: () => void; ms: number }[] = [];
  intervals: { fn: () => void; ms: number }[] = [];
  cleared = 0;
  setTimeout(fn: () => void, ms: number) {
    const t = { fn, ms };
    this.timeouts.push(t);
    return t;
  }
  setInterval(fn: () => void, ms: number) {
    const t = { fn, ms };
    this.intervals.push(t);
    return t;
  }
  clear() {
    this.cleared++;
  }
}

const flush = () => new Promise((r) => setImmediate(r));

function controller(opts: { enabled?: boolean; eligible?: boolean; answer?: 'restart' | 'later' } = {}) {
  const updater = new FakeUpdater();
  const clock = new ManualClock();
  let enabled = opts.enabled ?? true;
  const asked: string[] = [];
  const log = vi.fn();
  const c = new UpdateController({
    updater,
    eligibility:
      opts.eligible === false
        ? { eligible: false, reason: 'a development build does not update itself' }
        : { eligible: true },
    enabled: () => enabled,
    askToRestart: async (v) => {
      asked.push(v);
      return opts.answer ?? 'later';
    },
    log,
    clock,
    intervalMs: 4 * 3600_000,
    firstCheckDelayMs: 30_000,
  });
  return { c, updater, clock, asked, log, setEnabled: (v: boolean) => (enabled = v) };
}

describe('which builds update themselves', () => {
  it('only a packaged Mac app signed with a Developer ID, or a release AppImage', () => {
    expect(updateEligibility({ packaged: true, platform: 'darwin', macSignature: 'developer-id' })).toEqual({
      eligible: true,
    });
    expect(
      updateEligibility({
        packaged: true,
        platform: 'linux',
        appImage: '/home/me/Rein-x86_64.AppImage',
        build: { release: true },
      }),
    ).toEqual({ eligible: true });
  });

  it('never a development build, an ad-hoc or unsigned Mac app, a .deb, a self-made AppImage, or Windows — each with its reason', () => {
    expect(updateEligibility({ packaged: false, platform: 'darwin', macSignature: 'developer-id' })).toMatchObject({
      eligible: false,
      reason: expect.stringContaining('development build'),
    });
    expect(updateEligibility({ packaged: true, platform: 'darwin', macSignature: 'adhoc' })).toMatchObject({
      eligible: false,
      reason: expect.stringContaining('ad hoc'),
    });
    expect(updateEligibility({ packaged: true, platform: 'darwin', macSignature: 'unsigned' })).toMatchObject({
      eligible: false,
      reason: expect.stringContaining('not signed'),
    });
    expect(updateEligibility({ packaged: true, platform: 'darwin', macSignature: 'other-identity' })).toMatchObject({
      eligible: false,
      reason: expect.stringContaining('Developer ID'),
    });
    expect(updateEligibility({ packaged: true, platform: 'darwin' })).toMatchObject({ eligible: false });
    expect(updateEligibility({ packaged: true, platform: 'linux', build: { release: true } })).toMatchObject({
      eligible: false,
      reason: expect.stringContaining('.deb'),
    });
    expect(
      updateEligibility({ packaged: true, platform: 'linux', appImage: '/a/Rein.AppImage', build: { release: false } }),
    ).toMatchObject({ eligible: false, reason: expect.stringContaining('REIN_RELEASE') });
    expect(updateEligibility({ packaged: true, platform: 'linux', appImage: '/a/Rein.AppImage' })).toMatchObject({
      eligible: false,
    });
    expect(updateEligibility({ packaged: true, platform: 'win32' })).toMatchObject({ eligible: false });
  });

  it('reads how the bundle is signed from codesign -dv', () => {
    const devId = [
      'Executable=/Applications/Rein.app/Contents/MacOS/Rein',
      'Identifier=dev.rein.app',
      'Authority=Developer ID Application: Jane Doe (AB12CD34EF)',
      'Authority=Developer ID Certification Authority',
      'Authority=Apple Root CA',
      'TeamIdentifier=AB12CD34EF',
    ].join('\n');
    expect(parseCodesignDisplay(devId, 0)).toBe('developer-id');
    const adhoc = [
      'Executable=/tmp/Rein.app/Contents/MacOS/Rein',
      'Identifier=dev.rein.app',
      'Signature=adhoc',
      'TeamIdentifier=not set',
    ].join('\n');
    expect(parseCodesignDisplay(adhoc, 0)).toBe('adhoc');
    expect(parseCodesignDisplay('/tmp/Rein.app: code object is not signed at all', 1)).toBe('unsigned');
    const devCert = [
      'Identifier=dev.rein.app',
      'Authority=Apple Development: Jane Doe (XYZ)',
      'TeamIdentifier=AB12CD34EF',
    ].join('\n');
    expect(parseCodesignDisplay(devCert, 0)).toBe('other-identity');
  });

  it('reads rein-build.json from the resources folder, and nothing from a missing or broken one', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rein-build-info-'));
    expect(await readBuildInfo(dir)).toBeUndefined();
    await writeFile(join(dir, 'rein-build.json'), '{"release": "yes"}');
    expect(await readBuildInfo(dir)).toBeUndefined();
    await writeFile(join(dir, 'rein-build.json'), '{"release": true, "signing": "none"}');
    expect(await readBuildInfo(dir)).toEqual({ release: true, signing: 'none' });
  });
});

describe('the update controller', () => {
  it('checks once the app has settled, then every few hours, and not while the switch is off', async () => {
    const { c, updater, clock, setEnabled } = controller();
    c.start();
    expect(updater.checks).toBe(0);
    expect(clock.timeouts.map((t) => t.ms)).toEqual([30_000]);
    expect(clock.intervals.map((t) => t.ms)).toEqual([4 * 3600_000]);
    clock.timeouts[0]!.fn();
    await flush();
    expect(updater.checks).toBe(1);
    expect(c.state).toMatchObject({ state: 'idle', latest: '0.1.0' });
    setEnabled(false);
    clock.intervals[0]!.fn();
    await flush();
    expect(updater.checks).toBe(1);
    setEnabled(true);
    clock.intervals[0]!.fn();
    await flush();
    expect(updater.checks).toBe(2);
    c.dispose();
    expect(clock.cleared).toBe(2);
  });

  it('never checks on a build that may not update, and says why when asked', async () => {
    const { c, updater, clock, log } = controller({ eligible: false });
    c.start();
    expect(clock.timeouts).toEqual([]);
    expect(log).toHaveBeenCalledWith(expect.stringContaining('a development build'));
    expect(await c.checkNow()).toEqual({
      outcome: 'not-eligible',
      reason: 'a development build does not update itself',
    });
    expect(updater.checks).toBe(0);
    expect(updater.listeners.size).toBe(0);
    expect(c.state).toEqual({ state: 'off', reason: 'a development build does not update itself' });
  });

  it('downloads in the background and asks once per version whether to restart; "later" leaves it for quit', async () => {
    const { c, updater, asked } = controller({ answer: 'later' });
    updater.next = [{ type: 'checking' }, { type: 'available', version: '0.2.0' }];
    expect(await c.checkNow()).toEqual({ outcome: 'downloading', version: '0.2.0' });
    updater.emit({ type: 'progress', percent: 41.6 });
    expect(c.state).toEqual({ state: 'downloading', version: '0.2.0', percent: 42 });
    updater.emit({ type: 'downloaded', version: '0.2.0' });
    await flush();
    expect(asked).toEqual(['0.2.0']);
    expect(updater.installs).toBe(0);
    // A second "downloaded" for the same version (the next check) does not ask again.
    updater.emit({ type: 'downloaded', version: '0.2.0' });
    await flush();
    expect(asked).toEqual(['0.2.0']);
    expect(await c.checkNow()).toEqual({ outcome: 'ready', version: '0.2.0' });
    c.restartNow();
    expect(updater.installs).toBe(1);
  });

  it('restarts into the update when the person says so', async () => {
    const { c, updater } = controller({ answer: 'restart' });
    updater.next = [{ type: 'available', version: '0.3.0' }];
    await c.checkNow();
    updater.emit({ type: 'downloaded', version: '0.3.0' });
    await flush();
    expect(updater.installs).toBe(1);
  });

  it('reports a failed check in words and logs it, and checks again next time', async () => {
    const { c, updater, log } = controller();
    updater.next = [];
    updater.failWith = new Error('net::ERR_INTERNET_DISCONNECTED');
    expect(await c.checkNow()).toEqual({ outcome: 'failed', message: 'net::ERR_INTERNET_DISCONNECTED' });
    expect(log).toHaveBeenCalledWith(expect.stringContaining('ERR_INTERNET_DISCONNECTED'));
    updater.failWith = undefined;
    updater.next = [{ type: 'not-available', version: '0.1.0' }];
    expect(await c.checkNow()).toEqual({ outcome: 'up-to-date', version: '0.1.0' });
  });

  it("runs one check at a time: a second caller gets the first one's answer", async () => {
    const { c, updater } = controller();
    const [a, b] = await Promise.all([c.checkNow(), c.checkNow()]);
    expect(a).toEqual(b);
    expect(updater.checks).toBe(1);
  });
});

describe('the first launch of a new version', () => {
  it('is told apart from a first launch ever and from a relaunch of the same version', async () => {
    const home = await mkdtemp(join(tmpdir(), 'rein-version-'));
    expect(await noteRunningVersion(home, '0.1.0')).toEqual({});
    expect(await noteRunningVersion(home, '0.1.0')).toEqual({});
    expect(await noteRunningVersion(home, '0.2.0')).toEqual({ updatedFrom: '0.1.0' });
    expect(JSON.parse(await readFile(join(home, 'app-version.json'), 'utf8'))).toEqual({ version: '0.2.0' });
    expect(await noteRunningVersion(home, '0.2.0')).toEqual({});
  });
});
