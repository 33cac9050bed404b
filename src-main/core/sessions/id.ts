/**
 * Session ids: `YYYY-MM-DD-` (local date, so a listing reads naturally) + 12 lowercase hex characters
 * (6 random bytes). The id doubles as a file name, so anything else is rejected before it reaches a path.
 */
import { randomBytes } from 'node:crypto';

const SESSION_ID_RE = /^\d{4}-\d{2}-\d{2}-[0-9a-f]{12}$/;

export function newSessionId(now: Date = new Date()): string {
  const yyyy = String(now.getFullYear()).padStart(4, '0');
  const mm = String(now.getMonth() + 1).padStart(2, '0');
  const dd = String(now.getDate()).padStart(2, '0');
  return `${yyyy}-${mm}-${dd}-${randomBytes(6).toString('hex')}`;
}

export function isSessionId(s: unknown): s is string {
  return typeof s === 'string' && SESSION_ID_RE.test(s);
}
