// What a schedule card says: the last run's status in words with its time, the next time, and the
// catch_up setting when it is not the default — against a pinned "now" and time zone.
import { describe, expect, it } from 'vitest';
import {
  catchUpWords,
  cronWords,
  lastRunWords,
  nextWords,
  upcomingWords,
} from '../../../src-renderer/src/views/schedules/scheduleWords.js';

/** Tuesday 1 December 2026, noon in Berlin. */
const OPTS = { now: new Date('2026-12-01T12:00:00+01:00'), timeZone: 'Europe/Berlin' };

describe('lastRunWords', () => {
  it('a finished run: when it ended, and the first line of its answer', () => {
    const run = {
      status: 'finished',
      at: '2026-12-01T09:00:00+01:00',
      started_at: '2026-12-01T09:00:00+01:00',
      ended_at: '2026-12-01T09:58:00+01:00',
      message: 'All green.',
    };
    expect(lastRunWords(run, OPTS)).toBe('finished 2 h ago — All green.');
    expect(lastRunWords({ ...run, message: undefined, ended_at: '2026-12-01T11:57:00+01:00' }, OPTS)).toBe(
      'finished 3 min ago',
    );
  });

  it('a failed run: when, and why', () => {
    const run = {
      status: 'failed',
      at: '2026-11-30T09:00:00+01:00',
      ended_at: '2026-11-30T09:00:20+01:00',
      error: 'No API key',
      message: 'No API key',
    };
    expect(lastRunWords(run, OPTS)).toBe('failed yesterday 09:00: No API key');
  });

  it('a running run says so, with when it started', () => {
    expect(
      lastRunWords(
        { status: 'running', at: '2026-12-01T11:55:00+01:00', started_at: '2026-12-01T11:55:00+01:00', ended_at: null },
        OPTS,
      ),
    ).toBe('running now (started 5 min ago)');
  });

  it('an interrupted run, and a skipped one, say why; a status this page does not know is shown as it is', () => {
    const interrupted = {
      status: 'interrupted',
      at: '2026-11-27T09:00:00+01:00',
      ended_at: null,
      error: 'its process (pid 4242) ended without recording how the run went',
    };
    expect(lastRunWords(interrupted, OPTS)).toBe(
      'interrupted Fri 27 Nov 09:00: its process (pid 4242) ended without recording how the run went',
    );
    expect(
      lastRunWords(
        { status: 'skipped', at: '2026-12-01T11:00:00+01:00', message: 'skipped: every run slot was busy' },
        OPTS,
      ),
    ).toBe('skipped 1 h ago: skipped: every run slot was busy');
    expect(lastRunWords({ status: 'queued', at: '2026-12-01T11:30:00+01:00' }, OPTS)).toBe('queued 30 min ago');
  });
});

describe('nextWords and upcomingWords', () => {
  const next = ['2026-12-02T08:00:00.000Z', '2026-12-03T08:00:00.000Z', '2027-01-04T08:00:00.000Z'];
  it('the first upcoming time, in the local zone, or why there is none', () => {
    expect(nextWords({ enabled: true, next }, OPTS)).toBe('next Wed 2 Dec 09:00');
    expect(nextWords({ enabled: true, next: [] }, OPTS)).toBe('no upcoming time');
    expect(nextWords({ enabled: false, next: [] }, OPTS)).toBe('disabled');
  });

  it('every upcoming time for the tooltip', () => {
    expect(upcomingWords({ next }, OPTS)).toBe('Wed 2 Dec 09:00, Thu 3 Dec 09:00, Mon 4 Jan 2027 09:00');
  });
});

describe('catchUpWords', () => {
  it('says nothing for the default and words the others', () => {
    expect(catchUpWords(undefined)).toBeUndefined();
    expect(catchUpWords('once')).toBeUndefined();
    expect(catchUpWords('skip')).toBe('a missed time is skipped');
    expect(catchUpWords('within 4h')).toBe('a missed time runs only within 4h of it');
    expect(catchUpWords('sometimes')).toBe('catch_up: sometimes');
  });
});

describe('cronWords', () => {
  it('reads a stored expression, and gives nothing for one that does not parse', () => {
    expect(cronWords('0 9 * * 1-5')).toBe('every weekday at 09:00');
    expect(cronWords('0 9 * * FRI-SUN')).toBeUndefined();
  });
});
