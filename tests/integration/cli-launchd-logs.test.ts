/**
 * launchd's own logs of a job (`launchd.out.log`, `launchd.err.log`) only ever grow: the run launchd
 * starts (`rein schedule run ID --from-launchd`) rotates what the previous runs wrote, even when it then
 * skips. Run as launchd would: the built CLI, its stdout and stderr appended to those very files.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, REIN_BIN, tempHome } from '../support/cli.js';

const MIB = 1024 * 1024;

/** The CLI with stdout and stderr opened for appending on `out` and `err`, as launchd opens StandardOutPath. */
function asLaunchd(
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
  out: string,
  err: string,
): Promise<number | null> {
  const o = openSync(out, 'a');
  const e = openSync(err, 'a');
  const child = spawn(process.execPath, [REIN_BIN, ...args], { cwd, env, stdio: ['ignore', o, e] });
  closeSync(o);
  closeSync(e);
  return new Promise((ok) => child.on('close', (code) => ok(code)));
}

describe('launchd.*.log rotation', () => {
  it('a run from launchd moves a log over 1 MiB to .1 (replacing an older one); its own output goes on there, the next start makes a fresh file', async () => {
    const { home, cwd } = await tempHome();
    const id = '1a2b3c4d';
    const at = '2026-01-05T09:00:00.000Z';
    const dir = join(home, 'schedules', id);
    await mkdir(dir, { recursive: true });
    await writeFile(
      join(home, 'schedules.json'),
      JSON.stringify({
        version: 1,
        schedules: [
          { id, agent: 'default', cron: '0 9 * * *', prompt: 'p', enabled: false, created_at: at, updated_at: at },
        ],
      }),
    );
    const out = join(dir, 'launchd.out.log');
    const err = join(dir, 'launchd.err.log');
    await writeFile(out, `${'old run output\n'.repeat(MIB / 15 + 10)}`);
    await writeFile(`${out}.1`, 'the oldest\n');
    await writeFile(err, 'a small stderr\n');
    const env = cleanEnv({ REIN_HOME: home, HOME: cwd, REIN_SCHEDULE_BACKEND: 'daemon' });

    expect(await asLaunchd(['schedule', 'run', id, '--from-launchd'], env, cwd, out, err)).toBe(0);
    // The old output is in .1 (the oldest is gone), followed by what this run printed through launchd's descriptor.
    const rotated = await readFile(`${out}.1`, 'utf8');
    expect(rotated.startsWith('old run output\n')).toBe(true);
    expect(rotated).not.toContain('the oldest');
    expect(rotated.trimEnd().endsWith('skipped: the schedule is disabled')).toBe(true);
    expect(existsSync(out)).toBe(false);
    // Under the limit: left alone.
    expect(await readFile(err, 'utf8')).toBe('a small stderr\n');
    expect(existsSync(`${err}.1`)).toBe(false);
    // The skip has its run log.
    expect(await readdir(join(dir, 'logs'))).toEqual([expect.stringMatching(/^\d{4}-\d{2}-\d{2}-\d{6}\.log$/)]);

    // launchd's next start opens a fresh file; small, it is not rotated again.
    expect(await asLaunchd(['schedule', 'run', id, '--from-launchd'], env, cwd, out, err)).toBe(0);
    expect((await readFile(out, 'utf8')).trim()).toBe('skipped: the schedule is disabled');
    expect((await readFile(`${out}.1`, 'utf8')).startsWith('old run output\n')).toBe(true);
  });
});
