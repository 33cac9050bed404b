/**
 * Permission-raising changes asked for over the daemon's API (an agent in bypassPermissions, more
 * allowed commands, a new MCP server…), waiting for a person to confirm them in the desktop app.
 * Filled from GET /changes when the page starts and kept current by `change_request` and
 * `change_response` events; a change leaves the queue once it is applied, rejected or expired.
 */
import type { ApiEvent, PendingChange } from '../../../src-main/core/api/index.js';

export interface ChangesState {
  pending: PendingChange[];
}

export type ChangesAction =
  | { type: 'event'; event: ApiEvent }
  | { type: 'loaded'; changes: PendingChange[] }
  | { type: 'answered'; change_id: string };

export const emptyChanges = (): ChangesState => ({ pending: [] });

export function changesReducer(state: ChangesState, action: ChangesAction): ChangesState {
  switch (action.type) {
    case 'loaded':
      return { pending: action.changes };
    case 'answered':
      return { pending: state.pending.filter((c) => c.change_id !== action.change_id) };
    case 'event': {
      const e = action.event;
      if (e.type === 'change_request') {
        if (state.pending.some((c) => c.change_id === e.change.change_id)) return state;
        return { pending: [...state.pending, e.change] };
      }
      if (e.type === 'change_response') return { pending: state.pending.filter((c) => c.change_id !== e.change_id) };
      return state;
    }
  }
}
