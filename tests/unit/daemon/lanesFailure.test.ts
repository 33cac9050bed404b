/**
 * A run whose driver fails past every catch still ends (issue 26, item 2): its caller gets the error,
 * its lane is free for the next message, and the queue moves on — no rejection is left unhandled (in
 * the daemon that ended the process).
 */
import { describe, expect, it } from 'vitest';
import { Lanes } from '../../../src-main/core/service/runs/lanes.js';
import { RouteRun } from '../../../src-main/core/service/runs/routeRun.js';
import type { RunRequest } from '../../../src-main/core/runtime/runRequest.js';

const request = (text: string) =>
  ({ text, agent: 'default', source: 'http', origin: 'remote', session: { kind: 'route' } }) as unknown as RunRequest;

describe('Lanes with a driver that rejects', () => {
  it('fails the run, frees its lane and starts the queued one', async () => {
    const started: string[] = [];
    const lanes = new Lanes({
      maxConcurrent: 1,
      queued: () => undefined,
      execute: async (run) => {
        started.push(run.request.text);
        if (run.request.text === 'first') throw new Error('cannot write /h/sessions/x.json: no space left on device');
        run.state = 'done';
        lanes.release(run);
        run.settle({
          injected: false,
          route: run.key,
          agent: 'default',
          session_id: 's',
          text: 'ok',
          stop_reason: 'final',
          usage: {} as never,
          iterations: 1,
        });
      },
    });
    const first = new RouteRun('http', request('first'), false);
    const second = new RouteRun('other', request('second'), false);
    lanes.take(first);
    lanes.take(second);
    await expect(first.done).rejects.toThrow('no space left on device');
    expect(first.state).toBe('done');
    expect(lanes.active('http')).toBeUndefined();
    await expect(second.done).resolves.toMatchObject({ stop_reason: 'final' });
    expect(started).toEqual(['first', 'second']);
  });
});
