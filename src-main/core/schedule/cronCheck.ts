/**
 * The store's and the CLI's view of a cron expression: accepted as classic cron reads it (cron.ts), or
 * refused with a ReinError naming the field `cron` and what is wrong with which part.
 */
import { fieldError } from '../errors.js';
import { isDue, nextRuns, parseCron, type ParsedCron } from './cron.js';

export interface CheckedCron {
  /** The expression as stored (whitespace normalised). */
  normalized: string;
  parsed: ParsedCron;
  /** The next `count` fire times strictly after `from`. */
  next(from: Date, count: number): Date[];
  /** Whether the minute containing `at` is a fire time. */
  isDue(at: Date): boolean;
}

export function checkCron(expr: string): CheckedCron {
  const parsed = parseCron(expr);
  if (!parsed.ok) throw fieldError('invalid_input', `cron: ${parsed.message}`, 'cron');
  const cron = parsed.cron;
  return {
    normalized: cron.normalized,
    parsed: cron,
    next: (from, count) => nextRuns(cron, from, count),
    isDue: (at) => isDue(cron, at),
  };
}
