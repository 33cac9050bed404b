import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isReinError } from '../../../src-main/core/errors.js';
import {
  DEFAULT_LAUNCHCTL,
  LaunchctlError,
  createLaunchctl,
  installLaunchdJob,
  launchctlBinary,
  removeLaunchdJob,
  resolveLaunchAgentsDir,
  type Launchd,
} from '../../../src-main/core/schedule/launchctl.js';
import { buildLaunchdPlist, parsePlist, plistCalendarIntervals } from '../../../src-main/core/schedule/launchdPlist.js';
import { useLeakCheck } from '../../support/leaks.js';

useLeakCheck();

const FAKE = join(import.meta.dirname, '..', '..', 'fixtures', 'schedule', 'fake-launchctl.mjs');
const ID = 'a1b2c3d4';
const LABEL = `dev.rein.schedule.${ID}`;
const PREFIX = ['/usr/local/bin/node', '/opt/rein/bin/rein.js'];

let dir: string;
let agents: string;
let home: string;
let state: string;
let env: NodeJS.ProcessEnv;
let launchd: Launchd;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rein-launchctl-'));
  agents = join(dir, 'LaunchAgents');
  home = join(dir, 'home');
  state = join(dir, 'fake');
  await mkdir(state, { recursive: true });
  // The stand-in runs through a tiny shell wrapper, as REIN_LAUNCHCTL names one executable.
  const wrapper = join(dir, 'launchctl');
  await writeFile(wrapper, `#!/bin/sh\nexec "${process.execPath}" "${FAKE}" "$@"\n`);
  await chmod(wrapper, 0o755);
  env = { ...process.env, REIN_LAUNCHCTL: wrapper, FAKE_LAUNCHCTL_DIR: state, FAKE_LAUNCHCTL_LINGER: '2' };
  launchd = createLaunchctl({ env, uid: 501, pollMs: 5 });
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function calls(): Promise<string[]> {
  const text = await readFile(join(state, 'calls.jsonl'), 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { args: string[] }).args.join(' '));
}
async function clearCalls(): Promise<void> {
  await rm(join(state, 'calls.jsonl'), { force: true });
}
async function loadedJobs(): Promise<Record<string, { plist: string; xml: string; leaving?: number }>> {
  const text = await readFile(join(state, 'state.json'), 'utf8').catch(() => '{"jobs":{}}');
  return (JSON.parse(text) as { jobs: Record<string, { plist: string; xml: string; leaving?: number }> }).jobs;
}

const plistPath = () => join(agents, `${LABEL}.plist`);
const spec = (cron: string, more: Partial<Parameters<typeof installLaunchdJob>[0]> = {}) => ({
  id: ID,
  cron,
  programPrefix: PREFIX,
  reinHome: home,
  env: { PATH: '/usr/bin:/bin' },
  launchAgentsDir: agents,
  launchd,
  ...more,
});
const PRINT = `print gui/501/${LABEL}`;
const BOOTOUT = `bootout gui/501/${LABEL}`;
const bootstrap = () => `bootstrap gui/501 ${plistPath()}`;

