/**
 * A schedule change and its launchd job are all or nothing: a bootstrap launchctl refuses (macOS's
 * "Allow in the Background" off), or an app running from a place that goes away, leaves neither a
 * plist nor a changed schedule, and says why. And `sync` brings every job back in line with the
 * program that starts Rein now (the app moved, a node upgrade), removing orphan plists.
 */
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GlobalConfig } from '../../../src-main/core/config/schema.js';
import { isReinError } from '../../../src-main/core/errors.js';
import type { ScheduleProgram } from '../../../src-main/core/schedule/backend.js';
import { LaunchctlError } from '../../../src-main/core/schedule/launchctl.js';
import { ensureLauncher, launcherPath } from '../../../src-main/core/schedule/launcher.js';
import { buildLaunchdPlist, parsePlist } from '../../../src-main/core/schedule/launchdPlist.js';
import { Schedules } from '../../../src-main/core/schedule/schedules.js';
import { createScheduleTools } from '../../../src-main/core/tools/builtin/schedule.js';
import { SessionReadTracker } from '../../../src-main/core/tools/readTracker.js';
import type { ToolContext } from '../../../src-main/core/tools/tool.js';

const FAKE = join(import.meta.dirname, '..', '..', 'fixtures', 'schedule', 'fake-launchctl.mjs');
const config = GlobalConfig.parse({});

