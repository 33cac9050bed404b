/**
 * `rein doctor`'s look at what launchd will do with each enabled schedule, checked the way launchd
 * runs a job — the plist's ProgramArguments, with only the plist's EnvironmentVariables, from `/`:
 *
 * - `schedule <id> program`: the program exists and starts Rein (the launcher finds a node and Rein's
 *   script; then `… schedule --help`, which only prints, must exit 0);
 * - `schedule <id> job`: launchd has the job loaded (`launchctl print gui/<uid>/<label>`, through the
 *   Launchd interface); a plist launchd refused is never loaded, also not at the next login;
 * - `schedule <id> key`: a model key is reachable from the plist's own environment (the environment
 *   there, else the stored key: secrets/apiKey.ts), or the base URL is a local server;
 * - `schedule <id> last run`: the last run did not fail.
 * And `schedule jobs`: plists of this REIN_HOME without an enabled schedule (they would fire at every
 * login). With the daemon backend there is no job: only the last runs are checked (the daemon's being
 * there is the `schedules` check).
 *
 * Only reads and runs what prints: nothing is changed (`rein schedule sync` is the repair).
 */
import { readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { GlobalConfig } from '../config/schema.js';
import { errorMessage } from '../errors.js';
import { resolveModelAccess } from '../runtime/runtime.js';
import { resolveScheduleProgram, type ScheduleBackendName } from '../schedule/backend.js';
import { createLaunchctl, resolveLaunchAgentsDir, type Launchd } from '../schedule/launchctl.js';
import { probeJobProgram } from '../schedule/jobProbe.js';
import { LAUNCHD_LABEL_PREFIX, launchdLabel, launchdPlistPath } from '../schedule/launchdPlist.js';
import { plistProgram, readJobPlist, type PlistProgram } from '../schedule/resync.js';
import { lastRunView } from '../schedule/lastRunView.js';
import type { Schedule } from '../schedule/store.js';
import type { Check } from './doctor.js';

export interface ScheduleJobChecksOptions {
  home: string;
  env: NodeJS.ProcessEnv;
  config: GlobalConfig;
  backend: ScheduleBackendName;
  schedules: readonly Schedule[];
  /** createLaunchctl({ env }) when absent. */
  launchd?: Launchd;
  /** The `rein` script this process runs (to tell a job made by another Rein). */
  launcher?: string;
  /** Per program run; default 20 s. */
  timeoutMs?: number;
}

const ok = (name: string, message: string): Check => ({ name, status: 'ok', message });
const warn = (name: string, message: string, hint: string): Check => ({ name, status: 'warn', message, hint });
const fail = (name: string, message: string, hint: string): Check => ({ name, status: 'fail', message, hint });

const SYNC =
  '`rein schedule sync` writes the job again for the Rein you run it with (opening the app does the same for the app)';

export async function scheduleJobChecks(o: ScheduleJobChecksOptions): Promise<Check[]> {
  const enabled = o.schedules.filter((s) => s.enabled);
  const out: Check[] = [];
  if (o.backend === 'launchd') {
    const dir = resolveLaunchAgentsDir(o.env);
    let launchd: Launchd | undefined;
    let launchdProblem: string | undefined;
    try {
      launchd = o.launchd ?? createLaunchctl({ env: o.env });
    } catch (e) {
      launchdProblem = errorMessage(e);
    }
    const runs = new Map<string, Promise<Check>>();
    for (const s of enabled) {
      const path = launchdPlistPath(dir, s.id);
      const plist = await readJobPlist(path);
      const name = (what: string) => `schedule ${s.id} ${what}`;
      const program = plist?.args ? plistProgram(plist.args, s.id) : undefined;
      // program
      if (!plist) out.push(fail(name('program'), `no plist at ${path}: launchd has nothing to start`, SYNC));
      else if (!program)
        out.push(
          fail(
            name('program'),
            `${path} is not a plist Rein wrote for this schedule (its ProgramArguments do not end in \`schedule run ${s.id} --from-launchd\`)`,
            SYNC,
          ),
        );
      else {
        const env = plist.env ?? {};
        const key = JSON.stringify([program.prefix, env]);
        if (!runs.has(key)) runs.set(key, programCheck(program, env, o));
        const c = await runs.get(key)!;
        const stale = c.status === 'ok' ? staleProgram(program, o) : undefined;
        out.push(stale ? warn(name('program'), `${c.message}, but ${stale}`, SYNC) : { ...c, name: name('program') });
      }
      // job
      if (!launchd)
        out.push(
          fail(
            name('job'),
            `launchd cannot be asked: ${launchdProblem ?? 'unknown'}`,
            'run rein doctor on the Mac the schedules are on',
          ),
        );
      else {
        try {
          const loaded = await launchd.isLoaded(launchdLabel(s.id));
          out.push(
            loaded
              ? ok(name('job'), `loaded in ${launchd.domain} as ${launchdLabel(s.id)}`)
              : fail(
                  name('job'),
                  `${launchdLabel(s.id)} is not loaded in ${launchd.domain}: launchd will not start it`,
                  `${SYNC}; when launchctl refuses it, turn on "Allow in the Background" for Rein in System Settings → General → Login Items`,
                ),
          );
        } catch (e) {
          out.push(
            fail(
              name('job'),
              `launchctl print failed: ${errorMessage(e)}`,
              'check that launchctl works (launchctl print gui/$(id -u))',
            ),
          );
        }
      }
      // key
      if (plist) out.push(await keyCheck(name('key'), plist.env ?? {}, o));
      out.push(lastRunCheck(name('last run'), s));
    }
    out.push(...(await orphanChecks(dir, o)));
  } else {
    for (const s of enabled) out.push(lastRunCheck(`schedule ${s.id} last run`, s));
  }
  return out;
}

/** The job's program run as launchd would (its environment only, from /), with arguments that only print. */
async function programCheck(p: PlistProgram, env: Record<string, string>, o: ScheduleJobChecksOptions): Promise<Check> {
  const r = await probeJobProgram(p, env, o.timeoutMs);
  return r.ok
    ? ok('program', `${r.uses} starts Rein with the job's own environment`)
    : fail('program', r.problem, SYNC);
}

/** A job made by another Rein of the same kind (another checkout, the app before a move), which still works. */
function staleProgram(p: PlistProgram, o: ScheduleJobChecksOptions): string | undefined {
  let now;
  try {
    now = resolveScheduleProgram(o.env, o.home, process, o.launcher);
  } catch {
    return undefined;
  }
  if (now.kind !== p.kind || now.kind === 'given') return undefined;
  // The node may differ (the launcher finds one); Rein's script or the app is what matters.
  const same =
    p.kind === 'launcher'
      ? p.prefix[0] === now.prefix[0] && p.prefix[2] === now.prefix[2]
      : p.prefix.join('\0') === now.prefix.join('\0');
  return same
    ? undefined
    : `the job starts ${p.kind === 'launcher' ? p.prefix[2] : p.prefix[0]}, not this Rein (${now.kind === 'launcher' ? now.prefix[2] : now.prefix[0]})`;
}

async function keyCheck(name: string, env: Record<string, string>, o: ScheduleJobChecksOptions): Promise<Check> {
  try {
    const access = await resolveModelAccess({ ...env }, o.config, o.home);
    const from = (access as { keySource?: string }).keySource;
    const where =
      access.apiKey === 'local'
        ? `no key needed (${access.baseURL}, a server on this machine)`
        : from && from !== 'env'
          ? `the key stored in the ${from === 'keychain' ? 'Keychain' : from === 'libsecret' ? 'Secret Service' : 'key file'}`
          : "the key in the plist's environment";
    return ok(name, `the job finds ${where}`);
  } catch (e) {
    return fail(
      name,
      `the job's own environment finds no model key: ${errorMessage(e)}`,
      "store the key where every run finds it: `rein auth set-key` (reads it on stdin); a shell's `export` never reaches launchd",
    );
  }
}

function lastRunCheck(name: string, s: Schedule): Check {
  if (!s.last_run) return ok(name, 'no run yet');
  // As programs read it: a "started" whose process is gone was interrupted (killed, or the Mac shut down).
  const r = lastRunView(s.last_run);
  const again = `rein schedule logs ${s.id} shows the run; fix what it says, then rein schedule run ${s.id} tries it now`;
  if (r.status === 'failed') return fail(name, `failed at ${r.at}${r.error ? `: ${r.error}` : ''}`, again);
  if (r.status === 'interrupted') return warn(name, `interrupted at ${r.at}: ${r.error ?? 'it did not finish'}`, again);
  return ok(name, `${r.status} at ${r.at}`);
}

/** Plists of this REIN_HOME whose schedule is gone or disabled: they still fire at every login. */
async function orphanChecks(dir: string, o: ScheduleJobChecksOptions): Promise<Check[]> {
  const enabled = new Set(o.schedules.filter((s) => s.enabled).map((s) => s.id));
  const home = resolve(o.home);
  const orphans: string[] = [];
  for (const file of (await readdir(dir).catch(() => [] as string[])).sort()) {
    if (!file.startsWith(LAUNCHD_LABEL_PREFIX) || !file.endsWith('.plist')) continue;
    const id = file.slice(LAUNCHD_LABEL_PREFIX.length, -'.plist'.length);
    if (enabled.has(id)) continue;
    const plist = await readJobPlist(join(dir, file));
    if (plist?.env?.REIN_HOME && resolve(plist.env.REIN_HOME) === home) orphans.push(id);
  }
  if (orphans.length === 0) return [];
  return [
    fail(
      'schedule jobs',
      `launchd jobs without an enabled schedule: ${orphans.map((id) => `${LAUNCHD_LABEL_PREFIX}${id}`).join(', ')} (they start at every login and at their times, and do nothing)`,
      '`rein schedule sync` boots them out and deletes their plists',
    ),
  ];
}
