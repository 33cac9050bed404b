// The Linux helper on Firefox ESR (Gecko), an app it was never tuned to (issue 27). Gecko's text
// interface answers true to InsertText and SetTextContents and changes nothing, so the helper must notice
// and type instead; a password is checked by its length; a check box's action is called `check` or
// `uncheck`. Every effect is read back by the page itself: it writes its fields' state into
// document.title, which the X server reports as the window's title (xdotool), never through the helper.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AXClient } from '../../src-main/core/ax/axClient.js';
import { AxDriver } from '../../src-main/core/ax/axDriver.js';
import type { RefElement } from '../../src-main/core/ax/refs.js';
import { RefTable } from '../../src-main/core/ax/refs.js';
import { desktopParts, inCi, skipReason, startDesktop, until, type Desktop } from '../fixtures/ax/desktopSession.js';

const FIREFOX = '/usr/bin/firefox-esr';
const missing = desktopParts();
if (!existsSync(FIREFOX)) missing.push('firefox-esr');
if (!existsSync('/usr/bin/xdotool')) missing.push('xdotool');

describe.runIf(missing.length > 0 && inCi)('the Linux helper on Firefox ESR (Gecko)', () => {
  it('needs the desktop test packages under CI', () => {
    throw new Error(`the Gecko real-app tests need ${missing.join(', ')} under CI=true (.ci/run installs them)`);
  });
});

