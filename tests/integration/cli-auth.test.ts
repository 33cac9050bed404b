/**
 * `rein auth set-key | status | remove` through the built CLI, and the promise behind them: every run
 * finds the stored key, including a schedule started as launchd starts it — with only its plist's
 * environment (no ANTHROPIC_API_KEY, no shell) — and the fake Messages API records the key it was sent.
 * The environment's key still wins over the stored one; a loopback base URL gets the stored key too.
 *
 * Here (Linux, an environment without a session bus) the store is the 0600 file; with a stand-in
 * `secret-tool` on PATH and a bus address it is libsecret. (The stores themselves, including a real
 * GNOME Keyring and the macOS Keychain, are tested in tests/unit/secrets/stores.test.ts.)
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, rein, REIN_BIN, tempHome, type CliResult } from '../support/cli.js';
import { startFakeAnthropic, text, type FakeAnthropic } from '../support/fakeAnthropic.js';
import { parsePlist } from '../../src-main/core/schedule/launchdPlist.js';

const FAKE_LAUNCHCTL = resolve(__dirname, '../fixtures/schedule/fake-launchctl.mjs');
const FAKE_SECRET_TOOL = resolve(__dirname, '../fixtures/secrets/fake-secret-tool.mjs');
const KEY = 'sk-ant-api03-Stored-By-rein-auth-0123456789abcdef';
/** The file store's path for a REIN_HOME. */
const keyFile = (home: string) => join(home, 'secrets', 'anthropic-api-key');

let fake: FakeAnthropic;
let home: string;
let cwd: string;
let root: string;
let bin: string;
/** No key, no bus: what a person's shell minus the export looks like to the store. */
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  fake = await startFakeAnthropic();
  ({ home, cwd } = await tempHome());
  root = await mkdtemp(join(tmpdir(), 'rein-auth-'));
  bin = join(root, 'bin');
  await mkdir(bin);
  // A launchd run notifies when it ends: a stand-in writes the words down instead of showing them.
  for (const name of ['notify-send', 'osascript']) {
    await writeFile(join(bin, name), `#!/bin/sh\nexit 0\n`);
    await chmod(join(bin, name), 0o755);
  }
  env = cleanEnv({ PATH: `${bin}:${process.env.PATH}`, HOME: root, REIN_HOME: home });
});

afterEach(async () => {
  await fake.close();
});

/** The key the model request carried (the SDK sends it as x-api-key, or as a bearer token). */
const keySent = (i = 0) => {
  const h = fake.requests[i]!.headers;
  return h['x-api-key'] ?? String(h.authorization ?? '').replace(/^Bearer /, '');
};
const expectNoKeyIn = (r: CliResult) => {
  expect(r.stdout).not.toContain(KEY);
  expect(r.stderr).not.toContain(KEY);
};
/** config.yaml pointing runs at the fake (a loopback base URL): no ANTHROPIC_BASE_URL needed. */
const pointAtFake = async () => {
  await mkdir(home, { recursive: true });
  await writeFile(join(home, 'config.yaml'), `base_url: ${fake.url}\n`);
};

