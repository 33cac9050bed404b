/**
 * The per-session state of context management, in one JSON-serialisable object: the deferred-tool
 * working set, the housekeeping decisions and the compaction failure counters. It belongs in the
 * session file next to the checkpoint, so a later turn (a new run) keeps the same decisions and the
 * provider's cache keeps matching. Reading is forgiving: a part that does not validate starts fresh,
 * which costs at most one cache miss, never a failed run.
 */
import { z } from 'zod';
import { CompactionStateShape, newCompactionState, type CompactionState } from './compaction.js';
import { DeferredToolStateShape, newDeferredToolState, type DeferredToolState } from '../tools/deferredTools.js';
import { HouseKeepStateShape, newHouseKeepState, type HouseKeepState } from './houseKeep.js';

/**
 * "Allow in this conversation" answers (harness/executor.ts): `call:<tool and input>` for bash (the
 * exact command line), `tool:<name>` for any other tool. Kept with the session, so a later run of the
 * same conversation does not ask again; a new conversation starts with none.
 */
export interface SessionApprovals {
  grants: string[];
}
export const SessionApprovalsShape = z.strictObject({ grants: z.array(z.string().max(20_000)).max(500) });

export interface ContextState {
  deferred: DeferredToolState;
  housekeeping: HouseKeepState;
  compaction: CompactionState;
  approvals: SessionApprovals;
}

export const newContextState = (): ContextState => ({
  deferred: newDeferredToolState(),
  housekeeping: newHouseKeepState(),
  compaction: newCompactionState(),
  approvals: { grants: [] },
});

/** The state stored in a session (any unusable part replaced by a fresh one), and what was replaced. */
export function readContextState(raw: unknown): { state: ContextState; reset: string[] } {
  const fresh = newContextState();
  if (raw === undefined || raw === null) return { state: fresh, reset: [] };
  const obj = (typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  const reset: string[] = [];
  const part = <T>(key: keyof ContextState, shape: z.ZodType<T>, dflt: T): T => {
    if (obj[key] === undefined) return dflt;
    const parsed = shape.safeParse(obj[key]);
    if (parsed.success) return parsed.data;
    reset.push(
      `${key}: ${parsed.error.issues[0]?.path.join('.') || 'value'}: ${parsed.error.issues[0]?.message ?? 'invalid'}`,
    );
    return dflt;
  };
  if (typeof raw !== 'object') reset.push('context state: not an object');
  return {
    state: {
      deferred: part('deferred', DeferredToolStateShape, fresh.deferred),
      housekeeping: part('housekeeping', HouseKeepStateShape, fresh.housekeeping),
      compaction: part('compaction', CompactionStateShape, fresh.compaction),
      approvals: part('approvals', SessionApprovalsShape, fresh.approvals),
    },
    reset,
  };
}
