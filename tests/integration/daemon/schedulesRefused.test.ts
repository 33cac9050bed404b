/**
 * The daemon's (and so the app's) schedule API with a launchctl that refuses the bootstrap, as macOS
 * does with "Allow in the Background" off: the same clear error as the CLI, no plist, the store as it was.
 */
import { chmod, mkdir, mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeAnthropic, type FakeAnthropic } from '../../support/fakeAnthropic.js';
import { useLeakCheck } from '../../support/leaks.js';
import { http, startTestDaemon, type TestDaemon } from './support.js';

useLeakCheck();

const FAKE = join(import.meta.dirname, '..', '..', 'fixtures', 'schedule', 'fake-launchctl.mjs');

let fake: FakeAnthropic;
let d: TestDaemon;

afterEach(async () => {
  await d?.daemon.dispose();
  await fake?.close();
});

describe('schedules over HTTP when launchctl refuses', () => {
  it('POST and PUT answer 503 with launchctl’s message; nothing is stored or left in LaunchAgents', async () => {
    fake = await startFakeAnthropic();
    const root = await mkdtemp(join(tmpdir(), 'rein-refused-'));
    const agents = join(root, 'LaunchAgents');
    const state = join(root, 'launchctl');
    await mkdir(state);
    const wrapper = join(root, 'launchctl-bin');
    await writeFile(wrapper, `#!/bin/sh\nexec "${process.execPath}" "${FAKE}" "$@"\n`);
    await chmod(wrapper, 0o755);
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: root,
      ANTHROPIC_BASE_URL: fake.url,
      ANTHROPIC_API_KEY: 'k',
      REIN_SCHEDULE_BACKEND: 'launchd',
      REIN_LAUNCHCTL: wrapper,
      REIN_LAUNCH_AGENTS_DIR: agents,
      FAKE_LAUNCHCTL_DIR: state,
      FAKE_LAUNCHCTL_LINGER: '0',
    };
    d = await startTestDaemon(fake, { daemon: { env } });
    // One made while launchctl still accepts…
    const made = await http(d, 'POST', '/schedules', { body: { cron: '@daily', prompt: 'check CI' } });
    expect(made.status).toBe(201);
    // …then background items are turned off.
    env.FAKE_LAUNCHCTL_FAIL = 'bootstrap';
    const refused = await http(d, 'POST', '/schedules', { body: { cron: '@hourly', prompt: 'poll' } });
    expect(refused.status).toBe(503);
    expect(refused.text).toContain('Bootstrap failed: 5: Input/output error');
    expect(refused.text).toContain('Allow in the Background');
    const changed = await http(d, 'PUT', `/schedules/${made.json.id}`, { body: { cron: '@hourly' } });
    expect(changed.status).toBe(503);
    const list = (await http(d, 'GET', '/schedules')).json;
    expect(list.schedules).toHaveLength(1);
    expect(list.schedules[0]).toMatchObject({ id: made.json.id, cron: '@daily', enabled: true });
    expect((await readdir(agents)).filter((n) => n.endsWith('.plist'))).toEqual([]);
  });
});