describe('rein auth', () => {
  it('set-key reads stdin, stores the key 0600 (folder 0700), status --json says where, remove removes it', async () => {
    expect(JSON.parse((await rein(['auth', 'status', '--json'], { env, cwd })).stdout)).toEqual({
      stored: false,
      store: null,
      env: false,
    });

    const set = await rein(['auth', 'set-key'], { env, cwd, stdin: `${KEY}\n` });
    expect(set.code, set.stderr).toBe(0);
    expectNoKeyIn(set);
    expect(set.stdout).toContain(keyFile(home));
    expect(set.stdout).toMatch(/plain text on disk/);
    expect(await readFile(keyFile(home), 'utf8')).toBe(`${KEY}\n`);
    expect((await stat(keyFile(home))).mode & 0o777).toBe(0o600);
    expect((await stat(join(home, 'secrets'))).mode & 0o777).toBe(0o700);

    const status = await rein(['auth', 'status', '--json'], { env: { ...env, ANTHROPIC_API_KEY: 'env-key' }, cwd });
    expect(status.code).toBe(0);
    expect(status.stdout).toBe('{"stored":true,"store":"file","env":true}\n');
    const human = await rein(['auth', 'status'], { env, cwd });
    expect(human.stdout).toContain(`stored in ${keyFile(home)}`);
    expectNoKeyIn(human);

    const removed = await rein(['auth', 'remove'], { env, cwd });
    expect(removed.code).toBe(0);
    expect(removed.stdout).toMatch(/^Removed the stored API key from /);
    const again = await rein(['auth', 'remove'], { env, cwd });
    expect([again.code, again.stdout]).toEqual([0, 'No API key was stored; nothing to remove.\n']);
    expect(JSON.parse((await rein(['auth', 'status', '--json'], { env, cwd })).stdout)).toEqual({
      stored: false,
      store: null,
      env: false,
    });
  });

  it('refuses what is not a key (exit 2, nothing stored) and a key given as an argument', async () => {
    for (const stdin of [
      '',
      '\n',
      `${KEY}\n${KEY}\n`,
      `export ANTHROPIC_API_KEY=${KEY}\n`,
      'ANTHROPIC_API_KEY=abcdefghijk\n',
      'short\n',
    ]) {
      const r = await rein(['auth', 'set-key'], { env, cwd, stdin });
      expect(r.code, JSON.stringify(stdin)).toBe(2);
      expect(r.stderr).toMatch(/^rein: key: /);
      expectNoKeyIn(r);
    }
    const arg = await rein(['auth', 'set-key', KEY], { env, cwd });
    expect(arg.code).toBe(2);
    expect(arg.stderr).toMatch(/reads the key from stdin, not from its arguments/);
    expect(arg.stderr).not.toContain(KEY);
    expect((await rein(['auth', 'frobnicate'], { env, cwd })).code).toBe(2);
    expect((await rein(['auth', 'status', 'extra'], { env, cwd })).code).toBe(2);
    await expect(stat(keyFile(home))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('uses the Secret Service when one answers (a stand-in secret-tool), and removes the plain copy', async () => {
    await symlink(FAKE_SECRET_TOOL, join(bin, 'secret-tool'));
    const withBus = { ...env, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/fake/bus' };
    await rein(['auth', 'set-key'], { env, cwd, stdin: 'sk-ant-first-plain-0123\n' }); // no bus: the file
    const r = await rein(['auth', 'set-key'], { env: withBus, cwd, stdin: KEY });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /^Stored the API key in the Secret Service \(libsecret: service rein, account anthropic-api-key:/,
    );
    expect(r.stdout).toMatch(/Removed the older copy from a file/);
    await expect(stat(keyFile(home))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(JSON.parse((await rein(['auth', 'status', '--json'], { env: withBus, cwd })).stdout)).toEqual({
      stored: true,
      store: 'libsecret',
      env: false,
    });
    expect(JSON.parse(await readFile(join(root, '.fake-secrets.json'), 'utf8'))).toEqual({
      [`service\u0000rein\u0000account\u0000anthropic-api-key:${home}`]: KEY,
    });
  });

  it.skipIf(spawnSync('script', ['--version']).status !== 0 && process.env.CI !== 'true')(
    'at a terminal asks for the key and does not echo it',
    async () => {
      // `script` gives the CLI a pseudo-terminal; the test types the key like a person would.
      const cmd = `${JSON.stringify(process.execPath)} ${JSON.stringify(REIN_BIN)} auth set-key`;
      const child = spawn('script', ['-qfec', cmd, '/dev/null'], {
        cwd,
        env: { ...env, TERM: 'dumb' },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let screen = '';
      let typed = false;
      child.stdout.setEncoding('utf8').on('data', (d: string) => {
        screen += d;
        if (!typed && screen.includes('Anthropic API key (hidden): ')) {
          typed = true;
          child.stdin.write(`${KEY}\r`);
        }
      });
      const code = await new Promise<number | null>((ok) => child.on('close', ok));
      expect(code, screen).toBe(0);
      expect(screen).toContain('Stored the API key in');
      expect(screen).not.toContain(KEY);
      expect(await readFile(keyFile(home), 'utf8')).toBe(`${KEY}\n`);
    },
  );

  it('is listed in rein --help', async () => {
    expect((await rein(['--help'], { env, cwd })).stdout).toMatch(/rein auth set-key\|status\|remove/);
  });
});

describe('every run uses the stored key', () => {
  it('rein run without ANTHROPIC_API_KEY sends the stored key, also to a loopback base_url; the environment’s key wins', async () => {
    await pointAtFake();
    const none = await rein(['run', 'hi'], { env, cwd });
    // A loopback server and no key anywhere: it is tried without one (the placeholder).
    expect(none.code, none.stderr).toBe(0);
    expect(keySent(0)).toBe('local');
    expect((await rein(['auth', 'set-key'], { env, cwd, stdin: `${KEY}\n` })).code).toBe(0);
    fake.enqueue(text('with the stored key'));
    const stored = await rein(['run', 'hi'], { env, cwd });
    expect(stored.code, stored.stderr).toBe(0);
    expect(keySent(1)).toBe(KEY);
    fake.enqueue(text('with the env key'));
    const fromEnv = await rein(['run', 'hi'], {
      env: { ...env, ANTHROPIC_API_KEY: 'sk-ant-from-the-environment' },
      cwd,
    });
    expect(fromEnv.code, fromEnv.stderr).toBe(0);
    expect(keySent(2)).toBe('sk-ant-from-the-environment');
  });

  it('without any key (and no local server) a run says to run `rein auth set-key`', async () => {
    const r = await rein(['run', 'hi'], { env, cwd });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/No API key: run `rein auth set-key`/);
  });

  it('a launchd job started with only its plist’s environment (HOME, PATH, REIN_HOME) sends the stored key', async () => {
    await pointAtFake();
    const agentsDir = join(root, 'LaunchAgents');
    const launchctlDir = join(root, 'launchctl');
    await mkdir(launchctlDir, { recursive: true });
    const cliEnv = {
      ...env,
      ANTHROPIC_API_KEY: 'sk-ant-only-in-this-shell',
      REIN_SCHEDULE_BACKEND: 'launchd',
      REIN_LAUNCH_AGENTS_DIR: agentsDir,
      REIN_LAUNCHCTL: FAKE_LAUNCHCTL,
      FAKE_LAUNCHCTL_DIR: launchctlDir,
    };
    const set = await rein(['auth', 'set-key'], { env: cliEnv, cwd, stdin: `${KEY}\n` });
    expect(set.code, set.stderr).toBe(0);
    const made = await rein(['schedule', 'create', '--cron', '0 0 1 1 *', '--prompt', 'yearly report', '--json'], {
      env: cliEnv,
      cwd,
    });
    expect(made.code, made.stderr).toBe(0);
    const id = (JSON.parse(made.stdout) as { id: string }).id;
    // Made long before its last due time, so the job catches that time up when launchd starts it now.
    const storeFile = join(home, 'schedules.json');
    const stored = JSON.parse(await readFile(storeFile, 'utf8'));
    stored.schedules[0].created_at = stored.schedules[0].updated_at = new Date(
      Date.now() - 400 * 86_400_000,
    ).toISOString();
    await writeFile(storeFile, JSON.stringify(stored, null, 2));

    const plist = parsePlist(await readFile(join(agentsDir, `dev.rein.schedule.${id}.plist`), 'utf8')) as {
      ProgramArguments: string[];
      EnvironmentVariables: Record<string, string>;
    };
    expect(plist.EnvironmentVariables.ANTHROPIC_API_KEY).toBeUndefined();
    expect(JSON.stringify(plist)).not.toContain(KEY);
    // launchd gives a user agent HOME (and USER…); everything else is the plist's.
    const jobEnv: Record<string, string> = { HOME: root, ...plist.EnvironmentVariables };
    expect(Object.keys(jobEnv).sort()).toEqual(expect.arrayContaining(['HOME', 'PATH', 'REIN_HOME']));
    expect(jobEnv.REIN_HOME).toBe(resolve(home));

    fake.enqueue(text('report written'));
    const [program, ...args] = plist.ProgramArguments;
    const child = spawn(program!, args, { cwd: '/', env: jobEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    const code = await new Promise<number | null>((ok) => child.on('close', ok));
    expect(code, `${out}\n${err}`).toBe(0);
    expect(fake.requests).toHaveLength(1);
    expect(keySent()).toBe(KEY);
    const show = JSON.parse((await rein(['schedule', 'show', id, '--json'], { env: cliEnv, cwd })).stdout);
    expect(show.last_run).toMatchObject({ status: 'finished' });
  });
});

describe('rein doctor and the key', () => {
  it('says where the key comes from, and warns when it is only in this shell', async () => {
    await pointAtFake();
    const check = async (e: NodeJS.ProcessEnv) => {
      const r = await rein(['doctor', '--json'], { env: e, cwd });
      return (
        JSON.parse(r.stdout) as { checks: { name: string; status: string; message: string; hint?: string }[] }
      ).checks.find((c) => c.name === 'model')!;
    };
    const onlyEnv = await check({ ...env, ANTHROPIC_API_KEY: 'sk-ant-only-in-this-shell' });
    expect(onlyEnv).toMatchObject({
      status: 'warn',
      message: expect.stringMatching(/ANTHROPIC_API_KEY.*no key is stored.*launchd job/),
      hint: expect.stringMatching(/rein auth set-key/),
    });
    expect(JSON.stringify(onlyEnv)).not.toContain('sk-ant-only');
    await rein(['auth', 'set-key'], { env, cwd, stdin: KEY });
    expect(await check(env)).toMatchObject({
      status: 'ok',
      message: expect.stringContaining(`with the key stored in ${keyFile(home)}`),
    });
    expect(await check({ ...env, ANTHROPIC_API_KEY: 'sk-ant-x-0123456789' })).toMatchObject({
      status: 'ok',
      message: expect.stringMatching(/ANTHROPIC_API_KEY \(a key is also stored in .*the environment's wins\)/),
    });
  });
});
