/**
 * What launchd will do with a job `rein schedule` made, checked the way launchd runs it: the plist's
 * ProgramArguments with exactly its EnvironmentVariables, from `/` — before and after a Homebrew
 * upgrade renamed the node the CLI ran on; a launchctl that refuses the bootstrap (as macOS does with
 * "Allow in the Background" off) leaves no plist and no schedule; `rein schedule sync` repairs jobs
 * and removes orphans; `rein doctor` says what launchd will do with each job.
 */
import { spawn } from 'node:child_process';
import {
  chmod,
  copyFile,
  link,
  mkdir,
  mkdtemp,
  readFile,
  readdir,
  rename,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REIN_BIN, cleanEnv, rein, tempHome, type CliResult } from '../support/cli.js';
import { startFakeAnthropic, text, type FakeAnthropic } from '../support/fakeAnthropic.js';
import { parsePlist } from '../../src-main/core/schedule/launchdPlist.js';

const FAKE_LAUNCHCTL = resolve(__dirname, '../fixtures/schedule/fake-launchctl.mjs');

let fake: FakeAnthropic;
let root: string;
let home: string;
let cwd: string;
let agentsDir: string;
let launchctlDir: string;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  fake = await startFakeAnthropic();
  ({ home, cwd } = await tempHome());
  root = await mkdtemp(join(tmpdir(), 'rein-launchd-run-'));
  agentsDir = join(root, 'LaunchAgents');
  launchctlDir = join(root, 'launchctl');
  await mkdir(launchctlDir, { recursive: true });
  await mkdir(home, { recursive: true, mode: 0o700 });
  // The model is a server on this machine: no key is needed, so the runs below need nothing the plist lacks.
  await writeFile(join(home, 'config.yaml'), `base_url: ${fake.url}\ndaemon:\n  notifications: false\n`);
  env = cleanEnv({
    REIN_HOME: home,
    HOME: root,
    REIN_SCHEDULE_BACKEND: 'launchd',
    REIN_LAUNCH_AGENTS_DIR: agentsDir,
    REIN_LAUNCHCTL: FAKE_LAUNCHCTL,
    FAKE_LAUNCHCTL_DIR: launchctlDir,
    FAKE_LAUNCHCTL_LINGER: '1',
  });
});

afterEach(async () => {
  await fake.close();
  await rm(root, { recursive: true, force: true });
});

interface Plist {
  ProgramArguments: string[];
  EnvironmentVariables: Record<string, string>;
  AssociatedBundleIdentifiers: string[];
}
const plistOf = async (id: string) =>
  parsePlist(await readFile(join(agentsDir, `dev.rein.schedule.${id}.plist`), 'utf8')) as unknown as Plist;