let dir: string;
let home: string;
let agents: string;
let state: string;
let env: NodeJS.ProcessEnv;
/** An app bundle's executable that exists. */
let app: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rein-jobs-'));
  home = join(dir, 'home');
  agents = join(dir, 'LaunchAgents');
  state = join(dir, 'launchctl');
  await mkdir(state, { recursive: true });
  const wrapper = join(dir, 'launchctl-bin');
  await writeFile(wrapper, `#!/bin/sh\nexec "${process.execPath}" "${FAKE}" "$@"\n`);
  await chmod(wrapper, 0o755);
  env = {
    PATH: process.env.PATH,
    HOME: dir,
    REIN_SCHEDULE_BACKEND: 'launchd',
    REIN_LAUNCHCTL: wrapper,
    REIN_LAUNCH_AGENTS_DIR: agents,
    FAKE_LAUNCHCTL_DIR: state,
    FAKE_LAUNCHCTL_LINGER: '0',
  };
  app = await fakeApp(join(dir, 'Applications', 'Rein.app'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function fakeApp(bundle: string): Promise<string> {
  const exe = join(bundle, 'Contents', 'MacOS', 'Rein');
  await mkdir(join(exe, '..'), { recursive: true });
  await writeFile(exe, '#!/bin/sh\nexit 0\n');
  await chmod(exe, 0o755);
  return exe;
}

const appProgram = (exe: string): ScheduleProgram => ({ kind: 'app', prefix: [exe, '--headless'] });
const schedulesWith = (program: () => ScheduleProgram, more: NodeJS.ProcessEnv = {}) =>
  new Schedules({ home, env: { ...env, ...more }, config, program });
const refusing = (program = () => appProgram(app)) => schedulesWith(program, { FAKE_LAUNCHCTL_FAIL: 'bootstrap' });
const plistOf = (id: string) => join(agents, `dev.rein.schedule.${id}.plist`);
const loaded = async (): Promise<string[]> =>
  Object.keys(
    (JSON.parse(await readFile(join(state, 'state.json'), 'utf8').catch(() => '{"jobs":{}}')) as { jobs: object }).jobs,
  ).map((k) => k.split('/').pop()!);
const argsOf = async (id: string) =>
  (parsePlist(await readFile(plistOf(id), 'utf8')) as { ProgramArguments: string[] }).ProgramArguments;
const plistFiles = async () => (await readdir(agents).catch(() => [] as string[])).filter((n) => n.endsWith('.plist'));

describe('a bootstrap launchctl refuses', () => {
  it('create: the error has launchctl’s words and what to do; no plist, no schedule', async () => {
    const err = await refusing()
      .create({ cron: '@daily', prompt: 'check CI' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LaunchctlError);
    expect((err as LaunchctlError).stderr).toContain('Bootstrap failed: 5: Input/output error');
    expect((err as Error).message).toMatch(
      /launchd would not load the job of schedule [0-9a-f]{8}, so its plist was removed: .*Bootstrap failed: 5: Input\/output error.*Allow in the Background/,
    );
    expect(await plistFiles()).toEqual([]);
    expect(await schedulesWith(() => appProgram(app)).list()).toEqual([]);
  });

  it('update: the schedule stays as it was, and no plist is left to fire', async () => {
    const made = await schedulesWith(() => appProgram(app)).create({ cron: '0 9 * * *', prompt: 'check CI' });
    const err = await refusing()
      .update(made.id, { cron: '0 10 * * *', prompt: 'changed' })
      .catch((e: unknown) => e);
    expect((err as Error).message).toContain('Bootstrap failed: 5: Input/output error');
    const after = await schedulesWith(() => appProgram(app)).get(made.id);
    expect(after).toEqual(made);
    // The old job was booted out for the change and launchd refuses it back too: no plist, no job.
    expect(existsSync(plistOf(made.id))).toBe(false);
    expect(await loaded()).toEqual([]);
  });

  it('enable: the schedule stays disabled, with no plist', async () => {
    const made = await schedulesWith(() => appProgram(app)).create({ cron: '@daily', prompt: 'x', enabled: false });
    await expect(refusing().enable(made.id)).rejects.toThrow(/Bootstrap failed: 5/);
    expect((await schedulesWith(() => appProgram(app)).get(made.id)).enabled).toBe(false);
    expect(await plistFiles()).toEqual([]);
  });

  it('the schedule_create tool tells the model the same, and keeps nothing', async () => {
    const tools = Object.fromEntries(
      createScheduleTools({ env: { ...env, FAKE_LAUNCHCTL_FAIL: 'bootstrap' }, config }).map((t) => [t.name, t]),
    );
    const ctx: ToolContext = {
      cwd: dir,
      sessionId: 's',
      sessionDir: join(dir, 'side'),
      reinHome: home,
      agent: 'default',
      readTracker: new SessionReadTracker(),
      egress: async () => ({ allowed: true }),
    };
    const tool = tools.schedule_create!;
    const r = await tool.call(tool.input.parse({ cron: '@daily', prompt: 'x' }), ctx, new AbortController().signal);
    expect(r.ok).toBe(false);
    expect(r.content).toContain('Bootstrap failed: 5: Input/output error');
    expect(await plistFiles()).toEqual([]);
    expect(await schedulesWith(() => appProgram(app)).list()).toEqual([]);
  });

  it('remove: a job that will not go keeps its schedule (no orphan either way)', async () => {
    const made = await schedulesWith(() => appProgram(app)).create({ cron: '@daily', prompt: 'x' });
    await expect(
      schedulesWith(() => appProgram(app), { FAKE_LAUNCHCTL_FAIL: 'bootout' }).remove(made.id),
    ).rejects.toThrow(/Boot-out failed/);
    expect((await schedulesWith(() => appProgram(app)).get(made.id)).id).toBe(made.id);
    expect(existsSync(plistOf(made.id))).toBe(true);
  });
});

describe('an app macOS runs from a place that goes away', () => {
  const translocated: ScheduleProgram = {
    kind: 'app',
    prefix: ['/private/var/folders/x1/T/AppTranslocation/ABCD/d/Rein.app/Contents/MacOS/Rein', '--headless'],
    problem: 'Rein is running from a temporary copy … Move Rein to Applications first',
  };

  it('may not create, update or enable a schedule; disabling still works', async () => {
    const s = schedulesWith(() => translocated);
    const err = await s.create({ cron: '@daily', prompt: 'x' }).catch((e: unknown) => e);
    expect(isReinError(err, 'unavailable')).toBe(true);
    expect((err as Error).message).toContain('Move Rein to Applications first');
    expect(await s.list()).toEqual([]);
    expect(existsSync(join(state, 'calls.jsonl'))).toBe(false); // launchctl was never asked
    const made = await schedulesWith(() => appProgram(app)).create({ cron: '@daily', prompt: 'x' });
    await expect(s.update(made.id, { cron: '@hourly' })).rejects.toThrow(/Move Rein to Applications first/);
    expect((await s.get(made.id)).cron).toBe('@daily');
    expect((await s.disable(made.id)).enabled).toBe(false);
    await expect(s.enable(made.id)).rejects.toThrow(/Move Rein to Applications first/);
    expect((await s.get(made.id)).enabled).toBe(false);
    // A disabled schedule may be made; nothing is installed for it.
    expect((await s.create({ cron: '@daily', prompt: 'later', enabled: false })).enabled).toBe(false);
  });

  it('sync changes nothing and says why (only when there is something to run)', async () => {
    expect(await schedulesWith(() => translocated).sync()).toEqual({ jobs: [] });
    const made = await schedulesWith(() => appProgram(app)).create({ cron: '@daily', prompt: 'x' });
    const before = await readFile(plistOf(made.id), 'utf8');
    const r = await schedulesWith(() => translocated).sync();
    expect(r.problem).toContain('Move Rein to Applications first');
    expect(await readFile(plistOf(made.id), 'utf8')).toBe(before);
  });
});

describe('sync', () => {
  it('the app moved: its jobs are rewritten to the new place and loaded again', async () => {
    const made = await schedulesWith(() => appProgram(app)).create({ cron: '@daily', prompt: 'x' });
    const moved = await fakeApp(join(dir, 'Elsewhere', 'Rein.app'));
    await rm(join(dir, 'Applications'), { recursive: true });
    const r = await schedulesWith(() => appProgram(moved)).sync();
    expect(r.jobs).toEqual([{ id: made.id, action: 'updated', reason: `its program is gone (${app})` }]);
    expect(await argsOf(made.id)).toEqual([moved, '--headless', 'schedule', 'run', made.id, '--from-launchd']);
    expect(await loaded()).toEqual([`dev.rein.schedule.${made.id}`]);
    // Again: nothing to do.
    expect((await schedulesWith(() => appProgram(moved)).sync()).jobs).toEqual([{ id: made.id, action: 'unchanged' }]);
  });

  it('a plist that is there but not loaded (refused at login, deleted by hand) is loaded again', async () => {
    const made = await schedulesWith(() => appProgram(app)).create({ cron: '@daily', prompt: 'x' });
    await rm(join(state, 'state.json'));
    expect((await schedulesWith(() => appProgram(app)).sync()).jobs).toEqual([
      { id: made.id, action: 'updated', reason: 'not loaded' },
    ]);
    expect(await loaded()).toEqual([`dev.rein.schedule.${made.id}`]);
  });

  it("the app keeps the CLI's working jobs, and takes over one whose Rein is gone", async () => {
    const entry = join(dir, 'checkout', 'bin', 'rein.js');
    await mkdir(join(entry, '..'), { recursive: true });
    await writeFile(entry, '');
    const cli: ScheduleProgram = { kind: 'launcher', prefix: [launcherPath(home), process.execPath, entry] };
    const made = await schedulesWith(() => cli).create({ cron: '@daily', prompt: 'x' });
    expect(existsSync(launcherPath(home))).toBe(true);
    const kept = (await schedulesWith(() => appProgram(app)).sync()).jobs;
    expect(kept).toEqual([{ id: made.id, action: 'kept', reason: expect.stringContaining("the CLI's program") }]);
    expect((await argsOf(made.id))[0]).toBe(launcherPath(home));
    await rm(join(dir, 'checkout'), { recursive: true });
    expect((await schedulesWith(() => appProgram(app)).sync()).jobs).toEqual([
      { id: made.id, action: 'updated', reason: `its program is gone (${launcherPath(home)})` },
    ]);
    expect((await argsOf(made.id))[0]).toBe(app);
  });

  it('removes the plists of this home without an enabled schedule, and leaves other homes’ alone', async () => {
    const s = schedulesWith(() => appProgram(app));
    const off = await s.create({ cron: '@daily', prompt: 'x', enabled: false });
    await mkdir(agents, { recursive: true });
    const write = async (id: string, reinHome: string) =>
      writeFile(
        plistOf(id),
        buildLaunchdPlist({ id, cron: '@daily', programPrefix: [app, '--headless'], reinHome }).xml,
      );
    await write('deadbeef', home); // a schedule that is gone (a crash between the two writes, an old Rein)
    await write(off.id, home); // a disabled schedule's
    await write('0badf00d', join(dir, 'other-home')); // another REIN_HOME's: not ours to judge
    const r = await s.sync();
    expect(r.jobs).toEqual(
      expect.arrayContaining([
        { id: 'deadbeef', action: 'removed', reason: 'no such schedule' },
        { id: off.id, action: 'removed', reason: 'the schedule is disabled' },
      ]),
    );
    expect(r.jobs).toHaveLength(2);
    expect(await plistFiles()).toEqual(['dev.rein.schedule.0badf00d.plist']);
  });

  it('a CLI job is made through the launcher, which is written first', async () => {
    await ensureLauncher(home).then((p) => rm(p));
    const cli: ScheduleProgram = {
      kind: 'launcher',
      prefix: [launcherPath(home), process.execPath, join(dir, 'rein.js')],
    };
    const made = await schedulesWith(() => cli).create({ cron: '@daily', prompt: 'x' });
    expect(existsSync(launcherPath(home))).toBe(true);
    expect(await argsOf(made.id)).toEqual([...cli.prefix, 'schedule', 'run', made.id, '--from-launchd']);
  });
});
