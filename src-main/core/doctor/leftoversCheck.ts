/**
 * What interrupted writes left in REIN_HOME: every Rein file is written to `.<name>.<pid>.<n>.tmp` and
 * renamed over `<name>` (util/atomicWrite.ts), so a writer killed in between leaves the temp file. The
 * doctor changes nothing; it says where they are:
 *  - a session's, not yet settled: `rein sessions list` (or the next run of that session) recovers a
 *    newer complete one and keeps the others in leftovers/ (sessions/leftovers.ts);
 *  - another file's (config, memory, schedules…): the file itself is whole, the temp may hold the
 *    change that was being written; a person compares and removes it;
 *  - what the sessions' leftovers/ folders keep, which Rein never deletes.
 * Temp files of live processes are writes in progress and are not counted.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { listAgentSessionFiles } from '../search/sessionFiles.js';
import { isSessionId } from '../api/patterns.js';
import { isProcessAlive } from '../util/processAlive.js';
import type { Check } from './doctor.js';

/** sessions/leftovers.ts's LEFTOVERS_DIR (the doctor reads the folders; it does not use the session store). */
const LEFTOVERS_DIR = 'leftovers';
const TEMP_NAME = /^\.(.+)\.(\d+)\.[0-9a-z]+\.tmp$/;
/** REIN_HOME, agents/, agents/NAME/, and agents/NAME/{memory,sessions}/: where Rein's files are. */
const MAX_DEPTH = 3;
const SHOWN = 3;

interface Found {
  temp: string;
  target: string;
}

export async function leftoversChecks(home: string): Promise<Check[]> {
  const sessionDirs = new Set((await listAgentSessionFiles(home).catch(() => [])).map((f) => f.dir));
  const sessionTemps: Found[] = [];
  const otherTemps: Found[] = [];
  const kept: string[] = [];
  const walk = async (dir: string, depth: number): Promise<void> => {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return; // absent or unreadable: other checks say so
    }
    const isSessions = sessionDirs.has(dir);
    for (const e of entries) {
      const path = join(dir, e.name);
      if (e.isDirectory()) {
        if (isSessions && e.name === LEFTOVERS_DIR)
          kept.push(...(await readdir(path).catch(() => [] as string[])).map((n) => join(path, n)));
        // A session's side folder holds its spilled tool results: thousands of them, none written in two steps.
        else if (depth < MAX_DEPTH && !(isSessions && isSessionId(e.name))) await walk(path, depth + 1);
        continue;
      }
      const m = TEMP_NAME.exec(e.name);
      if (!m) continue;
      const pid = Number(m[2]);
      if (pid === process.pid || isProcessAlive(pid)) continue;
      const found = { temp: path, target: join(dir, m[1]!) };
      if (isSessions && m[1]!.endsWith('.json') && isSessionId(m[1]!.slice(0, -5))) sessionTemps.push(found);
      else otherTemps.push(found);
    }
  };
  await walk(home, 0);

  const checks: Check[] = [];
  if (sessionTemps.length > 0) {
    checks.push({
      name: 'leftovers',
      status: 'warn',
      message: `${sessionTemps.length} interrupted save(s) of sessions not settled yet: ${list(sessionTemps.map((f) => f.temp))}`,
      hint: "`rein sessions list` recovers each newer complete version and keeps the others in the sessions folder's leftovers/",
    });
  }
  if (otherTemps.length > 0) {
    checks.push({
      name: 'leftovers',
      status: 'warn',
      message: `${otherTemps.length} write(s) interrupted by a process that ended: ${list(otherTemps.map((f) => `${f.temp} (of ${f.target})`))}`,
      hint: 'each file itself is whole (a write replaces it in one step); the temp file may hold the change that was being written: compare, keep what you want, then remove the temp file',
    });
  }
  if (kept.length > 0) {
    checks.push({
      name: 'leftovers',
      status: 'warn',
      message: `${kept.length} file(s) kept in leftovers/: ${list(kept)}`,
      hint: 'versions a recovery replaced and copies that were cut short or older; Rein never deletes them: look, then remove them',
    });
  }
  if (checks.length === 0)
    checks.push({ name: 'leftovers', status: 'ok', message: 'nothing left by writes that were interrupted' });
  return checks;
}

function list(items: readonly string[]): string {
  const shown = items.slice(0, SHOWN).join(', ');
  return items.length > SHOWN ? `${shown} and ${items.length - SHOWN} more` : shown;
}
