/** Schedules over the daemon's HTTP API: the endpoints the app's schedules view uses, and their events. */
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeAnthropic, text, type FakeAnthropic } from '../../support/fakeAnthropic.js';
import { useLeakCheck } from '../../support/leaks.js';
import { eventually, http, sse, startTestDaemon, type TestDaemon } from './support.js';

useLeakCheck();

let fake: FakeAnthropic;
let d: TestDaemon;

afterEach(async () => {
  await d?.daemon.dispose();
  await fake?.close();
});

describe('schedules over HTTP', () => {
  it('creates, lists, changes, runs (with its events and log) and removes a schedule', async () => {
    fake = await startFakeAnthropic();
    d = await startTestDaemon(fake, {
      daemon: {
        env: {
          ANTHROPIC_BASE_URL: fake.url,
          ANTHROPIC_API_KEY: 'k',
          REIN_RETRY_BASE_MS: '1',
          REIN_SCHEDULE_BACKEND: 'daemon',
        },
      },
    });
    const created = await http(d, 'POST', '/schedules', {
      body: { cron: '0 9 * * 1-5', prompt: 'summarise CI failures' },
    });
    expect(created.status).toBe(201);
    const id = created.json.id as string;
    expect(created.json).toMatchObject({ cron: '0 9 * * 1-5', agent: 'default', enabled: true, backend: 'daemon' });
    expect(created.json.next).toHaveLength(3);

    const bad = await http(d, 'POST', '/schedules', { body: { cron: '0 9 * * MON-SUN', prompt: 'x' } });
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ code: 'invalid_input', field: 'cron' });

    expect((await http(d, 'GET', '/schedules')).json).toMatchObject({ backend: 'daemon', schedules: [{ id }] });
    expect((await http(d, 'PUT', `/schedules/${id}`, { body: { enabled: false } })).json).toMatchObject({
      enabled: false,
      next: [],
    });
    expect((await http(d, 'GET', `/schedules/${id}`)).json.enabled).toBe(false);

    fake.enqueue(text('Two jobs failed: lint and e2e.'));
    const events = await sse(d, 'GET', '/events');
    const run = await http(d, 'POST', `/schedules/${id}/run`);
    expect(run.status).toBe(202);
    const finished = await events.next(
      (f) => f.event === 'schedule_run' && f.data.status === 'finished',
      'schedule_run finished',
    );
    expect(finished.data).toMatchObject({
      schedule_id: id,
      agent: 'default',
      message: 'Two jobs failed: lint and e2e.',
    });
    const start = events.frames.find((f) => f.event === 'session_start')!;
    expect(start.data).toMatchObject({ source: 'schedule', origin: 'unattended' });
    events.close();

    const logs = (await http(d, 'GET', `/schedules/${id}/logs`)).json.logs;
    expect(logs).toHaveLength(1);
    const log = await http(d, 'GET', `/schedules/${id}/logs/${logs[0].name}`);
    expect(log.json.text).toContain('Two jobs failed');
    expect((await http(d, 'GET', `/schedules/${id}/log`)).json.name).toBe(logs[0].name);
    await eventually(async () => (await http(d, 'GET', `/schedules/${id}`)).json.last_run?.status === 'finished');

    fake.enqueue(text('again'));
    const waited = await http(d, 'POST', `/schedules/${id}/run`, { body: { wait: true } });
    expect(waited.json).toMatchObject({ status: 'finished', text: 'again', trigger: 'hand' });

    expect((await http(d, 'DELETE', `/schedules/${id}`)).json).toEqual({ removed: true, id });
    expect((await http(d, 'GET', `/schedules/${id}`)).status).toBe(404);
  });

  it('takes catch_up on create and change, answers it (once by default), and names the field when it is wrong', async () => {
    fake = await startFakeAnthropic();
    d = await startTestDaemon(fake, {
      daemon: { env: { ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: 'k', REIN_SCHEDULE_BACKEND: 'daemon' } },
    });
    const plain = await http(d, 'POST', '/schedules', { body: { cron: '@daily', prompt: 'x' } });
    expect(plain.json.catch_up).toBe('once');
    const created = await http(d, 'POST', '/schedules', {
      body: { cron: '@daily', prompt: 'report', catch_up: 'within 2h' },
    });
    expect(created.status).toBe(201);
    expect(created.json.catch_up).toBe('within 2h');
    const id = created.json.id as string;
    expect((await http(d, 'PUT', `/schedules/${id}`, { body: { catch_up: 'skip' } })).json.catch_up).toBe('skip');
    const bad = await http(d, 'PUT', `/schedules/${id}`, { body: { catch_up: 'sometimes' } });
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ code: 'invalid_input', field: 'catch_up' });
    expect((await http(d, 'GET', `/schedules/${id}`)).json.catch_up).toBe('skip');
  });
});
