/**
 * The native approval dialog races the in-app card (the daemon's desk) through the real broker: the
 * first answer wins and the other side closes. The message box is the mock's, which closes when its
 * `signal` aborts exactly as Electron's does.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('electron', () => import('../../support/electronMock.js'));

import { BrowserWindow, dialog, resetElectronMock } from '../../support/electronMock.js';
import { ApprovalDesk } from '../../../src-main/core/service/approvalDesk.js';
import type { NotificationContent } from '../../../src-main/core/desktop/notifications.js';
import { ApprovalBroker } from '../../../src-main/core/permissions/approvalBroker.js';
import type { ApprovalRequest } from '../../../src-main/core/permissions/types.js';
import { createDialogApprovalFace } from '../../../src-main/electron/approvalFace.js';

let seq = 0;
function request(over: Partial<ApprovalRequest> = {}): ApprovalRequest {
  seq += 1;
  return {
    request_id: `apr_${seq.toString(16).padStart(16, '0')}`,
    session_id: 's1',
    agent: 'default',
    route: 'desktop',
    source: 'desktop',
    origin: 'attended',
    asked_at: '2026-01-01T00:00:00.000Z',
    tool: 'bash',
    summary: 'rm -rf build',
    input: { command: 'rm -rf build' },
    reason: 'deletes files',
    layer: 'mode',
    risk: 'high',
    risk_explanation: 'removes a folder',
    ...over,
  };
}

function setup(opts: { focused?: boolean; dialogs?: boolean; timeoutMs?: number } = {}) {
  const state = { focused: opts.focused ?? false, dialogs: opts.dialogs ?? true };
  const notes: NotificationContent[] = [];
  const face = createDialogApprovalFace({
    chatFocused: () => state.focused,
    dialogsEnabled: () => state.dialogs,
    notify: (c) => notes.push(c),
  });
  const desk = new ApprovalDesk();
  const broker = new ApprovalBroker([desk.face(), face], { timeoutMs: opts.timeoutMs ?? 60_000 });
  /** What the run does: register the question on the desk, then ask the broker. */
  const ask = (req: ApprovalRequest, signal?: AbortSignal) => {
    desk.open({ type: 'approval_request', seq: 1, at: req.asked_at, ...req });
    return broker.request(req, signal);
  };
  return { state, notes, desk, ask };
}

/** Lets queued promise callbacks run (the face opens its box after a microtask or two). */
const settle = () => new Promise((r) => setImmediate(r));

beforeEach(() => resetElectronMock());