describe('the launchctl interface', () => {
  it('picks REIN_LAUNCHCTL, else /bin/launchctl; REIN_LAUNCH_AGENTS_DIR, else ~/Library/LaunchAgents', () => {
    expect(launchctlBinary({})).toBe(DEFAULT_LAUNCHCTL);
    expect(launchctlBinary({ REIN_LAUNCHCTL: ' /x/launchctl ' })).toBe('/x/launchctl');
    expect(resolveLaunchAgentsDir({ REIN_LAUNCH_AGENTS_DIR: '/tmp/agents' })).toBe('/tmp/agents');
    expect(resolveLaunchAgentsDir({ HOME: '/nope' }).endsWith(join('Library', 'LaunchAgents'))).toBe(true);
    expect(createLaunchctl({ env }).domain).toBe(`gui/${process.getuid!()}`);
  });

  it('bootstrap, print, bootout and waitUntilGone speak launchctl', async () => {
    const file = join(dir, 'job.plist');
    await writeFile(file, buildLaunchdPlist({ id: ID, cron: '@daily', programPrefix: PREFIX, reinHome: home }).xml);
    expect(await launchd.isLoaded(LABEL)).toBe(false);
    await launchd.bootstrap(file);
    expect(await launchd.print(LABEL)).toContain(`path = ${file}`);
    await expect(launchd.bootstrap(file)).rejects.toThrow(/Bootstrap failed: 5: Input\/output error/);
    await launchd.bootout(LABEL);
    // bootout returned, the job is still going: print finds it twice more.
    expect(await launchd.isLoaded(LABEL)).toBe(true);
    await launchd.waitUntilGone(LABEL, 5_000);
    expect(await launchd.isLoaded(LABEL)).toBe(false);
    // Booting out what is not loaded is the state asked for, not an error.
    await launchd.bootout(LABEL);
  });

  it('reports a launchctl that cannot be run, and one that times out waiting', async () => {
    const missing = createLaunchctl({ env, binary: join(dir, 'no-such-launchctl'), uid: 501 });
    await expect(missing.bootstrap('/x.plist')).rejects.toThrow(/could not run/);
    const file = join(dir, 'job.plist');
    await writeFile(file, buildLaunchdPlist({ id: ID, cron: '@daily', programPrefix: PREFIX, reinHome: home }).xml);
    const slow = createLaunchctl({ env: { ...env, FAKE_LAUNCHCTL_LINGER: '100000' }, uid: 501, pollMs: 5 });
    await slow.bootstrap(file);
    await slow.bootout(LABEL);
    const err = await slow.waitUntilGone(LABEL, 150).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LaunchctlError);
    expect((err as Error).message).toMatch(/still loaded 150 ms after bootout/);
  });
});

