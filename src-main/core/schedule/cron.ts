/**
 * Cron expressions for the backends. The parser and the fire times live in the contract
 * (core/api/cron.ts) so the page reads an expression as it is typed exactly as the backends will;
 * this module re-exports them and adds what only the Node side needs: a ReinError.
 */
import { parseCron, type ParsedCron } from '../api/cron.js';
import { ReinError } from '../errors.js';

export * from '../api/cron.js';

/** parseCron for callers that want a ReinError (`invalid_input`, `details.field` = `cron`). */
export function parseCronOrThrow(expr: string): ParsedCron {
  const r = parseCron(expr);
  if (!r.ok) throw new ReinError('invalid_input', `cron: ${r.message}`, { field: 'cron', cronField: r.field });
  return r.cron;
}
