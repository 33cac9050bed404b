/** schedules.json: validated changes under a lock, atomic writes, short stable ids, nothing lost. */
import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ScheduleStore } from '../../../src-main/core/schedule/store.js';

const home = () => mkdtemp(join(tmpdir(), 'rein-schedules-'));

describe('ScheduleStore', () => {
  it('creates schedules with 8-hex ids, in a 0600 file, and reads them back', async () => {
    const h = await home();
    const store = new ScheduleStore(h);
    const a = await store.create({ cron: '0 9 * * 1-5', prompt: 'check CI', agent: 'ops' });
    const b = await store.create({ cron: '@daily', prompt: 'tidy' });
    expect(a.id).toMatch(/^[0-9a-f]{8}$/);
    expect(a.id).not.toBe(b.id);
    expect(b).toMatchObject({ agent: 'default', enabled: true });
    expect((await store.list()).map((s) => s.id)).toEqual([a.id, b.id]);
    expect((await stat(store.file)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(store.file, 'utf8'))).toMatchObject({
      version: 1,
      schedules: [{ id: a.id }, { id: b.id }],
    });
  });

  it('refuses a bad cron, a blank prompt or a bad agent, naming the field, and writes nothing', async () => {
    const h = await home();
    const store = new ScheduleStore(h);
    await expect(store.create({ cron: '61 * * * *', prompt: 'x' })).rejects.toMatchObject({
      code: 'invalid_input',
      details: { field: 'cron' },
    });
    await expect(store.create({ cron: '* * * * *', prompt: '   ' })).rejects.toMatchObject({
      code: 'invalid_input',
      details: { field: 'prompt' },
    });
    await expect(store.create({ cron: '* * * * *', prompt: 'a\0b' })).rejects.toMatchObject({
      details: { field: 'prompt' },
    });
    await expect(store.create({ cron: '* * * * *', prompt: 'x', agent: 'Bad Name' })).rejects.toMatchObject({
      details: { field: 'agent' },
    });
    await expect(stat(store.file)).rejects.toThrow();
  });

  it('updates, enables, records a run and removes; an unknown id is not_found', async () => {
    const h = await home();
    const store = new ScheduleStore(h);
    const s = await store.create({ cron: '*/15 * * * *', prompt: 'poll' });
    expect(await store.update(s.id, { enabled: false, prompt: 'poll less' })).toMatchObject({
      enabled: false,
      prompt: 'poll less',
    });
    await store.recordRun(s.id, { at: new Date().toISOString(), status: 'finished', message: 'ok' });
    expect((await store.get(s.id)).last_run).toMatchObject({ status: 'finished' });
    await expect(store.update('deadbeef', { enabled: true })).rejects.toMatchObject({ code: 'not_found' });
    await expect(store.update(s.id, {})).rejects.toMatchObject({ code: 'invalid_input' });
    await store.remove(s.id);
    expect(await store.list()).toEqual([]);
    // A run that ends after its schedule was removed is dropped quietly.
    await expect(store.recordRun(s.id, { at: new Date().toISOString(), status: 'finished' })).resolves.toBeUndefined();
  });

  it('loses nothing when many writers change it at once', async () => {
    const h = await home();
    const created = await Promise.all(
      Array.from({ length: 20 }, (_, i) => new ScheduleStore(h).create({ cron: '0 * * * *', prompt: `job ${i}` })),
    );
    const listed = await new ScheduleStore(h).list();
    expect(listed.map((s) => s.id).sort()).toEqual(created.map((s) => s.id).sort());
  });

  it('never rewrites a file that does not validate: every change is refused naming the file', async () => {
    const h = await home();
    const store = new ScheduleStore(h);
    await writeFile(store.file, '{"version": 1, "schedules": [{"id": "xyz"}]}\n');
    await expect(store.create({ cron: '@hourly', prompt: 'x' })).rejects.toMatchObject({
      code: 'config_invalid',
      message: expect.stringContaining(store.file),
    });
    expect(await readFile(store.file, 'utf8')).toBe('{"version": 1, "schedules": [{"id": "xyz"}]}\n');
  });
});
