/**
 * What the menu-bar icon shows, as a pure function of what Rein is doing. The order of the checks is
 * the order of what a person must act on first: a tool call waiting for a yes or no blocks a run, a
 * failure needs reading, work in progress needs nothing.
 */

export type TrayStateName = 'idle' | 'working' | 'approval' | 'error';

export interface TrayState {
  name: TrayStateName;
  /** Shown beside the icon (macOS `Tray.setTitle`): the number of waiting approvals, else empty. */
  title: string;
  tooltip: string;
}

const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

export function trayStateFor(pendingApprovals: number, activeRuns: number, lastError: string | undefined): TrayState {
  if (pendingApprovals > 0) {
    return {
      name: 'approval',
      title: String(pendingApprovals),
      tooltip: `Rein: ${plural(pendingApprovals, 'approval', 'approvals')} waiting for you`,
    };
  }
  if (lastError !== undefined) {
    return { name: 'error', title: '', tooltip: `Rein: ${oneLine(lastError, 120)}` };
  }
  if (activeRuns > 0) {
    return { name: 'working', title: '', tooltip: `Rein: working (${plural(activeRuns, 'run', 'runs')})` };
  }
  return { name: 'idle', title: '', tooltip: 'Rein' };
}

/** Tooltips are one short line: the first line of `text`, cut with an ellipsis. */
export function oneLine(text: string, max: number): string {
  const first = text.split(/\r?\n/, 1)[0]!.trim();
  return first.length <= max ? first : `${first.slice(0, max - 1)}…`;
}
