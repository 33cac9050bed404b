/**
 * Session ids: `YYYY-MM-DD-` (local date, so a listing reads naturally) + 12 lowercase hex characters
 * (48 random bits). The id doubles as a file name, so anything else is rejected before it reaches a path.
 */
import { randomUUID } from 'node:crypto';
export { isSessionId } from '../api/patterns.js';

/** The date part for the last minute asked about: local-time lookups are slow, and a day always starts on a minute. */
let datePart: { minute: number; text: string } | undefined;

function localDate(now: Date): string {
  const minute = Math.floor(now.getTime() / 60_000);
  if (datePart?.minute === minute) return datePart.text;
  const yyyy = String(now.getFullYear()).padStart(4, '0');
  const mm = String(now.getMonth() + 1).padStart(2, '0');
  const dd = String(now.getDate()).padStart(2, '0');
  datePart = { minute, text: `${yyyy}-${mm}-${dd}` };
  return datePart.text;
}

export function newSessionId(now: Date = new Date()): string {
  // randomUUID draws from a buffered pool: much cheaper than randomBytes per call when the daemon starts
  // many sessions at once. Its first 12 hex digits are all random (the version digit comes after them).
  const u = randomUUID();
  return `${localDate(now)}-${u.slice(0, 8)}${u.slice(9, 13)}`;
}
