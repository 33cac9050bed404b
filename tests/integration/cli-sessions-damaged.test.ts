/**
 * `rein sessions list` and damaged session files (issue 14, finding 9): a file cut short after it was
 * indexed is listed as damaged with its problem, not as the whole session it once was; a damaged file
 * the index never knew is listed too; an entry whose file is gone is left out; the listing never fails.
 */
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { text, type FakeAnthropic } from '../support/fakeAnthropic.js';
import { cliWorld, rein } from '../support/cli.js';

let fake: FakeAnthropic;
let home: string;
let cwd: string;
let env: NodeJS.ProcessEnv;
beforeEach(async () => {
  ({ fake, home, cwd, env } = await cliWorld());
});
afterEach(async () => {
  await fake.close();
});

const list = async (...args: string[]) => {
  const r = await rein(['sessions', 'list', ...args], { env, cwd });
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
};

describe('rein sessions list with damaged files', () => {
  it('marks a truncated file damaged (text and --json), keeps the others whole, and never fails', async () => {
    fake.enqueue(text('first answer'), text('second answer'), text('third answer'));
    for (const prompt of ['plan the release', 'why does the backup fail', 'tidy the downloads']) {
      expect((await rein(['run', prompt], { env, cwd })).code).toBe(0);
    }
    const dir = join(home, 'sessions');
    const before = JSON.parse(await list('--json')) as Array<{ id: string; title: string }>;
    expect(before).toHaveLength(3);
    const byTitle = new Map(before.map((s) => [s.title, s.id]));
    const cut = byTitle.get('why does the backup fail')!;
    const gone = byTitle.get('tidy the downloads')!;
    const whole = await readFile(join(dir, `${cut}.json`), 'utf8');
    await writeFile(join(dir, `${cut}.json`), whole.slice(0, Math.floor(whole.length * 0.6)));
    await rm(join(dir, `${gone}.json`));
    const stray = '2026-01-05-0123456789ab';
    await writeFile(join(dir, `${stray}.json`), '{"version": 1, "id": "2026-01-05-0123456789ab", "title": "half wr');

    const rows = JSON.parse(await list('--json')) as Array<Record<string, any>>;
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(rows).toHaveLength(3);
    expect(byId.has(gone)).toBe(false);
    expect(byId.get(byTitle.get('plan the release')!)).toMatchObject({ title: 'plan the release', messageCount: 2 });
    expect(byId.get(byTitle.get('plan the release')!)!.damaged).toBeUndefined();
    expect(byId.get(cut)).toMatchObject({
      damaged: true,
      title: 'why does the backup fail',
      agent: 'default',
      source: 'cli',
    });
    expect(byId.get(cut)!.problem).toMatch(/not valid JSON/);
    expect(byId.get(cut)!.messageCount).toBeUndefined();
    expect(byId.get(stray)).toMatchObject({ damaged: true, agent: 'default' });

    const textOut = await list();
    const lines = textOut.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines.find((l) => l.startsWith(cut))).toMatch(/DAMAGED: not valid JSON.*\(was: why does the backup fail\)/);
    expect(lines.find((l) => l.startsWith(stray))).toContain('DAMAGED');
    expect(lines.find((l) => l.startsWith(byTitle.get('plan the release')!))).not.toContain('DAMAGED');
    // Nothing was changed on disk, and the files are still refused when opened.
    expect((await readdir(dir)).filter((n) => n.endsWith('.json'))).toHaveLength(3);
    const show = await rein(['sessions', 'show', cut], { env, cwd });
    expect(show.code).toBe(1);
    expect(show.stderr).toMatch(/not valid JSON/);
  });

  it('lists a damaged file of a named agent under that agent', async () => {
    fake.enqueue(text('ok'));
    await mkdir(join(home, 'agents', 'ops'), { recursive: true });
    await writeFile(join(home, 'agents', 'ops', 'AGENT.md'), 'You run ops.\n');
    expect((await rein(['run', '--agent', 'ops', 'check the servers'], { env, cwd })).code).toBe(0);
    const dir = join(home, 'agents', 'ops', 'sessions');
    const [file] = (await readdir(dir)).filter((n) => n.endsWith('.json'));
    // The run only noted its session; the first listing indexes it, and the index keeps its title.
    expect(JSON.parse(await list('--json', '--agent', 'ops'))).toMatchObject([{ title: 'check the servers' }]);
    await writeFile(join(dir, file!), '');
    const rows = JSON.parse(await list('--json', '--agent', 'ops')) as Array<Record<string, any>>;
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ damaged: true, agent: 'ops', title: 'check the servers' });
    expect(JSON.parse(await list('--json', '--agent', 'default'))).toEqual([]);
  });
});
