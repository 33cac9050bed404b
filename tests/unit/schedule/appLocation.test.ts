/** Where the app runs from decides whether it may make launchd jobs; every plist names the app's bundle. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REIN_BUNDLE_ID, appBundleOf, appLocationProblem } from '../../../src-main/core/schedule/appLocation.js';
import { resolveScheduleProgram } from '../../../src-main/core/schedule/backend.js';
import { buildLaunchdPlist, parsePlist } from '../../../src-main/core/schedule/launchdPlist.js';

const electron = (execPath: string) => ({
  execPath,
  argv: [execPath],
  versions: { ...process.versions, electron: '30.0.0' },
});

describe('the app location test', () => {
  it('refuses App Translocation and the disk image, saying to move Rein to Applications', () => {
    const translocated =
      '/private/var/folders/x1/abc_def/T/AppTranslocation/6F1C2D3E-1111-2222-3333-444455556666/d/Rein.app/Contents/MacOS/Rein';
    const t = appLocationProblem(translocated);
    expect(t?.kind).toBe('translocated');
    expect(t?.message).toContain('Move Rein to Applications first');
    expect(t?.message).toContain('/AppTranslocation/6F1C2D3E-1111-2222-3333-444455556666/d/Rein.app');
    const dmg = appLocationProblem('/Volumes/Rein 0.1.0-arm64/Rein.app/Contents/MacOS/Rein');
    expect(dmg?.kind).toBe('disk_image');
    expect(dmg?.message).toContain('Move Rein to Applications first');
  });

  it('accepts where an app stays: /Applications, ~/Applications, anywhere else on the disk', () => {
    for (const p of [
      '/Applications/Rein.app/Contents/MacOS/Rein',
      '/Users/ada/Applications/Rein.app/Contents/MacOS/Rein',
      '/Users/ada/Desktop/Rein.app/Contents/MacOS/Rein',
    ]) {
      expect(appLocationProblem(p), p).toBeUndefined();
    }
    // A node or checkout on another volume is the CLI user's choice, not the DMG.
    expect(appLocationProblem('/Volumes/Work/dev/rein/node')).toBeUndefined();
    expect(appBundleOf('/Applications/Rein.app/Contents/MacOS/Rein')).toBe('/Applications/Rein.app');
    expect(appBundleOf('/usr/local/bin/node')).toBeUndefined();
  });

  it("the app's program carries the problem; the CLI's never does", () => {
    const home = '/Users/ada/.rein';
    const app = resolveScheduleProgram({}, home, electron('/Volumes/Rein 0.1.0/Rein.app/Contents/MacOS/Rein'));
    expect(app).toMatchObject({
      kind: 'app',
      prefix: ['/Volumes/Rein 0.1.0/Rein.app/Contents/MacOS/Rein', '--headless'],
      problem: expect.stringContaining('Applications'),
    });
    expect(
      resolveScheduleProgram({}, home, electron('/Applications/Rein.app/Contents/MacOS/Rein')).problem,
    ).toBeUndefined();
    const cli = resolveScheduleProgram({}, home, {
      execPath: '/Volumes/Work/node',
      argv: ['/Volumes/Work/node', '/Volumes/Work/rein/bin/rein.js'],
      versions: process.versions,
    });
    expect(cli).toEqual({
      kind: 'launcher',
      prefix: ['/Users/ada/.rein/bin/rein-launch', '/Volumes/Work/node', '/Volumes/Work/rein/bin/rein.js'],
    });
    // REIN_SCHEDULE_PROGRAM is taken as it is.
    expect(
      resolveScheduleProgram(
        { REIN_SCHEDULE_PROGRAM: '["/opt/x/rein"]' },
        home,
        electron('/Volumes/R/Rein.app/Contents/MacOS/Rein'),
      ),
    ).toEqual({ kind: 'given', prefix: ['/opt/x/rein'] });
  });
});

describe('Login Items', () => {
  it('the bundle id is electron-builder.yml appId, and every plist names it', () => {
    const yml = readFileSync(join(import.meta.dirname, '..', '..', '..', 'electron-builder.yml'), 'utf8');
    expect(/^appId:\s*(\S+)\s*$/m.exec(yml)?.[1]).toBe(REIN_BUNDLE_ID);
    for (const programPrefix of [
      ['/Applications/Rein.app/Contents/MacOS/Rein', '--headless'],
      ['/Users/ada/.rein/bin/rein-launch', '/opt/homebrew/bin/node', '/opt/rein/bin/rein.js'],
    ]) {
      const plist = parsePlist(
        buildLaunchdPlist({ id: 'a1b2c3d4', cron: '@daily', programPrefix, reinHome: '/Users/ada/.rein' }).xml,
      ) as Record<string, unknown>;
      expect(plist.AssociatedBundleIdentifiers).toEqual([REIN_BUNDLE_ID]);
    }
  });
});