/** The job run as launchd runs it: its ProgramArguments, its EnvironmentVariables and nothing else, from /. */
function runAsLaunchd(plist: Plist): Promise<CliResult> {
  const [file, ...args] = plist.ProgramArguments;
  const child = spawn(file!, args, {
    env: { ...plist.EnvironmentVariables },
    cwd: '/',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((ok) => child.on('close', (code) => ok({ code, stdout, stderr })));
}

/** `rein` started with a node of our choosing (the way a Homebrew user's `rein` starts). */
function reinWith(node: string, args: string[]): Promise<CliResult> {
  const child = spawn(node, [REIN_BIN, ...args], { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((ok) => child.on('close', (code) => ok({ code, stdout, stderr })));
}

/** prefix/Cellar/node/<version>/bin/node (this node, hard-linked or copied) and prefix/bin/node linking to it. */
async function fakeHomebrew(prefix: string, version: string): Promise<string> {
  const node = join(prefix, 'Cellar', 'node', version, 'bin', 'node');
  await mkdir(join(node, '..'), { recursive: true });
  await link(process.execPath, node).catch(() => copyFile(process.execPath, node));
  await chmod(node, 0o755);
  await mkdir(join(prefix, 'bin'), { recursive: true });
  await symlink(`../Cellar/node/${version}/bin/node`, join(prefix, 'bin', 'node'));
  return join(prefix, 'bin', 'node');
}

const json = (s: string) => JSON.parse(s);
const doctor = async () =>
  json((await rein(['doctor', '--json'], { env, cwd })).stdout) as {
    ok: boolean;
    checks: { name: string; status: string; message: string; hint?: string }[];
  };
const check = (r: Awaited<ReturnType<typeof doctor>>, name: string) => r.checks.find((c) => c.name === name);

describe('a job made by the CLI, run as launchd runs it', () => {
  it('records no versioned node, and still runs the schedule after `brew upgrade` renames the Cellar folder', async () => {
    const prefix = join(root, 'homebrew');
    const brewNode = await fakeHomebrew(prefix, '20.1');
    const made = await reinWith(brewNode, [
      'schedule',
      'create',
      '--cron',
      '* * * * *',
      '--prompt',
      'check CI',
      '--json',
    ]);
    expect(made.code, made.stderr).toBe(0);
    const id = json(made.stdout).id as string;
    const plist = await plistOf(id);
    expect(plist.ProgramArguments).toEqual([
      join(home, 'bin', 'rein-launch'),
      brewNode,
      REIN_BIN,
      'schedule',
      'run',
      id,
      '--from-launchd',
    ]);
    expect(plist.ProgramArguments.join(' ')).not.toContain('Cellar');
    expect(plist.AssociatedBundleIdentifiers).toEqual(['dev.rein.app']);

    fake.enqueue(text('CI is green.'));
    let r = await runAsLaunchd(plist);
    expect(r.code, r.stderr).toBe(0);
    expect(fake.requests).toHaveLength(1);
    expect(json((await rein(['schedule', 'show', id, '--json'], { env, cwd })).stdout).last_run).toMatchObject({
      status: 'finished',
    });

    // brew upgrade: the version folder is renamed and the link follows it.
    await rename(join(prefix, 'Cellar', 'node', '20.1'), join(prefix, 'Cellar', 'node', '20.2'));
    await rm(brewNode);
    await symlink('../Cellar/node/20.2/bin/node', brewNode);
    fake.enqueue(text('Still green.'));
    r = await runAsLaunchd(await plistOf(id));
    expect(r.code, r.stderr).toBe(0);
    expect(fake.requests).toHaveLength(2);
    expect(r.stdout).toContain('Still green.');

    // Homebrew's node gone altogether (brew uninstall): the launcher finds a node on the job's PATH.
    await rm(prefix, { recursive: true });
    fake.enqueue(text('Green without Homebrew.'));
    r = await runAsLaunchd(await plistOf(id));
    expect(r.code, r.stderr).toBe(0);
    expect(fake.requests).toHaveLength(3);
  });

  it("Rein's script moved away: the run fails saying so, in launchd.err.log's stream and the schedule's last run", async () => {
    const entry = join(root, 'old-checkout', 'bin', 'rein.js');
    const id = json(
      (await rein(['schedule', 'create', '--cron', '* * * * *', '--prompt', 'x', '--json'], { env, cwd })).stdout,
    ).id as string;
    const plist = await plistOf(id);
    // As if the job had been made from a checkout that is gone now.
    plist.ProgramArguments[2] = entry;
    const r = await runAsLaunchd(plist);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`Rein's script ${entry} is gone`);
    expect(json((await rein(['schedule', 'show', id, '--json'], { env, cwd })).stdout).last_run).toMatchObject({
      status: 'failed',
      error: expect.stringContaining('rein schedule sync'),
    });
    expect(fake.requests).toHaveLength(0);
  });
});

describe('a launchctl that refuses the bootstrap ("Allow in the Background" off)', () => {
  const refusing = () => ({ ...env, FAKE_LAUNCHCTL_FAIL: 'bootstrap' });

  it('create, update and enable exit 1 with launchctl’s message; no plist, no schedule, nothing changed', async () => {
    const created = await rein(['schedule', 'create', '--cron', '@daily', '--prompt', 'check CI', '--json'], {
      env: refusing(),
      cwd,
    });
    expect(created.code).toBe(1);
    expect(created.stderr).toContain('Bootstrap failed: 5: Input/output error');
    expect(created.stderr).toContain('Allow in the Background');
    expect(await readdir(agentsDir).catch(() => [])).toEqual([]);
    expect(json((await rein(['schedule', 'list', '--json'], { env, cwd })).stdout)).toEqual([]);

    const s = json(
      (await rein(['schedule', 'create', '--cron', '@daily', '--prompt', 'check CI', '--json'], { env, cwd })).stdout,
    );
    const updated = await rein(['schedule', 'update', s.id, '--cron', '@hourly'], { env: refusing(), cwd });
    expect(updated.code).toBe(1);
    expect(updated.stderr).toContain('Bootstrap failed: 5: Input/output error');
    expect(json((await rein(['schedule', 'show', s.id, '--json'], { env, cwd })).stdout)).toMatchObject({
      cron: '@daily',
      enabled: true,
      updated_at: s.updated_at,
    });
    // Booted out for the change and refused back: no plist left to fire at login; doctor says so.
    expect(await readdir(agentsDir)).toEqual([]);
    const d = await doctor();
    expect(check(d, `schedule ${s.id} job`)).toMatchObject({
      status: 'fail',
      hint: expect.stringContaining('Allow in the Background'),
    });

    expect((await rein(['schedule', 'disable', s.id], { env, cwd })).code).toBe(0);
    const enabled = await rein(['schedule', 'enable', s.id], { env: refusing(), cwd });
    expect(enabled.code).toBe(1);
    expect(enabled.stderr).toContain('Bootstrap failed: 5: Input/output error');
    expect(json((await rein(['schedule', 'show', s.id, '--json'], { env, cwd })).stdout).enabled).toBe(false);
    expect(await readdir(agentsDir)).toEqual([]);
  });
});

describe('rein schedule sync', () => {
  it('points a job whose program is gone at this Rein, and removes a plist whose schedule is gone', async () => {
    const s = json(
      (
        await rein(['schedule', 'create', '--cron', '@daily', '--prompt', 'x', '--json'], {
          env: { ...env, REIN_SCHEDULE_PROGRAM: JSON.stringify([join(root, 'gone', 'rein')]) },
          cwd,
        })
      ).stdout,
    );
    expect((await plistOf(s.id)).ProgramArguments[0]).toBe(join(root, 'gone', 'rein'));
    let d = await doctor();
    expect(check(d, `schedule ${s.id} program`)).toMatchObject({
      status: 'fail',
      message: expect.stringContaining('gone'),
      hint: expect.stringContaining('rein schedule sync'),
    });

    // A schedule taken out of the store behind launchd's back (an old Rein, a crash): its plist is an orphan.
    const other = json(
      (await rein(['schedule', 'create', '--cron', '@hourly', '--prompt', 'y', '--json'], { env, cwd })).stdout,
    );
    const file = join(home, 'schedules.json');
    const stored = json(await readFile(file, 'utf8'));
    stored.schedules = stored.schedules.filter((x: { id: string }) => x.id !== other.id);
    await writeFile(file, JSON.stringify(stored, null, 2));
    d = await doctor();
    expect(check(d, 'schedule jobs')).toMatchObject({
      status: 'fail',
      message: expect.stringContaining(`dev.rein.schedule.${other.id}`),
      hint: expect.stringContaining('rein schedule sync'),
    });

    const r = await rein(['schedule', 'sync', '--json'], { env, cwd });
    expect(r.code, r.stderr).toBe(0);
    expect(json(r.stdout)).toEqual({
      backend: 'launchd',
      jobs: [
        { id: s.id, action: 'updated', reason: `its program is gone (${join(root, 'gone', 'rein')})` },
        { id: other.id, action: 'removed', reason: 'no such schedule' },
      ],
    });
    expect((await plistOf(s.id)).ProgramArguments[0]).toBe(join(home, 'bin', 'rein-launch'));
    expect(await readdir(agentsDir)).toEqual([`dev.rein.schedule.${s.id}.plist`]);
    d = await doctor();
    expect(check(d, `schedule ${s.id} program`)).toMatchObject({ status: 'ok' });
    expect(check(d, 'schedule jobs')).toBeUndefined();
  });
});

describe('rein doctor on what launchd will do', () => {
  it('a sound job: its program runs with only its environment, it is loaded, the key is reachable, no failed run', async () => {
    const s = json(
      (await rein(['schedule', 'create', '--cron', '@daily', '--prompt', 'x', '--json'], { env, cwd })).stdout,
    );
    const d = await doctor();
    expect(check(d, `schedule ${s.id} program`)).toMatchObject({
      status: 'ok',
      message: expect.stringMatching(/rein-launch → node .* starts Rein with the job's own environment/),
    });
    expect(check(d, `schedule ${s.id} job`)).toMatchObject({
      status: 'ok',
      message: expect.stringContaining(`dev.rein.schedule.${s.id}`),
    });
    expect(check(d, `schedule ${s.id} key`)).toMatchObject({
      status: 'ok',
      message: expect.stringContaining('no key needed'),
    });
    expect(check(d, `schedule ${s.id} last run`)).toMatchObject({ status: 'ok', message: 'no run yet' });
    expect(d.checks.filter((c) => c.status === 'fail')).toEqual([]);
  });

  it('fails a program that does not start Rein, a job launchd does not have, a failed last run', async () => {
    const c = await rein(['schedule', 'create', '--cron', '@daily', '--prompt', 'x', '--json'], {
      env: { ...env, REIN_SCHEDULE_PROGRAM: '["/bin/false"]' },
      cwd,
    });
    expect(c.code, c.stderr).toBe(0);
    const s = json(c.stdout);
    await rm(join(launchctlDir, 'state.json'));
    const file = join(home, 'schedules.json');
    const stored = json(await readFile(file, 'utf8'));
    stored.schedules[0].last_run = {
      at: new Date().toISOString(),
      status: 'failed',
      message: 'the model could not be reached',
      trigger: 'launchd',
    };
    await writeFile(file, JSON.stringify(stored, null, 2));
    const r = await rein(['doctor', '--json'], { env, cwd });
    expect(r.code).toBe(1);
    const d = json(r.stdout);
    expect(check(d, `schedule ${s.id} program`)).toMatchObject({
      status: 'fail',
      message: expect.stringContaining("/bin/false schedule --help did not run with the job's environment"),
    });
    expect(check(d, `schedule ${s.id} job`)).toMatchObject({
      status: 'fail',
      message: expect.stringContaining('is not loaded'),
    });
    expect(check(d, `schedule ${s.id} last run`)).toMatchObject({
      status: 'fail',
      message: expect.stringContaining('the model could not be reached'),
      hint: expect.stringContaining(`rein schedule logs ${s.id}`),
    });
  });

  it('fails a key only the shell has, and is satisfied once it is stored (`rein auth set-key`)', async () => {
    await writeFile(join(home, 'config.yaml'), 'daemon:\n  notifications: false\n');
    const shell = { ...env, ANTHROPIC_API_KEY: 'sk-ant-test-only-in-the-shell', ANTHROPIC_BASE_URL: fake.url };
    const c = await rein(['schedule', 'create', '--cron', '@daily', '--prompt', 'x', '--json'], { env: shell, cwd });
    expect(c.code, c.stderr).toBe(0);
    const s = json(c.stdout);
    let d = json((await rein(['doctor', '--json'], { env: shell, cwd })).stdout);
    expect(check(d, `schedule ${s.id} key`)).toMatchObject({
      status: 'fail',
      message: expect.stringContaining("the job's own environment finds no model key"),
      hint: expect.stringContaining('rein auth set-key'),
    });
    const stored = await rein(['auth', 'set-key'], { env: shell, cwd, stdin: 'sk-ant-test-stored-key\n' });
    expect(stored.code, stored.stderr).toBe(0);
    d = json((await rein(['doctor', '--json'], { env: shell, cwd })).stdout);
    expect(check(d, `schedule ${s.id} key`)).toMatchObject({
      status: 'ok',
      message: expect.stringContaining('the key stored in'),
    });
  });

  it('daemon backend: enabled schedules and no daemon to fire them is a failure', async () => {
    const denv = { ...env, REIN_SCHEDULE_BACKEND: 'daemon' };
    const c = await rein(['schedule', 'create', '--cron', '@daily', '--prompt', 'x'], { env: denv, cwd });
    expect(c.code, c.stderr).toBe(0);
    const d = json((await rein(['doctor', '--json'], { env: denv, cwd })).stdout);
    expect(check(d, 'schedules')).toMatchObject({
      status: 'fail',
      message: expect.stringContaining('no daemon is running'),
      hint: expect.stringContaining('rein daemon'),
    });
  });
});
