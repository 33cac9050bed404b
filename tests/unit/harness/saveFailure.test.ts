/**
 * A save that fails (a full disk) is a value of the run, never a rejection out of the loop (issue 26,
 * item 2): the run stops at its next step with one `error` naming the session and the file, ends with
 * `session_end` `error`, and runs no tool after the save that could not be kept.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionStore } from '../../../src-main/core/sessions/store.js';
import type { SessionFile } from '../../../src-main/core/sessions/types.js';
import { describeWriteError } from '../../../src-main/core/util/diskErrors.js';
import { startFakeAnthropic, text, toolCall, tools, type FakeAnthropic } from '../../support/fakeAnthropic.js';
import { runWith, testTool } from '../../support/harness.js';

/**
 * A store whose saves keep nothing and fail from the `failFrom`-th on, as a full disk fails them (the
 * error the real store gives: util/diskErrors.ts, checked on a real full disk in diskErrors.test.ts).
 */
class FillingStore extends SessionStore {
  saves = 0;
  constructor(
    readonly failFrom: number,
    readonly errno: 'ENOSPC' | 'EIO' = 'ENOSPC',
  ) {
    super('/nonexistent-rein-test/sessions');
  }
  override async save(s: SessionFile): Promise<void> {
    if (++this.saves < this.failFrom) return;
    const file = join(this.dir, `${s.id}.json`);
    const cause = Object.assign(new Error(`${this.errno}: failed, write`), { code: this.errno });
    throw describeWriteError(cause, file, `save session ${s.id} to ${file}`);
  }
}

let fake: FakeAnthropic;
beforeEach(async () => {
  fake = await startFakeAnthropic();
});
afterEach(async () => {
  await fake.close();
});

describe('a save that fails', () => {
  it('at the first save: the run ends with one disk_full error naming the file, calls no model and does not throw', async () => {
    const store = new FillingStore(1);
    fake.enqueue(text('never asked'));
    const { events, outcome, session } = await runWith(fake, { store });
    const file = join(store.dir, `${session.id}.json`);
    const errors = events.filter((e) => e.type === 'error');
    expect(errors).toEqual([
      expect.objectContaining({
        code: 'disk_full',
        message: `cannot save session ${session.id} to ${file}: no space left on device`,
      }),
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'session_end', stop_reason: 'error' });
    expect(outcome).toMatchObject({ stopReason: 'error', error: { code: 'disk_full' } });
    expect(fake.requests).toHaveLength(0);
  });

  it('after a tool batch: no further tool runs and no further model call', async () => {
    const tool = testTool('reader', { readOnly: true });
    // Saves: the prompt (kept), then after the first batch (fails).
    const store = new FillingStore(2);
    fake.enqueue(tools([toolCall('reader', { arg: 'a' })]), tools([toolCall('reader', { arg: 'b' })]), text('done'));
    const { events, outcome } = await runWith(fake, { store, tools: [tool] });
    expect(tool.calls).toHaveLength(1);
    expect(fake.requests).toHaveLength(1);
    expect(events.filter((e) => e.type === 'error').map((e) => (e as { code?: string }).code)).toEqual(['disk_full']);
    expect(outcome.stopReason).toBe('error');
  });

  it('only at the end: the answer is in the events, but the run is no `final`', async () => {
    const store = new FillingStore(2, 'EIO');
    fake.enqueue(text('The answer.'));
    const { events, outcome } = await runWith(fake, { store });
    expect(outcome).toMatchObject({ stopReason: 'error', text: 'The answer.', error: { code: 'io_error' } });
    expect(events.filter((e) => e.type === 'error')).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ type: 'session_end', stop_reason: 'error', text: 'The answer.' });
  });
});
