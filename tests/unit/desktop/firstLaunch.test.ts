import { describe, expect, it } from 'vitest';
import { appPlace, moveToApplicationsDecision, type MoveInput } from '../../../src-main/core/desktop/firstLaunch.js';

const base: MoveInput = {
  platform: 'darwin',
  packaged: true,
  inApplicationsFolder: false,
  executable: '/Users/ada/Downloads/Rein.app/Contents/MacOS/Rein',
  home: '/Users/ada',
  declined: false,
};
const translocated = '/private/var/folders/x1/abc/T/AppTranslocation/6F1C2D3E-1111/d/Rein.app/Contents/MacOS/Rein';

describe('moving Rein into /Applications at first launch', () => {
  it('tells where the app runs from', () => {
    expect(appPlace(translocated, false, '/Users/ada')).toBe('translocated');
    expect(appPlace('/Volumes/Rein 0.1.0-arm64/Rein.app/Contents/MacOS/Rein', false, '/Users/ada')).toBe('disk_image');
    expect(appPlace('/Users/ada/Downloads/Rein.app/Contents/MacOS/Rein', false, '/Users/ada')).toBe('downloads');
    expect(appPlace('/Users/ada/Apps/Rein.app/Contents/MacOS/Rein', false, '/Users/ada')).toBe('elsewhere');
    expect(appPlace('/Applications/Rein.app/Contents/MacOS/Rein', true, '/Users/ada')).toBe('applications');
    // A translocated copy is never "in Applications", whatever it was launched from.
    expect(appPlace(translocated, true, '/Users/ada')).toBe('translocated');
  });

  it('offers nothing off macOS, in a development build, or in /Applications', () => {
    expect(moveToApplicationsDecision({ ...base, platform: 'linux' })).toEqual({ offer: false, why: 'not_macos' });
    expect(moveToApplicationsDecision({ ...base, packaged: false })).toEqual({ offer: false, why: 'not_packaged' });
    expect(
      moveToApplicationsDecision({
        ...base,
        inApplicationsFolder: true,
        executable: '/Applications/Rein.app/Contents/MacOS/Rein',
      }),
    ).toEqual({ offer: false, why: 'in_applications' });
  });

  it('offers the move from Downloads with Return moving, Escape staying, and a "Don\'t ask again" that is then kept', () => {
    const d = moveToApplicationsDecision(base);
    expect(d.offer).toBe(true);
    if (!d.offer) return;
    expect(d.prompt).toMatchObject({
      place: 'downloads',
      temporary: false,
      buttons: ['Move to Applications', 'Keep it here'],
      defaultId: 0,
      cancelId: 1,
      checkboxLabel: 'Don’t ask again',
    });
    expect(d.prompt.detail).toContain('/Users/ada/Downloads/Rein.app');
    expect(moveToApplicationsDecision({ ...base, declined: true })).toEqual({ offer: false, why: 'declined' });
  });

  it('always offers it from a place that goes away (translocated, the disk image), saying what breaks, with no "Don\'t ask again"', () => {
    for (const executable of [translocated, '/Volumes/Rein 0.1.0/Rein.app/Contents/MacOS/Rein']) {
      const d = moveToApplicationsDecision({ ...base, executable, declined: true });
      expect(d.offer).toBe(true);
      if (!d.offer) continue;
      expect(d.prompt.temporary).toBe(true);
      expect(d.prompt.checkboxLabel).toBeUndefined();
      expect(d.prompt.detail).toMatch(/cannot make scheduled runs or start at login/);
    }
  });
});