// The page reflects its own state into its title: "name=…;pw=N;pin=N;agree=true|false".
const PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>boot</title></head>
<body>
<form onsubmit="return false">
<label>Full name <input id="name" type="text"></label><br>
<label>Secret <input id="secret" type="password"></label><br>
<label>PIN <input id="pin" type="password" maxlength="4"></label><br>
<label><input id="agree" type="checkbox"> I agree</label>
</form>
<script>
const v = (id) => document.getElementById(id);
const show = () => {
  document.title = 'name=' + v('name').value + ';pw=' + v('secret').value.length + ';pin=' + v('pin').value.length + ';agree=' + v('agree').checked;
};
for (const id of ['name', 'secret', 'pin', 'agree']) { v(id).addEventListener('input', show); v(id).addEventListener('change', show); }
show();
</script>
</body></html>
`;

// A profile that starts straight on the page: no first-run or welcome pages, no telemetry, no updates,
// no background network services (the machine may have no network at all), one content process.
const PREFS: Array<[string, string | number | boolean]> = [
  ['browser.shell.checkDefaultBrowser', false],
  ['browser.startup.homepage_override.mstone', 'ignore'],
  ['startup.homepage_welcome_url', ''],
  ['startup.homepage_welcome_url.additional', ''],
  ['browser.aboutwelcome.enabled', false],
  ['trailhead.firstrun.didSeeAboutWelcome', true],
  ['browser.sessionstore.resume_from_crash', false],
  ['browser.tabs.warnOnClose', false],
  ['datareporting.policy.dataSubmissionEnabled', false],
  ['datareporting.healthreport.uploadEnabled', false],
  ['toolkit.telemetry.enabled', false],
  ['toolkit.telemetry.reportingpolicy.firstRun', false],
  ['app.update.disabledForTesting', true],
  ['app.update.auto', false],
  ['extensions.update.enabled', false],
  ['extensions.getAddons.cache.enabled', false],
  ['browser.safebrowsing.malware.enabled', false],
  ['browser.safebrowsing.phishing.enabled', false],
  ['browser.safebrowsing.downloads.enabled', false],
  ['network.captive-portal-service.enabled', false],
  ['network.connectivity-service.enabled', false],
  ['browser.region.update.enabled', false],
  ['browser.newtabpage.enabled', false],
  ['media.gmp-manager.url', ''],
  ['fission.autostart', false],
  ['dom.ipc.processCount', 1],
  // Accessibility is on whenever a client asks for it (the default; an old profile may have it off).
  ['accessibility.force_disabled', 0],
];

const title = 'the Linux helper on Firefox ESR (Gecko)';
describe.skipIf(missing.length > 0)(
  missing.length ? `${title} (${skipReason(missing)}; and firefox-esr xdotool)` : title,
  () => {
    // No per-test leak check: Firefox starts its content and utility processes when it needs them, during
    // any test. They are the app's own, in its process group and on the desktop's bus, and close() ends them.
    let desktop: Desktop;
    let client: AXClient;
    let driver: AxDriver;
    let home: string;
    let pid: number;
    const fields: Record<string, RefElement> = {};

    /** The page's own account of its state, from the X server's title of the Firefox window (the page sets
     * it from its input and change events, a moment after the accessibility events: poll it). */
    const pageState = (): Record<string, string> => {
      const name = execFileSync('/usr/bin/xdotool', ['search', '--name', '^name=', 'getwindowname'], {
        env: desktop.env,
        encoding: 'utf8',
      })
        .trim()
        .split('\n')[0]!;
      const body = name.replace(/ [—-] Mozilla Firefox$/, '');
      return Object.fromEntries(
        body.split(';').map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
      );
    };

    beforeAll(async () => {
      home = mkdtempSync(join(tmpdir(), 'rein-ax-gecko-'));
      const profile = join(home, 'profile');
      mkdirSync(profile);
      writeFileSync(
        join(profile, 'user.js'),
        PREFS.map(([k, v]) => `user_pref(${JSON.stringify(k)}, ${JSON.stringify(v)});`).join('\n') + '\n',
      );
      const page = join(home, 'form.html');
      writeFileSync(page, PAGE);
      desktop = await startDesktop({ activateRegistry: true });
      Object.assign(desktop.env, {
        HOME: home,
        XDG_CACHE_HOME: join(home, 'cache'),
        // Gecko's accessibility on Linux follows GNOME's switch (on in the fixture desktop) or this.
        GNOME_ACCESSIBILITY: '1',
        MOZ_ENABLE_WAYLAND: '0',
        MOZ_CRASHREPORTER_DISABLE: '1',
        MOZ_DISABLE_AUTO_SAFE_MODE: '1',
      });
      delete desktop.env.MOZ_HEADLESS; // a headless Firefox has no accessibility tree
      client = desktop.client();
      driver = new AxDriver(client, new RefTable());
      // Firefox on a loaded machine (CI runs test files side by side) now and then never shows up on the
      // bus: it is stopped and started once more before the file gives up.
      for (let attempt = 1; ; attempt++) {
        pid = (
          await desktop.startApp(FIREFOX, [
            '--no-remote',
            '--new-instance',
            '--profile',
            profile,
            pathToFileURL(page).href,
          ])
        ).pid;
        try {
          await desktop.waitForApp(client, pid, attempt === 1 ? 60_000 : 90_000);
          break;
        } catch (e) {
          if (attempt >= 2) throw e;
          try {
            process.kill(-pid, 'SIGKILL');
          } catch {
            // gone already
          }
          await new Promise((r) => setTimeout(r, 1_000));
        }
      }
      // The page has run its script once its title is on the window (the tree follows the document).
      await until(
        'the page’s title on the Firefox window',
        async () =>
          (await client.call('list_apps', {})).apps.some(
            (a) => a.pid === pid && a.windows.some((w) => w.name.startsWith('name=')),
          ),
        60_000,
      );
      // Gecko names the fields from their labels a moment after it shows them.
      const named = async () =>
        (await driver.find({ app: String(pid), role: 'textfield' })).elements
          .map((e) => e.name)
          .sort()
          .join('|');
      await until(
        'the page’s fields, named, in the tree',
        async () => (await named()) === 'Full name|PIN|Secret',
        30_000,
      );
      await until(
        'the page’s check box in the tree',
        async () => (await driver.find({ app: String(pid), role: 'checkbox', name: 'I agree' })).elements.length === 1,
        30_000,
      );
      for (const e of (await driver.find({ app: String(pid), role: 'textfield' })).elements) fields[e.name] = e;
      fields.agree = (await driver.find({ app: String(pid), role: 'checkbox' })).elements[0]!;
    }, 240_000);

    afterAll(async () => {
      await desktop?.close();
      if (home) rmSync(home, { recursive: true, force: true });
    });

    it('sees the page’s fields with their labels, the password field as secure', () => {
      expect(Object.keys(fields).sort()).toEqual(['Full name', 'PIN', 'Secret', 'agree']);
      expect(fields.Secret).toMatchObject({ role: 'textfield', secure: true });
      expect(fields['Full name']!.secure).toBeFalsy();
      expect(fields.agree).toMatchObject({ role: 'checkbox', name: 'I agree' });
      expect(pageState()).toMatchObject({ name: '', pw: '0', agree: 'false' });
    });

    it('sets a text field although Gecko’s text interface ignores it: the no-op is noticed and the value typed', async () => {
      const out = await driver.act('set_value', { ref: fields['Full name']!.ref, value: 'Zoë 日本' });
      // Gecko answered true to SetTextContents and changed nothing; the helper typed the value instead.
      expect(out.result).toMatchObject({ method: 'keys', verified: true, value: 'Zoë 日本' });
      // Each character the keyboard lacks is typed through a remapped key: sent too fast, "Zoë 日本"
      // arrived as "Zo本 本本". The page's own value says what arrived.
      await expect.poll(() => pageState().name, { timeout: 5_000 }).toBe('Zoë 日本');
    });

    it('types by ref into the text field, emoji included (Gecko counts UTF-16 units), and reads it back', async () => {
      const out = await driver.act('type_text', { ref: fields['Full name']!.ref, text: ' + ÄÖ 🙂' });
      expect(out.result).toMatchObject({ verified: true });
      await expect.poll(() => pageState().name, { timeout: 5_000 }).toBe('Zoë 日本 + ÄÖ 🙂');
      // get_value gives the text without Gecko's filler after the emoji.
      expect((await driver.act('get_value', { ref: fields['Full name']!.ref })).result.value).toBe('Zoë 日本 + ÄÖ 🙂');
    });

    it('sets a password and answers ok only when the field holds that many characters', async () => {
      const ok = await driver.act('set_value', { ref: fields.Secret!.ref, value: 'hunter2' });
      expect(ok.result).toMatchObject({ verified: true, secure: true, value: null });
      await expect.poll(() => pageState().pw, { timeout: 5_000 }).toBe('7');
      // The PIN field keeps 4 characters of the 7: the length does not match, so it is a failure.
      await expect(driver.act('set_value', { ref: fields.PIN!.ref, value: 'hunter2' })).rejects.toMatchObject({
        code: 'FAILED',
        message: expect.stringMatching(/4 characters, not 7/),
      });
      await expect.poll(() => pageState().pin, { timeout: 5_000 }).toBe('4');
      // The error never carries the secret.
      await driver
        .act('set_value', { ref: fields.PIN!.ref, value: '1234' })
        .then((r) => expect(JSON.stringify(r.result)).not.toContain('1234'));
      await expect.poll(() => pageState().pin, { timeout: 5_000 }).toBe('4');
    });

    it('checks and unchecks the check box through Gecko’s check/uncheck action, each read back by the page', async () => {
      const on = await driver.act('click', { ref: fields.agree!.ref });
      expect(on.result).toMatchObject({ verified: true, method: expect.stringMatching(/^action:(check|uncheck)$/) });
      await expect.poll(() => pageState().agree, { timeout: 5_000 }).toBe('true');
      const off = await driver.act('click', { ref: fields.agree!.ref });
      expect(off.result).toMatchObject({ verified: true });
      await expect.poll(() => pageState().agree, { timeout: 5_000 }).toBe('false');
      const set = await driver.act('set_value', { ref: fields.agree!.ref, value: 'true' });
      expect(set.result).toMatchObject({ verified: true, value: 'true' });
      await expect.poll(() => pageState().agree, { timeout: 5_000 }).toBe('true');
      // Already checked: nothing to do, and the page agrees.
      expect((await driver.act('set_value', { ref: fields.agree!.ref, value: 'true' })).result).toMatchObject({
        method: 'none',
      });
      await expect.poll(() => pageState().agree, { timeout: 5_000 }).toBe('true');
    });
  },
);