describe('a schedule job: create, update, disable, enable, remove', () => {
  it('create writes the plist, then bootstraps it', async () => {
    const r = await installLaunchdJob(spec('0 9 * * 1-5'));
    expect(r).toEqual({ label: LABEL, plistPath: plistPath(), action: 'created', intervals: 5 });
    expect(await calls()).toEqual([PRINT, bootstrap()]);
    const xml = await readFile(plistPath(), 'utf8');
    expect((await loadedJobs())[`gui/501/${LABEL}`]!.xml).toBe(xml);
    const plist = parsePlist(xml) as { ProgramArguments: string[]; EnvironmentVariables: Record<string, string> };
    expect(plist.ProgramArguments).toEqual([...PREFIX, 'schedule', 'run', ID, '--from-launchd']);
    expect(plist.EnvironmentVariables).toEqual({ PATH: '/usr/bin:/bin', REIN_HOME: home });
    expect(plistCalendarIntervals(plist as never)).toEqual(
      [1, 2, 3, 4, 5].map((Weekday) => ({ Minute: 0, Hour: 9, Weekday })),
    );
    // The logs' folder exists for launchd to open its files in.
    expect(existsSync(join(home, 'schedules', ID))).toBe(true);
  });

  it('update boots out, waits until the job is gone, rewrites, bootstraps', async () => {
    await installLaunchdJob(spec('0 9 * * 1-5'));
    const before = await readFile(plistPath(), 'utf8');
    await clearCalls();
    const r = await installLaunchdJob(spec('*/15 8-18 * * *'));
    expect(r.action).toBe('updated');
    expect(r.intervals).toBe(44);
    // print (loaded) → bootout → print until not found (the stand-in lingers two prints) → bootstrap.
    expect(await calls()).toEqual([PRINT, BOOTOUT, PRINT, PRINT, PRINT, bootstrap()]);
    const after = await readFile(plistPath(), 'utf8');
    expect(after).not.toBe(before);
    expect((await loadedJobs())[`gui/501/${LABEL}`]!.xml).toBe(after);
  });

  it('an update that changes nothing leaves the loaded job alone', async () => {
    await installLaunchdJob(spec('0 9 * * 1-5'));
    await clearCalls();
    expect((await installLaunchdJob(spec('0 9 * * MON-FRI'))).action).toBe('unchanged');
    expect(await calls()).toEqual([PRINT]);
  });

  it('a plist on disk that is not loaded (after a failed bootstrap, a reboot) is rewritten and loaded', async () => {
    await mkdir(agents, { recursive: true });
    await writeFile(plistPath(), 'stale');
    const r = await installLaunchdJob(spec('@hourly'));
    expect(r.action).toBe('updated');
    expect(await calls()).toEqual([PRINT, bootstrap()]);
    expect(await readFile(plistPath(), 'utf8')).toContain('<key>Minute</key>');
  });

  it('disable and remove boot out, wait, and delete the plist; enable loads it again', async () => {
    await installLaunchdJob(spec('0 9 * * 1-5'));
    await clearCalls();
    // disable
    expect(await removeLaunchdJob({ id: ID, reinHome: home, launchAgentsDir: agents, launchd })).toEqual({
      label: LABEL,
      plistPath: plistPath(),
      wasLoaded: true,
      removedFile: true,
    });
    expect(await calls()).toEqual([PRINT, BOOTOUT, PRINT, PRINT, PRINT]);
    expect(existsSync(plistPath())).toBe(false);
    expect(await loadedJobs()).toEqual({});
    // enable
    await clearCalls();
    expect((await installLaunchdJob(spec('0 9 * * 1-5'))).action).toBe('created');
    expect(await calls()).toEqual([PRINT, bootstrap()]);
    // remove
    await clearCalls();
    expect((await removeLaunchdJob({ id: ID, reinHome: home, launchAgentsDir: agents, launchd })).wasLoaded).toBe(true);
    expect(existsSync(plistPath())).toBe(false);
    // remove again: nothing to do, no error
    await clearCalls();
    expect(await removeLaunchdJob({ id: ID, reinHome: home, launchAgentsDir: agents, launchd })).toEqual({
      label: LABEL,
      plistPath: plistPath(),
      wasLoaded: false,
      removedFile: false,
    });
    expect(await calls()).toEqual([PRINT]);
  });

  it.each([
    ['0 0 32 * *', 'invalid', /day of month: 32 is out of range/],
    ['0 9 */2 * 1-5', 'unrepresentable', /cannot be a launchd job/],
    ['0-58 0-22 1-8 * *', 'too_many', /10,856 launchd calendar entries/],
  ])('%s is refused (%s) with nothing written and nothing booted out', async (cron, reason, message) => {
    await installLaunchdJob(spec('0 9 * * 1-5'));
    const before = await readFile(plistPath(), 'utf8');
    const filesBefore = await readdir(agents);
    await clearCalls();
    const err = await installLaunchdJob(spec(cron)).catch((e: unknown) => e);
    expect(isReinError(err, 'invalid_input')).toBe(true);
    expect((err as Error).message).toMatch(message);
    expect((err as { details: { field: string; reason: string } }).details).toMatchObject({ field: 'cron', reason });
    expect(await calls()).toEqual([]);
    expect(await readFile(plistPath(), 'utf8')).toBe(before);
    expect(await readdir(agents)).toEqual(filesBefore);
    expect(Object.keys(await loadedJobs())).toEqual([`gui/501/${LABEL}`]);
  });

  it('a new schedule with an invalid expression leaves no file at all', async () => {
    await expect(installLaunchdJob(spec('0 0 L * *'))).rejects.toThrow(/not classic cron/);
    expect(existsSync(agents)).toBe(false);
    expect(await calls()).toEqual([]);
  });

  it('a job that does not go after bootout stops the update before the plist is rewritten', async () => {
    await installLaunchdJob(spec('0 9 * * 1-5'));
    const before = await readFile(plistPath(), 'utf8');
    const stuck = createLaunchctl({ env: { ...env, FAKE_LAUNCHCTL_LINGER: '100000' }, uid: 501, pollMs: 5 });
    await expect(installLaunchdJob(spec('@hourly', { launchd: stuck, waitTimeoutMs: 150 }))).rejects.toThrow(
      /still loaded/,
    );
    expect(await readFile(plistPath(), 'utf8')).toBe(before);
  });

  it('a bootstrap launchctl refuses is reported with its message', async () => {
    const refusing = createLaunchctl({ env: { ...env, FAKE_LAUNCHCTL_FAIL: 'bootstrap' }, uid: 501 });
    const err = await installLaunchdJob(spec('@daily', { launchd: refusing })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LaunchctlError);
    expect((err as LaunchctlError).exitCode).toBe(5);
    expect((err as Error).message).toMatch(
      /launchctl bootstrap gui\/501 .* failed \(exit 5\): Bootstrap failed: 5: Input\/output error/,
    );
    // No plist is left to be loaded at the next login, where it would fire with nothing to run.
    expect((err as Error).message).toMatch(/so its plist was removed.*Allow in the Background/);
    expect(existsSync(plistPath())).toBe(false);
  });

  it('changes to one job in one process go one after another', async () => {
    await installLaunchdJob(spec('0 9 * * 1-5'));
    const crons = ['@hourly', '*/30 * * * *', '0 12 * * *', '0 18 * * 5'];
    const results = await Promise.all(crons.map((c) => installLaunchdJob(spec(c))));
    expect(results.map((r) => r.action)).toEqual(['updated', 'updated', 'updated', 'updated']);
    const last = buildLaunchdPlist({
      id: ID,
      cron: '0 18 * * 5',
      programPrefix: PREFIX,
      reinHome: home,
      env: { PATH: '/usr/bin:/bin' },
    }).xml;
    expect(await readFile(plistPath(), 'utf8')).toBe(last);
    expect((await loadedJobs())[`gui/501/${LABEL}`]!.xml).toBe(last);
    // Every bootstrap came after the previous job was gone: none failed.
    const seq = await calls();
    expect(seq.filter((c) => c.startsWith('bootstrap')).length).toBe(5);
  });

  it('removes temp files a killed writer left next to the plist', async () => {
    await mkdir(agents, { recursive: true });
    const stale = join(agents, `.${LABEL}.plist.999999999.0.tmp`);
    await writeFile(stale, 'half a plist');
    await installLaunchdJob(spec('@daily'));
    expect(existsSync(stale)).toBe(false);
    expect(await readdir(agents)).toEqual([`${LABEL}.plist`]);
  });
});

