/**
 * Approvals as native dialogs: an ApprovalFace beside the daemon's desk, so the broker's
 * first-answer-wins race decides between this dialog, the in-app card and any remote client. When the
 * chat window is in front, the card is enough and no dialog appears. Otherwise a message box asks
 * (Allow once / Always allow / Deny; Deny is default and cancel); when the question is answered
 * elsewhere, times out or the run is cancelled, the broker aborts our signal and the box closes.
 *
 * Electron can close a message box only through its `signal` option, and on macOS only when the box
 * has a parent window (a parentless box runs modally and blocks the main process, and with it the
 * daemon). So each box gets a small frameless host window of its own: the chat window stays usable,
 * and the card in it can still win the race. One box at a time; a question that must wait for its
 * turn is announced by a notification.
 */
import { dialog, type BrowserWindow } from 'electron';
import { approvalDialogContent, decisionForButton } from '../core/desktop/approvalDialog.js';
import { approvalNotification, type NotificationContent } from '../core/desktop/notifications.js';
import type { ApprovalAnswer, ApprovalFace, ApprovalRequest } from '../core/permissions/types.js';
import { createSecureWindow } from './window.js';

export const DIALOG_FACE_NAME = 'desktop';

export interface DialogFaceOptions {
  /** Is the chat window in front of the person? Then its card asks, not a dialog. */
  chatFocused(): boolean;
  /** The `approval_dialogs` setting. */
  dialogsEnabled(): boolean;
  notify(content: NotificationContent): void;
  /** The window a box is attached to; destroyed when the box closes. */
  openHost?(): BrowserWindow;
}

class Withdrawn extends Error {
  constructor() {
    super('approval withdrawn: answered elsewhere, timed out or cancelled');
  }
}

/** A face that never answers by itself: it only lets go when the broker withdraws the question. */
function untilWithdrawn(signal: AbortSignal): Promise<ApprovalAnswer> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(new Withdrawn());
    else signal.addEventListener('abort', () => reject(new Withdrawn()), { once: true });
  });
}

export function openDialogHost(): BrowserWindow {
  const host = createSecureWindow({
    title: 'Rein approval',
    width: 480,
    height: 120,
    center: true,
    show: false,
    frame: false,
    transparent: true,
    hasShadow: false,
    resizable: false,
    movable: false,
    minimizable: false,
    maximizable: false,
    fullscreenable: false,
    skipTaskbar: true,
    alwaysOnTop: true,
  });
  // The question shows on the Space the person is on, over a fullscreen app, instead of switching Spaces.
  if (process.platform === 'darwin')
    host.setVisibleOnAllWorkspaces(true, { visibleOnFullScreen: true, skipTransformProcessType: true });
  host.show();
  return host;
}

export function createDialogApprovalFace(opts: DialogFaceOptions): ApprovalFace {
  const openHost = opts.openHost ?? openDialogHost;
  let queue: Promise<unknown> = Promise.resolve();
  let waiting = 0;

  const showBox = async (req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> => {
    if (signal.aborted) throw new Withdrawn();
    const host = openHost();
    try {
      const { response } = await dialog.showMessageBox(host, { ...approvalDialogContent(req), signal });
      // An aborted box resolves as if cancelled: that is not the person saying no.
      if (signal.aborted) throw new Withdrawn();
      return { decision: decisionForButton(response, req), by: DIALOG_FACE_NAME };
    } finally {
      if (!host.isDestroyed()) host.destroy();
    }
  };

  return {
    name: DIALOG_FACE_NAME,
    ask(req, signal) {
      if (opts.chatFocused()) return untilWithdrawn(signal);
      // A message box cannot hold a form (an MCP server asking for input): the window's card fills it.
      if (req.form) {
        opts.notify(approvalNotification(req));
        return untilWithdrawn(signal);
      }
      if (!opts.dialogsEnabled()) {
        opts.notify(approvalNotification(req));
        return untilWithdrawn(signal);
      }
      if (waiting > 0) opts.notify(approvalNotification(req));
      waiting++;
      const turn = queue.then(() => showBox(req, signal));
      const done = () => {
        waiting--;
      };
      queue = turn.then(done, done);
      return turn;
    },
  };
}
