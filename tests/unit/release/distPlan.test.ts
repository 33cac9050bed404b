/** What npm run dist:* does, from the environment: signing, notarization, the update feed. */
import { describe, expect, it } from 'vitest';
import { distPlan, notaryCredentials, signingIdentity } from '../../../scripts/distPlan.mjs';

const mac = (env: Record<string, string> = {}) => distPlan({ target: 'mac', env, platform: 'darwin' });

describe('dist:mac', () => {
  it('without an identity signs ad hoc with the ad-hoc entitlements and skips notarization, saying so', () => {
    const plan = mac();
    expect(plan.builderArgs).toEqual(
      expect.arrayContaining([
        '--mac',
        '-c.mac.identity=-',
        '-c.mac.entitlements=build/entitlements.adhoc.plist',
        '-c.mac.notarize=false',
        '--publish',
        'never',
      ]),
    );
    expect(plan.helper).toEqual({ identity: '-' });
    expect(plan.notes.join('\n')).toMatch(/signing: ad hoc/);
    expect(plan.notes.filter((n: string) => n.startsWith('notarization:'))).toHaveLength(1);
    expect(plan.nativeArchs).toEqual(['arm64', 'x64']);
  });

  it('with CSC_NAME signs with it (the helper too) and notarizes when a full set of Apple variables is there', () => {
    const plan = mac({
      CSC_NAME: 'Developer ID Application: Jane Doe (AB12CD34EF)',
      APPLE_API_KEY: '/k.p8',
      APPLE_API_KEY_ID: 'K1',
      APPLE_API_ISSUER: 'i-1',
    });
    expect(plan.builderArgs).toContain('-c.mac.identity=Jane Doe (AB12CD34EF)');
    expect(plan.builderArgs).not.toContain('-c.mac.notarize=false');
    expect(plan.builderArgs.some((a: string) => a.includes('adhoc'))).toBe(false);
    expect(plan.helper?.identity).toBe('Developer ID Application: Jane Doe (AB12CD34EF)');
    expect(plan.notes).toContain('notarization: with APPLE_API_KEY (then stapled)');
  });

  it('with an identity but no Apple variables skips notarization in one line naming them', () => {
    const plan = mac({ REIN_SIGN_IDENTITY: 'Developer ID Application: Jane Doe (AB12CD34EF)' });
    expect(plan.builderArgs).toContain('-c.mac.notarize=false');
    const line = plan.notes.filter((n: string) => n.startsWith('notarization:'));
    expect(line).toHaveLength(1);
    expect(line[0]).toMatch(
      /APPLE_API_KEY, APPLE_API_KEY_ID, APPLE_API_ISSUER or APPLE_ID, APPLE_APP_SPECIFIC_PASSWORD, APPLE_TEAM_ID/,
    );
  });

  it('refuses half a set of notarization variables, naming the missing ones', () => {
    expect(() => notaryCredentials({ APPLE_ID: 'me@example.com' })).toThrow(
      /APPLE_APP_SPECIFIC_PASSWORD, APPLE_TEAM_ID missing/,
    );
    expect(notaryCredentials({ APPLE_ID: 'a', APPLE_APP_SPECIFIC_PASSWORD: 'b', APPLE_TEAM_ID: 'c' })).toBe('apple-id');
    expect(notaryCredentials({})).toBeUndefined();
    expect(signingIdentity({ CSC_NAME: '  ' })).toBe('-');
  });

  it('needs a Mac', () => {
    expect(() => distPlan({ target: 'mac', env: {}, platform: 'linux' })).toThrow(/needs a Mac/);
  });
});

describe('the update feed', () => {
  it('is the GitHub releases of GITHUB_REPOSITORY in CI, or a generic https server', () => {
    expect(
      distPlan({ target: 'linux', env: { GITHUB_REPOSITORY: 'someone/rein' }, platform: 'linux' }).builderArgs,
    ).toEqual(
      expect.arrayContaining(['-c.publish.provider=github', '-c.publish.owner=someone', '-c.publish.repo=rein']),
    );
    expect(
      distPlan({ target: 'linux', env: { REIN_UPDATE_URL: 'https://updates.example.com/rein/' }, platform: 'linux' })
        .builderArgs,
    ).toEqual(
      expect.arrayContaining(['-c.publish.provider=generic', '-c.publish.url=https://updates.example.com/rein/']),
    );
    expect(() =>
      distPlan({ target: 'linux', env: { REIN_UPDATE_URL: 'http://updates.example.com/' }, platform: 'linux' }),
    ).toThrow(/https/);
  });

  it('must be known for a release build', () => {
    expect(() => distPlan({ target: 'linux', env: { REIN_RELEASE: '1' }, platform: 'linux' })).toThrow(/update feed/);
    expect(distPlan({ target: 'linux', env: {}, platform: 'linux' }).notes.join('\n')).toMatch(
      /does not update itself/,
    );
  });
});

describe('dist:linux and dist:dir', () => {
  it('builds the x64 AppImage and deb, or an unpacked app for this machine', () => {
    expect(distPlan({ target: 'linux', env: {}, platform: 'linux' })).toMatchObject({
      os: 'linux',
      nativeArchs: ['x64'],
      builderArgs: ['--linux', '--publish', 'never'],
    });
    expect(distPlan({ target: 'dir', env: { REIN_DIST_ARCH: 'arm64' }, platform: 'darwin' }).builderArgs).toEqual(
      expect.arrayContaining(['--mac', '--dir', '--arm64']),
    );
    expect(() => distPlan({ target: 'win', env: {}, platform: 'linux' })).toThrow(/unknown target/);
  });
});
