import { describe, expect, it } from 'vitest';
import {
  MAX_RELOADS,
  RELOAD_WINDOW_MS,
  troublePage,
  WindowRecovery,
} from '../../../src-main/core/desktop/windowRecovery.js';

const crash = { kind: 'renderer_gone', reason: 'crashed', exitCode: 11 } as const;

describe('window recovery', () => {
  it('reloads a few times within a minute, then explains; a good load or time passing starts over', () => {
    let now = 0;
    const r = new WindowRecovery(() => now);
    for (let i = 0; i < MAX_RELOADS; i++) expect(r.decide(crash).action).toBe('reload');
    const gave = r.decide(crash, '/log');
    expect(gave).toMatchObject({ action: 'explain', title: 'Rein’s window could not be shown' });
    expect(gave.action === 'explain' && gave.message).toContain('the log is /log');
    now += RELOAD_WINDOW_MS;
    expect(r.decide(crash).action).toBe('reload');
    r.loaded();
    for (let i = 0; i < MAX_RELOADS; i++) expect(r.decide(crash).action).toBe('reload');
  });

  it('ignores a replaced load, a sub-frame and a clean exit', () => {
    const r = new WindowRecovery();
    expect(
      r.decide({
        kind: 'load_failed',
        errorCode: -3,
        errorDescription: 'ERR_ABORTED',
        url: 'file:///x',
        mainFrame: true,
      }),
    ).toEqual({ action: 'ignore' });
    expect(
      r.decide({ kind: 'load_failed', errorCode: -105, errorDescription: 'X', url: 'https://x', mainFrame: false }),
    ).toEqual({ action: 'ignore' });
    expect(r.decide({ kind: 'renderer_gone', reason: 'clean-exit', exitCode: 0 })).toEqual({ action: 'ignore' });
  });

  it('the explaining page runs nothing and escapes what it shows', () => {
    const html = troublePage('T', '<img src=x onerror=alert(1)>', false);
    expect(html).not.toContain('<img');
    expect(html).toContain("default-src 'none'");
    expect(html).not.toMatch(/<script/i);
  });
});
