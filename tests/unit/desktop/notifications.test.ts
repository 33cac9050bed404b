import { describe, expect, it } from 'vitest';
import { approvalNotification, notificationFor } from '../../../src-main/core/desktop/notifications.js';

const ended = (over: object = {}) => ({
  kind: 'run_ended' as const,
  session_id: 's',
  agent: 'default',
  source: 'desktop',
  stop_reason: 'final' as const,
  text: 'The report is ready.',
  ...over,
});

describe('notificationFor', () => {
  it('says nothing about a run while the chat window is in front', () => {
    expect(notificationFor(ended(), { chatFocused: true })).toBeUndefined();
  });

  it('announces a finished run with its answer when the window is not in front, naming a background source', () => {
    expect(notificationFor(ended(), { chatFocused: false })).toEqual({
      title: 'Rein finished',
      body: 'The report is ready.',
      opens: 'sessions',
    });
    expect(notificationFor(ended({ agent: 'ops', source: 'schedule' }), { chatFocused: false })?.title).toBe(
      'ops (schedule) finished',
    );
  });

  it('announces a failed run with its error, and stays quiet about a cancelled one', () => {
    expect(notificationFor(ended({ stop_reason: 'error', error: 'no API key' }), { chatFocused: false })).toMatchObject(
      { title: 'Rein failed', body: 'no API key' },
    );
    expect(notificationFor(ended({ stop_reason: 'cancelled' }), { chatFocused: false })).toBeUndefined();
  });

  it('always announces heartbeat alerts and failed schedules', () => {
    expect(
      notificationFor({ kind: 'heartbeat_alert', agent: 'ops', text: 'disk 95% full' }, { chatFocused: true }),
    ).toMatchObject({ body: 'disk 95% full' });
    expect(
      notificationFor(
        { kind: 'schedule_ended', agent: 'ops', schedule_id: 'daily', ok: false, message: 'timeout' },
        { chatFocused: true },
      )?.title,
    ).toBe('ops: schedule daily failed');
    expect(
      notificationFor({ kind: 'schedule_ended', agent: 'ops', schedule_id: 'daily', ok: true }, { chatFocused: false }),
    ).toBeUndefined();
  });

  it('leaves the approvals of runs from this window to the approval face', () => {
    const asked = {
      kind: 'approval_requested',
      request_id: 'a',
      agent: 'default',
      tool: 'bash',
      summary: 's',
      risk: 'low',
      origin: 'attended',
      source: 'desktop',
    } as const;
    expect(notificationFor(asked, { chatFocused: false })).toBeUndefined();
  });

  it('announces the approvals of remote and unattended runs, which have no dialog, unless the window is in front', () => {
    const asked = {
      kind: 'approval_requested',
      request_id: 'a',
      agent: 'ops',
      tool: 'bash',
      summary: '$ make deploy',
      risk: 'high',
      origin: 'unattended',
      source: 'heartbeat',
    } as const;
    expect(notificationFor(asked, { chatFocused: false })).toEqual({
      title: 'ops asks to use bash (high risk)',
      body: '$ make deploy',
      opens: 'approvals',
    });
    expect(notificationFor({ ...asked, origin: 'remote', source: 'slack' }, { chatFocused: false })?.opens).toBe(
      'approvals',
    );
    expect(notificationFor(asked, { chatFocused: true })).toBeUndefined();
  });

  it('always announces a permission change that waits for the person, even with the window in front', () => {
    const note = {
      kind: 'change_requested',
      change_id: 'chg_0123456789abcdef',
      agent: 'evil',
      summary: 'Create agent "evil": mode default → bypassPermissions',
    } as const;
    expect(notificationFor(note, { chatFocused: true })).toEqual({
      title: 'Rein: confirm a permission change',
      body: 'Create agent "evil": mode default → bypassPermissions — asked for over Rein\'s API',
      opens: 'approvals',
    });
  });

  it('cuts long answers to one line', () => {
    const body = notificationFor(ended({ text: `${'word '.repeat(100)}\nsecond line` }), { chatFocused: false })!.body;
    expect(body.length).toBeLessThanOrEqual(180);
    expect(body).not.toContain('\n');
  });
});

describe('approvalNotification', () => {
  it('names the agent, the tool, the risk and what the call does, and opens the approvals view', () => {
    expect(approvalNotification({ tool: 'bash', summary: 'rm -rf build', agent: 'ops', risk: 'high' })).toEqual({
      title: 'ops asks to use bash (high risk)',
      body: 'rm -rf build',
      opens: 'approvals',
    });
  });

  it('makes control characters and line breaks of the command visible before cutting it to one line', () => {
    const n = approvalNotification({
      tool: 'bash',
      summary: 'echo ok\nrm -rf ~\u202e\x1b[2K',
      agent: 'ops',
      risk: 'high',
    });
    expect(n.body).toBe('echo ok\\nrm -rf ~\\u202e\\x1b[2K');
  });
});
