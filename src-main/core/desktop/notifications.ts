/**
 * Which activity deserves a system notification, and its words. A person looking at the chat window
 * sees everything there already, so runs only notify while it is not in front; alerts from heartbeats
 * and schedules always do, since nobody asked for them in the chat. Approval requests of the person's
 * own runs (attended: from this window) are presented by the approval face (dialog or notification);
 * those of remote and unattended runs have no dialog, so they notify here while the window is not in
 * front (an unattended run that may ask, `unattended_approvals: ask`, waits for an answer). A change that
 * raises permissions, asked for over the daemon's API, always notifies: it waits for this person.
 */
import { visibleText } from '../api/visibleText.js';
import { originTraits } from '../permissions/runPolicy.js';
import type { ActivityNote } from './activity.js';
import { oneLine } from './trayState.js';

export interface NotificationContent {
  title: string;
  body: string;
  /** The window view a click on the notification opens. */
  opens: 'chat' | 'approvals' | 'sessions' | 'settings';
}

const BODY_MAX = 180;

export function notificationFor(
  note: ActivityNote,
  context: { chatFocused: boolean },
): NotificationContent | undefined {
  switch (note.kind) {
    case 'run_ended': {
      if (context.chatFocused || note.stop_reason === 'cancelled') return undefined;
      const who = agentLabel(note.agent, note.source);
      if (note.stop_reason === 'error') {
        return {
          title: `${who} failed`,
          body: oneLine(note.error ?? 'the run stopped with an error', BODY_MAX),
          opens: 'sessions',
        };
      }
      const stopped = note.stop_reason === 'final' ? 'finished' : `stopped (${note.stop_reason.replace('_', ' ')})`;
      return { title: `${who} ${stopped}`, body: oneLine(note.text || 'No answer text.', BODY_MAX), opens: 'sessions' };
    }
    case 'heartbeat_alert':
      return { title: `${note.agent}: heartbeat alert`, body: oneLine(note.text, BODY_MAX), opens: 'sessions' };
    case 'schedule_ended':
      if (note.ok && !note.message) return undefined;
      return {
        title: `${note.agent}: schedule ${note.schedule_id} ${note.ok ? 'finished' : 'failed'}`,
        body: oneLine(note.message ?? '', BODY_MAX),
        opens: 'sessions',
      };
    case 'approval_requested':
      if (!originTraits(note.origin).notifiesApprovals || context.chatFocused) return undefined;
      return approvalNotification(note);
    case 'change_requested':
      // Always: nothing is changed until the person answers the card, and the chat does not show it.
      return {
        title: 'Rein: confirm a permission change',
        body: oneLine(`${visibleText(note.summary)} — asked for over Rein's API`, BODY_MAX),
        opens: 'approvals',
      };
    case 'watch_unreadable':
      // Always: nobody sees a watcher that sees nothing. The reason names the folder; the hint says what to do.
      return {
        title: visibleText(`${note.agent === 'default' ? 'Rein' : note.agent}: cannot watch ${note.path}`),
        body: oneLine(visibleText(note.hint ? `${note.reason}. ${note.hint}` : note.reason), 2 * BODY_MAX),
        opens: 'settings',
      };
  }
}

/** "Rein" for the default agent chatting; otherwise the agent and where its run came from. */
function agentLabel(agent: string, source: string): string {
  const name = agent === 'default' ? 'Rein' : agent;
  return ['desktop', 'http', 'web', 'unknown'].includes(source) ? name : `${name} (${source})`;
}

/**
 * Words for an approval that could not be put in front of the person as a dialog. The summary is
 * escaped (visibleText) before it is cut to one line: a newline or a bidi override in a command must
 * not leave only a harmless-looking start in the notice.
 */
export function approvalNotification(req: {
  tool: string;
  summary: string;
  agent: string;
  risk: string;
}): NotificationContent {
  const who = req.agent === 'default' ? 'Rein' : req.agent;
  return {
    title: visibleText(`${who} asks to use ${req.tool} (${req.risk} risk)`),
    body: oneLine(visibleText(req.summary), BODY_MAX),
    opens: 'approvals',
  };
}
