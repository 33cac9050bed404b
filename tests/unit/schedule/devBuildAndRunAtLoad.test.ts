// Two first-launch findings in the scheduled jobs:
// - a schedule made from a development build (`npm run dev`, `npm start`: Electron's binary running the
//   project folder) recorded `[Electron, --headless, …]` without the app folder, and every fire ended in
//   "Unable to find Electron app"; it records `[Electron, <app folder>, --headless, …]` now, and resync
//   rewrites the old form;
// - every job had RunAtLoad, so each login started a full Electron process per schedule; only schedules
//   that catch up a missed time (catch_up once / within) keep it.
import { mkdtemp, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { devAppPath, resolveScheduleProgram } from '../../../src-main/core/schedule/backend.js';
import { catchUpNeedsLoadRun } from '../../../src-main/core/schedule/catchUp.js';
import {
  buildLaunchdPlist,
  launchdProgramArguments,
  parsePlist,
} from '../../../src-main/core/schedule/launchdPlist.js';
import { plistProgram, programFilesExist, programKind } from '../../../src-main/core/schedule/resync.js';

const versions = { ...process.versions, electron: '45.5.0' };
const home = '/Users/ada/.rein';

describe('a schedule made from a development build', () => {
  it('records the app folder between Electron and --headless', () => {
    const electron = '/work/rein/node_modules/electron/dist/Electron.app/Contents/MacOS/Electron';
    // electron-vite runs `electron . [flags]`.
    const p = resolveScheduleProgram({}, home, {
      execPath: electron,
      argv: [electron, '.', '--inspect=9229'],
      versions,
      defaultApp: true,
    });
    expect(p).toEqual({ kind: 'app', prefix: [electron, resolve('.'), '--headless'] });
    expect(launchdProgramArguments(p.prefix, 'a1b2c3d4')).toEqual([
      electron,
      resolve('.'),
      '--headless',
      'schedule',
      'run',
      'a1b2c3d4',
      '--from-launchd',
    ]);
    // Flags before the folder are skipped; the folder is made absolute.
    expect(devAppPath([electron, '--no-sandbox', 'some/app'])).toBe(resolve('some/app'));
    expect(devAppPath([electron])).toBeUndefined();
  });

  it('refuses, saying what to set, when the folder cannot be told', () => {
    const electron = '/opt/electron/electron';
    expect(() =>
      resolveScheduleProgram({}, home, { execPath: electron, argv: [electron, '--flag'], versions, defaultApp: true }),
    ).toThrow(/REIN_SCHEDULE_PROGRAM/);
  });

  it('a packaged app still records its executable alone', () => {
    const exe = '/Applications/Rein.app/Contents/MacOS/Rein';
    expect(resolveScheduleProgram({}, home, { execPath: exe, argv: [exe, '--hidden'], versions })).toEqual({
      kind: 'app',
      prefix: [exe, '--headless'],
    });
  });

  it('resync reads both forms as the app, and a development job needs its folder to be there', async () => {
    const root = await mkdtemp(join(tmpdir(), 'rein-devapp-'));
    const electron = join(root, 'electron');
    const app = join(root, 'app');
    await mkdir(app);
    const { writeFile } = await import('node:fs/promises');
    await writeFile(electron, '');
    expect(programKind([electron, app, '--headless'])).toBe('app');
    expect(programKind(['/Applications/Rein.app/Contents/MacOS/Rein', '--headless'])).toBe('app');
    const dev = plistProgram(
      [electron, app, '--headless', 'schedule', 'run', 'a1b2c3d4', '--from-launchd'],
      'a1b2c3d4',
    )!;
    expect(dev).toEqual({ kind: 'app', prefix: [electron, app, '--headless'] });
    expect(programFilesExist(dev)).toBe(true);
    expect(programFilesExist({ kind: 'app', prefix: [electron, join(root, 'gone'), '--headless'] })).toBe(false);
    // The old form [Electron, --headless] is an app job whose prefix differs from today's: resync rewrites it.
    const old = plistProgram([electron, '--headless', 'schedule', 'run', 'a1b2c3d4', '--from-launchd'], 'a1b2c3d4')!;
    expect(old.kind).toBe('app');
    expect(old.prefix).not.toEqual(dev.prefix);
  });
});

describe('RunAtLoad only where catching up needs it', () => {
  const plist = (runAtLoad?: boolean) =>
    parsePlist(
      buildLaunchdPlist({
        id: 'a1b2c3d4',
        cron: '0 9 * * *',
        programPrefix: ['/Applications/Rein.app/Contents/MacOS/Rein', '--headless'],
        reinHome: home,
        ...(runAtLoad !== undefined ? { runAtLoad } : {}),
      }).xml,
    ) as Record<string, unknown>;

  it('catch_up skip needs no run at login; once, within and an unreadable value do', () => {
    expect(catchUpNeedsLoadRun('skip')).toBe(false);
    expect(catchUpNeedsLoadRun(undefined)).toBe(true);
    expect(catchUpNeedsLoadRun('once')).toBe(true);
    expect(catchUpNeedsLoadRun('within 2h')).toBe(true);
    expect(catchUpNeedsLoadRun('sometimes')).toBe(true);
  });

  it('the plist carries RunAtLoad false when asked, and keeps its calendar intervals', () => {
    expect(plist(false).RunAtLoad).toBe(false);
    expect(plist(false).StartCalendarInterval).toEqual([{ Minute: 0, Hour: 9 }]);
    expect(plist().RunAtLoad).toBe(true);
  });
});
