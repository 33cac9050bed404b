/**
 * The words and buttons of the native approval dialog, and what each button means. Deny is both the
 * default button and the cancel action (Esc, closing the dialog, the dialog withdrawn because the
 * question was answered elsewhere): a dialog that goes away without a choice never allows anything.
 *
 * The keys, chosen on purpose and said in the dialog (`keysLine`): no key ever allows. The box appears
 * over whatever the person was typing into, so a Return meant for another app must not answer it with
 * a yes.
 * - macOS (NSAlert): Electron binds Esc to the cancel button by taking that button's key equivalent;
 *   with Deny as both default and cancel, Deny answers Esc and no button answers Return. That is kept:
 *   giving Return to an Allow button would let one stray keystroke allow a call. Allowing takes a click
 *   (or Tab to the button and Space, with keyboard navigation on).
 * - Linux (GTK) and Windows: the default button, Deny, has the focus: Return presses the focused button
 *   (Deny until the person moves to another with Tab), Esc denies.
 * Every text from the call goes through visibleText: a CR or a bidi override in a command is shown, so
 * the dialog cannot be made to display a command other than the one that runs.
 */
import type { ApprovalDecisionKind } from '../api/events.js';
import { visibleText } from '../api/visibleText.js';
import type { ApprovalRequest } from '../permissions/types.js';

export const APPROVAL_BUTTONS = ['Allow once', 'Allow in this conversation', 'Always allow', 'Deny'] as const;
const DECISIONS: readonly ApprovalDecisionKind[] = ['allow', 'allow_session', 'always_allow', 'deny'];
export const DENY_BUTTON = 3;
/** A question that may grant nothing beyond the call (`grant: null`: a protected or persistence place). */
const ONCE_BUTTONS = ['Allow once', 'Deny'] as const;
const ONCE_DECISIONS: readonly ApprovalDecisionKind[] = ['allow', 'deny'];

/** The decisions the dialog's buttons stand for, in button order. */
const decisionsFor = (req: Pick<ApprovalRequest, 'grant'> | undefined): readonly ApprovalDecisionKind[] =>
  req?.grant === null ? ONCE_DECISIONS : DECISIONS;

export interface ApprovalDialogContent {
  type: 'question' | 'warning';
  title: string;
  message: string;
  detail: string;
  buttons: string[];
  defaultId: number;
  cancelId: number;
  noLink: true;
}

const ARGUMENTS_MAX = 600;

/** The dialog's last line: what the keys do on this platform (see above). */
export function keysLine(platform: NodeJS.Platform): string {
  return platform === 'darwin'
    ? 'Esc denies. No key allows: click the answer you mean.'
    : 'Return presses the highlighted button (Deny, until you Tab to another); Esc denies.';
}

export function approvalDialogContent(
  req: ApprovalRequest,
  platform: NodeJS.Platform = process.platform,
): ApprovalDialogContent {
  const who = req.agent === 'default' ? 'Rein' : `Agent "${req.agent}"`;
  const summary = visibleText(req.summary, { keepNewlines: true });
  const lines = [
    summary,
    '',
    visibleText(`Risk: ${req.risk}. ${req.risk_explanation}`.trim()),
    visibleText(`Why it asks: ${req.reason}`),
  ];
  const args = argumentSummary(req.input);
  if (args && args !== summary) lines.push('', `Arguments: ${args}`);
  if (req.source !== 'desktop') lines.push('', visibleText(`Run started from: ${req.source}`));
  // What the wider buttons cover is the engine's word; when nothing wider may be granted they are not offered.
  if (req.grant)
    lines.push('', visibleText(`"Allow in this conversation" and "Always allow" cover ${req.grant.covers}.`));
  else if (req.grant === null)
    lines.push('', 'Only this call can be allowed: it changes a place that decides what later runs may do.');
  lines.push('', keysLine(platform));
  const once = req.grant === null;
  const deny = once ? ONCE_BUTTONS.length - 1 : DENY_BUTTON;
  return {
    type: req.risk === 'high' ? 'warning' : 'question',
    title: 'Rein needs your approval',
    message: visibleText(`${who} wants to use ${req.tool}`),
    detail: lines.join('\n'),
    buttons: once ? [...ONCE_BUTTONS] : [...APPROVAL_BUTTONS],
    defaultId: deny,
    cancelId: deny,
    noLink: true,
  };
}

/** The decision behind a button index of the dialog for `req`; anything unexpected is a deny. */
export function decisionForButton(index: number, req?: Pick<ApprovalRequest, 'grant'>): ApprovalDecisionKind {
  return decisionsFor(req)[index] ?? 'deny';
}

/**
 * The tool's input as one line of JSON, cut to a readable length; undefined when there is none.
 * JSON escapes C0 controls but not C1, bidi or zero-width characters: visibleText does.
 */
export function argumentSummary(input: unknown): string | undefined {
  if (input === undefined) return undefined;
  let text: string;
  try {
    text = JSON.stringify(input) ?? String(input);
  } catch {
    text = String(input);
  }
  // Escaped first: `\s` also matches U+FEFF and U+2028, which must show, not become spaces.
  text = visibleText(text).replace(/\s+/g, ' ');
  return text.length <= ARGUMENTS_MAX ? text : `${text.slice(0, ARGUMENTS_MAX - 1)}…`;
}
