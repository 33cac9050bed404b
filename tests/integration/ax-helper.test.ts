// The helper as a process: it listens on a 0600 socket in a 0700 folder and answers only our uid, the
// stdio fallback speaks the same protocol, a crash fails the calls in flight at once with a clear
// HELPER_EXITED, and the next call starts a new helper. Refs survive the restart (the helper keeps no ref
// table: the client sends what the ref was).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AxDriver } from '../../src-main/core/ax/axDriver.js';
import { isAxError } from '../../src-main/core/ax/axError.js';
import { RefTable } from '../../src-main/core/ax/refs.js';
import {
  desktopParts,
  inCi,
  skipReason,
  startDesktop,
  type Desktop,
  type FixtureApp,
} from '../fixtures/ax/desktopSession.js';
import { useLeakCheck } from '../support/leaks.js';

const missing = desktopParts();

describe.runIf(missing.length > 0 && inCi)('the accessibility helper process', () => {
  it('needs the desktop test packages under CI', () => {
    throw new Error(`the accessibility tests need ${missing.join(', ')} under CI=true (.ci/run installs them)`);
  });
});

const cmdline = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');

describe.skipIf(missing.length > 0)(
  missing.length ? `the accessibility helper process (${skipReason(missing)})` : 'the accessibility helper process',
  () => {
    useLeakCheck();
    let desktop: Desktop;
    let app: FixtureApp;

    beforeAll(async () => {
      desktop = await startDesktop();
      app = await desktop.startFixture();
      const c = desktop.client();
      await desktop.waitForApp(c, app.pid);
      await c.disposeAsync();
    }, 60_000);

    afterAll(async () => {
      await desktop?.close();
    });

    it('listens on a private socket and refuses another user', async () => {
      const client = desktop.client();
      try {
        const hello = await client.start();
        expect(hello).toMatchObject({ protocol: 1, helper: { platform: 'linux', name: 'ax_server-linux' } });
        const helperPid = hello.helper.pid;
        const args = cmdline(helperPid);
        const socket = args[args.indexOf('--socket') + 1]!;
        expect(statSync(socket).mode & 0o777).toBe(0o600);
        expect(statSync(dirname(socket)).mode & 0o777).toBe(0o700);
        expect(args).toContain('--parent-pid');
        // Another uid cannot talk to it (the folder keeps others out; the helper checks SO_PEERCRED too).
        if (process.getuid?.() === 0 && existsSync('/usr/bin/setpriv')) {
          const probe = spawnSync(
            '/usr/bin/setpriv',
            [
              '--reuid=65534',
              '--regid=65534',
              '--clear-groups',
              '/usr/bin/python3',
              '-c',
              `import socket,sys\ns=socket.socket(socket.AF_UNIX)\ntry:\n s.connect(${JSON.stringify(socket)}); s.sendall(b'{"jsonrpc":"2.0","id":1,"method":"ping"}\\n'); s.settimeout(2); print(s.recv(100))\nexcept Exception as e: print('refused', type(e).__name__)`,
            ],
            { encoding: 'utf8', timeout: 10_000 },
          );
          expect(probe.stdout).toMatch(/^refused|^b''/);
        }
        expect((await client.call('ping', {})).ok).toBe(true);
      } finally {
        await client.disposeAsync();
      }
    });

    it('speaks the same protocol over stdio', async () => {
      const { AXClient } = await import('../../src-main/core/ax/axClient.js');
      const client = new AXClient({ idleMs: 0 }, { env: desktop.env, platform: 'linux', transport: 'stdio' });
      try {
        const hello = await client.start();
        expect(cmdline(hello.helper.pid)).toContain('--stdio');
        const { apps } = await client.call('list_apps', {});
        expect(apps.map((a) => a.pid)).toContain(app.pid);
      } finally {
        await client.disposeAsync();
      }
    });

    it('fails the calls in flight when the helper crashes, restarts on the next call, and old refs still work', async () => {
      const client = desktop.client();
      try {
        const driver = new AxDriver(client, new RefTable());
        const view = await driver.snapshot({ app: String(app.pid) });
        const count = view.elements.find((e) => e.name === 'Count')!.ref;
        const first = (await client.start()).helper.pid;
        const exits: string[] = [];
        client.onDidExit((why) => exits.push(why));
        // A long wait is in flight when the helper dies.
        const waiting = client.call('wait_for', {
          pid: app.pid,
          condition: 'exists',
          query: { name: 'never appears' },
          timeout_ms: 20_000,
        });
        await new Promise((r) => setTimeout(r, 200));
        process.kill(first, 'SIGKILL');
        // Not the wait's own TIMEOUT 20 s later: the helper's exit ends it.
        const err = await waiting.catch((e: unknown) => e);
        expect(isAxError(err, 'HELPER_EXITED'), String(err)).toBe(true);
        expect((err as Error).message).toMatch(/ax_server stopped while wait_for was pending/);
        expect(client.running).toBe(false);
        await expect.poll(() => exits.length).toBe(1);
        // Lazily restarted by the next call; the ref from before the crash still acts.
        const out = await driver.act('click', { ref: count });
        expect(out.actedOn).toMatchObject({ name: 'Count', resolved_by: 'identity' });
        expect(client.hello!.helper.pid).not.toBe(first);
        expect(client.starts).toBe(2);
        expect((await app.state()).count).toBe(1);
      } finally {
        await client.disposeAsync();
      }
    });

    it('ends with the process that owns it: stopping the client leaves no helper behind', async () => {
      const client = desktop.client();
      const pid = (await client.start()).helper.pid;
      await client.disposeAsync();
      expect(existsSync(`/proc/${pid}`) && !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ')).toBe(false);
    });
  },
);
