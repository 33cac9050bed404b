/** Each call's audit line: started while the batch goes on, never a rejection (a failure is a warning). */
import { errorMessage, isReinError } from '../../errors.js';
import type { ExecutorDeps } from './types.js';

export interface AuditFacts {
  tool: string;
  input: unknown;
  decision: 'allow' | 'deny';
  layer: string;
  by: string | null;
  durationMs: number | null;
  ok?: boolean;
}
export type Auditor = (e: AuditFacts) => void;

/**
 * The batch's auditor and the lines it started. All of them are on disk before the batch's outcome is
 * returned: the loop saves the results right after, so no saved call lacks its line.
 */
export function auditTrail(deps: ExecutorDeps): { audit: Auditor; written: () => Promise<void> } {
  const lines: Promise<void>[] = [];
  return {
    audit: (e) => {
      const line = record(deps, e);
      if (line) lines.push(line);
    },
    written: async () => void (await Promise.all(lines)),
  };
}

/** Starts the call's audit line; the promise never rejects (a failure is a warning). */
function record(deps: ExecutorDeps, e: AuditFacts): Promise<void> | undefined {
  if (!deps.audit) return undefined;
  const line = deps.audit
    .append({
      session: deps.ctx.sessionId,
      agent: deps.agent,
      source: deps.source,
      tool: e.tool,
      args: e.input,
      decision: e.decision,
      layer: e.layer,
      approved_by: e.decision === 'allow' ? e.by : null,
      duration_ms: e.durationMs,
      ...(e.ok !== undefined ? { ok: e.ok } : {}),
    })
    // AuditLog's own errors already say "could not write the audit log FILE: …".
    .catch(
      (err: unknown) =>
        void deps.warn?.(isReinError(err) ? err.message : `could not write the audit log: ${errorMessage(err)}`),
    );
  // Also awaited by the run's end, should the batch be abandoned before it returns.
  deps.background?.push(line);
  return line;
}