describe.runIf(process.platform === 'darwin')('a real launchd job (macOS)', () => {
  const id = `test${randomBytes(4).toString('hex')}`;
  const label = `dev.rein.schedule.${id}`;
  let realDir: string;
  afterAll(async () => {
    await createLaunchctl()
      .bootout(label)
      .catch(() => undefined);
    if (realDir) await rm(realDir, { recursive: true, force: true });
  });

  it('bootstraps, updates and boots out a job with a temporary label', { timeout: 60_000 }, async () => {
    realDir = await mkdtemp(join(tmpdir(), 'rein-launchd-real-'));
    const real = createLaunchctl({ env: { ...process.env, REIN_LAUNCHCTL: '' } });
    const target = {
      id,
      reinHome: join(realDir, 'home'),
      launchAgentsDir: join(realDir, 'LaunchAgents'),
      launchd: real,
    };
    // Far in the future first, so nothing runs during the test.
    const created = await installLaunchdJob({ ...target, cron: '0 0 1 1 *', programPrefix: ['/usr/bin/true'] });
    expect(created.action).toBe('created');
    expect(await real.isLoaded(label)).toBe(true);
    expect(await real.print(label)).toContain(label);
    // An update goes through bootout → gone → bootstrap; launchd accepts the exact expansion…
    expect(
      (await installLaunchdJob({ ...target, cron: '30 8 1,15 * MON', programPrefix: ['/usr/bin/true'] })).action,
    ).toBe('updated');
    expect(await real.isLoaded(label)).toBe(true);
    // …and the empty dict of every minute.
    expect((await installLaunchdJob({ ...target, cron: '* * * * *', programPrefix: ['/usr/bin/true'] })).action).toBe(
      'updated',
    );
    expect(await real.isLoaded(label)).toBe(true);
    const removed = await removeLaunchdJob(target);
    expect(removed).toMatchObject({ wasLoaded: true, removedFile: true });
    expect(await real.isLoaded(label)).toBe(false);
  });
});
