/**
 * The words and buttons of the native approval dialog, and what each button means. Deny is both the
 * default button and the cancel action (Esc, closing the dialog, the dialog withdrawn because the
 * question was answered elsewhere): a dialog that goes away without a choice never allows anything.
 */
import type { ApprovalDecisionKind } from '../api/events.js';
import type { ApprovalRequest } from '../permissions/types.js';

export const APPROVAL_BUTTONS = ['Allow once', 'Allow in this conversation', 'Always allow', 'Deny'] as const;
const DECISIONS: readonly ApprovalDecisionKind[] = ['allow', 'allow_session', 'always_allow', 'deny'];
export const DENY_BUTTON = 3;

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

export function approvalDialogContent(req: ApprovalRequest): ApprovalDialogContent {
  const who = req.agent === 'default' ? 'Rein' : `Agent "${req.agent}"`;
  const lines = [
    req.summary,
    '',
    `Risk: ${req.risk}. ${req.risk_explanation}`.trim(),
    `Why it asks: ${req.reason}`,
  ];
  const args = argumentSummary(req.input);
  if (args && args !== req.summary) lines.push('', `Arguments: ${args}`);
  if (req.source !== 'desktop') lines.push('', `Run started from: ${req.source}`);
  return {
    type: req.risk === 'high' ? 'warning' : 'question',
    title: 'Rein needs your approval',
    message: `${who} wants to use ${req.tool}`,
    detail: lines.join('\n'),
    buttons: [...APPROVAL_BUTTONS],
    defaultId: DENY_BUTTON,
    cancelId: DENY_BUTTON,
    noLink: true,
  };
}

/** The decision behind a button index; anything unexpected is a deny. */
export function decisionForButton(index: number): ApprovalDecisionKind {
  return DECISIONS[index] ?? 'deny';
}

/** The tool's input as one line of JSON, cut to a readable length; undefined when there is none. */
export function argumentSummary(input: unknown): string | undefined {
  if (input === undefined) return undefined;
  let text: string;
  try {
    text = JSON.stringify(input) ?? String(input);
  } catch {
    text = String(input);
  }
  text = text.replace(/\s+/g, ' ');
  return text.length <= ARGUMENTS_MAX ? text : `${text.slice(0, ARGUMENTS_MAX - 1)}…`;
}