describe('native approval dialog', () => {
  it('asks with a box attached to its own host window when the chat window is not in front', async () => {
    const { ask } = setup();
    const answer = ask(request());
    await settle();
    const [box] = dialog.open();
    expect(box).toBeDefined();
    expect(box!.window).toBe(BrowserWindow.created.at(-1));
    expect(box!.options).toMatchObject({
      message: 'Rein wants to use bash',
      buttons: ['Allow once', 'Allow in this conversation', 'Always allow', 'Deny'],
      defaultId: 3,
      cancelId: 3,
    });
    expect(box!.options.signal).toBeInstanceOf(AbortSignal);
    box!.answer(2);
    await expect(answer).resolves.toEqual({ decision: 'always_allow', by: 'desktop' });
    expect(BrowserWindow.created.at(-1)!.destroyed).toBe(true);
  });

  it('closes the box when the in-app card answers first, and that answer wins', async () => {
    const { ask, desk } = setup();
    const req = request();
    const answer = ask(req);
    await settle();
    const [box] = dialog.open();
    expect(desk.answer(req.request_id, 'allow', 'desktop-card')).toEqual(req);
    await expect(answer).resolves.toEqual({ decision: 'allow', by: 'desktop-card' });
    await settle();
    expect(box!.settled).toBe(true);
    expect(box!.options.signal!.aborted).toBe(true);
    expect(dialog.open()).toEqual([]);
    expect(BrowserWindow.created.at(-1)!.destroyed).toBe(true);
  });

  it('when the box answers first, the card is withdrawn and a late answer from it is refused', async () => {
    const { ask, desk } = setup();
    const req = request();
    const answer = ask(req);
    await settle();
    dialog.open()[0]!.answer(0);
    await expect(answer).resolves.toEqual({ decision: 'allow', by: 'desktop' });
    expect(desk.list()).toEqual([]);
    expect(() => desk.answer(req.request_id, 'deny', 'desktop-card')).toThrow(
      expect.objectContaining({ code: 'approval_already_decided' }),
    );
  });

  it('Esc or closing the box is a deny', async () => {
    const { ask } = setup();
    const answer = ask(request());
    await settle();
    const box = dialog.open()[0]!;
    box.answer(box.options.cancelId!);
    await expect(answer).resolves.toEqual({ decision: 'deny', by: 'desktop' });
  });

  it('closes the box when nobody answers in time: a timeout deny, not the person’s', async () => {
    const { ask } = setup({ timeoutMs: 50 });
    const answer = ask(request());
    await settle();
    const box = dialog.open()[0]!;
    await expect(answer).resolves.toEqual({ decision: 'deny', by: 'timeout' });
    expect(box.settled).toBe(true);
  });

  it('closes the box when the run is cancelled', async () => {
    const { ask } = setup();
    const run = new AbortController();
    const answer = ask(request(), run.signal);
    await settle();
    const box = dialog.open()[0]!;
    run.abort();
    await expect(answer).resolves.toEqual({ decision: 'deny', by: 'cancelled' });
    expect(box.settled).toBe(true);
  });

  it('shows no box while the chat window is in front: the card asks', async () => {
    const { ask, desk, notes } = setup({ focused: true });
    const req = request();
    const answer = ask(req);
    await settle();
    expect(dialog.showMessageBox).not.toHaveBeenCalled();
    expect(notes).toEqual([]);
    desk.answer(req.request_id, 'deny', 'desktop-card');
    await expect(answer).resolves.toEqual({ decision: 'deny', by: 'desktop-card' });
  });

  it('with dialogs turned off, announces the question as a notification instead', async () => {
    const { ask, desk, notes } = setup({ dialogs: false });
    const req = request({ agent: 'ops' });
    const answer = ask(req);
    await settle();
    expect(dialog.showMessageBox).not.toHaveBeenCalled();
    expect(notes).toEqual([{ title: 'ops asks to use bash (high risk)', body: 'rm -rf build', opens: 'approvals' }]);
    desk.answer(req.request_id, 'allow', 'desktop-card');
    await expect(answer).resolves.toMatchObject({ decision: 'allow' });
  });

  it('shows one box at a time: the next question is announced and waits its turn', async () => {
    const { ask, notes } = setup();
    const first = ask(request({ tool: 'bash' }));
    const second = ask(request({ tool: 'file_write', summary: 'write notes.md' }));
    await settle();
    expect(dialog.open()).toHaveLength(1);
    expect(notes.map((n) => n.title)).toEqual(['Rein asks to use file_write (high risk)']);
    dialog.open()[0]!.answer(3);
    await expect(first).resolves.toEqual({ decision: 'deny', by: 'desktop' });
    await settle();
    const next = dialog.open();
    expect(next).toHaveLength(1);
    expect(next[0]!.options.message).toBe('Rein wants to use file_write');
    next[0]!.answer(0);
    await expect(second).resolves.toEqual({ decision: 'allow', by: 'desktop' });
  });

  it('skips a queued question that was answered elsewhere before its turn', async () => {
    const { ask, desk } = setup();
    const first = ask(request());
    const req2 = request({ tool: 'file_write' });
    const second = ask(req2);
    await settle();
    desk.answer(req2.request_id, 'allow', 'desktop-card');
    await expect(second).resolves.toMatchObject({ decision: 'allow', by: 'desktop-card' });
    dialog.open()[0]!.answer(0);
    await first;
    await settle();
    expect(dialog.boxes).toHaveLength(1);
  });
});
