/** `rein schedule show ID`: the schedule, its next five fire times and its last run, as docs/schedules.md says. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, rein, tempHome } from '../support/cli.js';
import { startFakeAnthropic, type FakeAnthropic } from '../support/fakeAnthropic.js';

let fake: FakeAnthropic;
let env: NodeJS.ProcessEnv;
let cwd: string;

beforeEach(async () => {
  fake = await startFakeAnthropic();
  const t = await tempHome();
  cwd = t.cwd;
  // The daemon's clock runs these schedules (no launchd job is written); times print in UTC.
  env = cleanEnv({
    REIN_HOME: t.home,
    ANTHROPIC_BASE_URL: fake.url,
    ANTHROPIC_API_KEY: 'test-key',
    REIN_SCHEDULE_BACKEND: 'daemon',
    TZ: 'UTC',
  });
});
afterEach(async () => {
  await fake.close();
});

const run = (args: string[]) => rein(['schedule', ...args], { env, cwd });

describe('rein schedule show', () => {
  it('prints the next five fire times, the whole prompt and the last run; --json has the same five in `next`', async () => {
    const created = JSON.parse(
      (
        await run([
          'create',
          '--cron',
          '0 9 * * 1-5',
          '--prompt',
          'Check CI and summarise the failures, with links to each failing job',
          '--json',
        ])
      ).stdout,
    ) as { id: string };
    const r = await run(['show', created.id]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(new RegExp(`^${created.id} {2}0 9 \\* \\* 1-5 +default +next `));
    expect(lines[1]).toBe('  prompt: Check CI and summarise the failures, with links to each failing job');
    expect(lines[2]).toBe('  next 5 runs:');
    const times = lines.slice(3, 8);
    expect(times).toHaveLength(5);
    for (const t of times) expect(t).toMatch(/^ {4}(Mon|Tue|Wed|Thu|Fri), \d\d\/\d\d\/\d{4}, 09:00$/);
    expect(new Set(times).size).toBe(5);
    expect(lines[8]).toBe('  last run: never');

    const view = JSON.parse((await run(['show', created.id, '--json'])).stdout) as { next: string[] };
    expect(view.next).toHaveLength(5);
    expect(view.next.map((at) => new Date(at).getUTCHours())).toEqual([9, 9, 9, 9, 9]);
    // The text's times are the JSON's.
    expect(times.map((t) => t.trim().slice(5, 15))).toEqual(
      view.next.map((at) =>
        new Date(at).toLocaleDateString('en-GB', {
          timeZone: 'UTC',
          day: '2-digit',
          month: '2-digit',
          year: 'numeric',
        }),
      ),
    );
  });

  it('a disabled schedule says it has no times while disabled and how to enable it', async () => {
    const { id } = JSON.parse((await run(['create', '--cron', '@daily', '--prompt', 'tidy up', '--json'])).stdout) as {
      id: string;
    };
    expect((await run(['disable', id])).code).toBe(0);
    const r = await run(['show', id]);
    expect(r.stdout).toContain('  next runs: none while disabled (rein schedule enable ID)');
    expect(JSON.parse((await run(['show', id, '--json'])).stdout).next).toEqual([]);
  });
});
