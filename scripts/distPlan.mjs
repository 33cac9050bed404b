// What `npm run dist:mac|dist:linux|dist:dir` does, decided from the environment (scripts/dist.mjs runs
// it; tests/unit/release/distPlan.test.ts pins it). docs/release.md says the same in words.
//
// Signing identity: CSC_NAME (electron-builder's own variable: a "Developer ID Application: …" identity in
// the keychain), or REIN_SIGN_IDENTITY; none means ad hoc ("-"), with build/entitlements.adhoc.plist.
// Notarization: APPLE_API_KEY + APPLE_API_KEY_ID + APPLE_API_ISSUER, or APPLE_ID +
// APPLE_APP_SPECIFIC_PASSWORD + APPLE_TEAM_ID (electron-builder's own variables); none means skipped, in
// one line. The update feed: REIN_UPDATE_URL (a generic server), else REIN_UPDATE_GITHUB or
// GITHUB_REPOSITORY (owner/repo of the GitHub releases), else electron-builder.yml's publish.

export const NOTARY_API_VARS = ['APPLE_API_KEY', 'APPLE_API_KEY_ID', 'APPLE_API_ISSUER'];
export const NOTARY_ID_VARS = ['APPLE_ID', 'APPLE_APP_SPECIFIC_PASSWORD', 'APPLE_TEAM_ID'];

const set = (env, name) => typeof env[name] === 'string' && env[name].trim() !== '';

/** Which notarization credentials are set: 'api-key', 'apple-id', or undefined; a half-set group is an error. */
export function notaryCredentials(env) {
  for (const [kind, vars] of [
    ['api-key', NOTARY_API_VARS],
    ['apple-id', NOTARY_ID_VARS],
  ]) {
    const present = vars.filter((v) => set(env, v));
    if (present.length === vars.length) return kind;
    if (present.length > 0) {
      throw new Error(
        `notarization: ${present.join(', ')} set but ${vars.filter((v) => !set(env, v)).join(', ')} missing`,
      );
    }
  }
  return undefined;
}

export function signingIdentity(env) {
  const name = [env.CSC_NAME, env.REIN_SIGN_IDENTITY].find((v) => typeof v === 'string' && v.trim() !== '');
  return name ? name.trim() : '-';
}

/**
 * The plan: `notes` (the lines printed first), `helper` (build the Swift helper, with this identity),
 * `nativeArchs` (the archs to fetch better-sqlite3 for Electron), and `builderArgs` for electron-builder.
 */
export function distPlan({ target, env, platform }) {
  if (!['mac', 'linux', 'dir'].includes(target)) throw new Error(`unknown target "${target}": mac, linux or dir`);
  const host = platform === 'darwin' ? 'mac' : platform === 'linux' ? 'linux' : undefined;
  const os = target === 'dir' ? host : target;
  if (!os) throw new Error(`dist:${target} runs on macOS or Linux, not ${platform}`);
  if (os === 'mac' && platform !== 'darwin') {
    throw new Error(
      'dist:mac needs a Mac: codesign, notarytool and the Swift helper exist only there (on Linux: npm run dist:linux)',
    );
  }
  const notes = [];
  const args = [os === 'mac' ? '--mac' : '--linux'];
  if (target === 'dir') args.push('--dir');
  const archs = target === 'dir' ? [hostArch(env)] : os === 'mac' ? ['arm64', 'x64'] : ['x64'];
  if (target === 'dir') args.push(`--${archs[0]}`);
  args.push('--publish', env.REIN_PUBLISH === '1' ? 'always' : 'never');

  let helper;
  if (os === 'mac') {
    const identity = signingIdentity(env);
    helper = { identity };
    if (identity === '-') {
      notes.push(
        'signing: ad hoc ("-"): no CSC_NAME or REIN_SIGN_IDENTITY. It runs on this Mac; Gatekeeper blocks it elsewhere and it never updates itself.',
      );
      args.push(
        '-c.mac.identity=-',
        '-c.mac.entitlements=build/entitlements.adhoc.plist',
        '-c.mac.entitlementsInherit=build/entitlements.adhoc.plist',
        '-c.mac.notarize=false',
      );
      notes.push('notarization: skipped (an ad-hoc build cannot be notarized).');
    } else {
      notes.push(`signing: ${identity}`);
      args.push(`-c.mac.identity=${identity.replace(/^Developer ID Application: /, '')}`);
      const notary = notaryCredentials(env);
      if (notary)
        notes.push(`notarization: with ${notary === 'api-key' ? 'APPLE_API_KEY' : 'APPLE_ID'} (then stapled)`);
      else {
        notes.push(`notarization: skipped (set ${NOTARY_API_VARS.join(', ')} or ${NOTARY_ID_VARS.join(', ')}).`);
        args.push('-c.mac.notarize=false');
      }
    }
  }

  if (set(env, 'REIN_UPDATE_URL')) {
    const url = new URL(env.REIN_UPDATE_URL);
    if (url.protocol !== 'https:') throw new Error(`REIN_UPDATE_URL must be an https: address, not ${url.protocol}`);
    args.push('-c.publish.provider=generic', `-c.publish.url=${url.href}`);
    notes.push(`updates: from ${url.href}`);
  } else {
    const repo = [env.REIN_UPDATE_GITHUB, env.GITHUB_REPOSITORY].find(
      (v) => typeof v === 'string' && /^[\w.-]+\/[\w.-]+$/.test(v),
    );
    if (repo) {
      const [owner, name] = repo.split('/');
      args.push('-c.publish.provider=github', `-c.publish.owner=${owner}`, `-c.publish.repo=${name}`);
      notes.push(`updates: from the GitHub releases of ${repo}`);
    } else if (env.REIN_RELEASE === '1') {
      throw new Error(
        'a release build (REIN_RELEASE=1) needs its update feed: REIN_UPDATE_URL, REIN_UPDATE_GITHUB or GITHUB_REPOSITORY',
      );
    }
  }
  if (env.REIN_RELEASE !== '1') notes.push('release: no (REIN_RELEASE is not 1): this build does not update itself.');

  return { os, notes, helper, nativeArchs: archs, builderArgs: args };
}

function hostArch(env) {
  const a = env.REIN_DIST_ARCH || process.arch;
  if (a !== 'arm64' && a !== 'x64') throw new Error(`no Rein build for the ${a} architecture`);
  return a;
}
