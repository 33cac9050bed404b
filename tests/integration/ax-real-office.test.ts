// The Linux helper on LibreOffice Writer (VCL on GTK 3), an app it was never tuned to (issue 27). A
// Writer document's text lives in `paragraph` objects with no name, which the helper once took for
// unnamed layout groups and dropped: the text could be neither read nor edited by ref. Now an editable
// paragraph is a `textarea`. Every effect is read back without the helper: a plain pyatspi read
// (fixtures/ax/read_app.py), the X server's window titles (xdotool), and the file Writer itself saved.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AXClient } from '../../src-main/core/ax/axClient.js';
import { AxDriver } from '../../src-main/core/ax/axDriver.js';
import { RefTable } from '../../src-main/core/ax/refs.js';
import { desktopParts, inCi, skipReason, startDesktop, until, type Desktop } from '../fixtures/ax/desktopSession.js';
import { useLeakCheck } from '../support/leaks.js';

const READ_APP = join(__dirname, '../fixtures/ax/read_app.py');
const SOFFICE = '/usr/bin/soffice';
const missing = desktopParts();
if (!existsSync(SOFFICE) || !existsSync('/usr/lib/libreoffice/program/swriter')) missing.push('libreoffice-writer');
if (!existsSync('/usr/lib/libreoffice/program/libvclplug_gtk3lo.so')) missing.push('libreoffice-gtk3');
if (!existsSync('/usr/bin/xdotool')) missing.push('xdotool');

describe.runIf(missing.length > 0 && inCi)('the Linux helper on LibreOffice Writer', () => {
  it('needs the desktop test packages under CI', () => {
    throw new Error(`the LibreOffice real-app tests need ${missing.join(', ')} under CI=true (.ci/run installs them)`);
  });
});

// A flat ODF text document (one XML file): Writer opens it and saves it back in its own format, with no
// "keep the format?" question, so the saved file can be read as text.
const FODT = `<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"
  xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.3"
  office:mimetype="application/vnd.oasis.opendocument.text">
 <office:body><office:text><text:p>Hello from the file</text:p></office:text></office:body>
</office:document>
`;

// A profile with no first-start dialogs, no tip of the day, no autosave or recovery.
const XCU = `<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Common/Misc"><prop oor:name="ShowTipOfTheDay" oor:op="fuse"><value>false</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Misc"><prop oor:name="FirstRun" oor:op="fuse"><value>false</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Save/Document"><prop oor:name="WarnAlienFormat" oor:op="fuse"><value>false</value></prop></item>
<item oor:path="/org.openoffice.Office.Recovery/AutoSave"><prop oor:name="Enabled" oor:op="fuse"><value>false</value></prop></item>
<item oor:path="/org.openoffice.Office.Recovery/RecoveryInfo"><prop oor:name="Enabled" oor:op="fuse"><value>false</value></prop></item>
</oor:items>
`;

interface ReadNode {
  role: string;
  name: string;
  text?: string;
  states: string[];
}

const title = 'the Linux helper on LibreOffice Writer';
describe.skipIf(missing.length > 0)(
  missing.length ? `${title} (${skipReason(missing)}; and libreoffice-writer libreoffice-gtk3 xdotool)` : title,
  () => {
    useLeakCheck();
    let desktop: Desktop;
    let client: AXClient;
    let driver: AxDriver;
    let home: string;
    let doc: string;
    /** soffice.bin's pid (the app on the bus; /usr/bin/soffice is a script that starts it). */
    let pid: number;

    /** Writer's editable paragraphs as plain pyatspi reads them (no code of the helper). */
    const paragraphs = (): string[] =>
      (
        JSON.parse(
          execFileSync('/usr/bin/python3', [READ_APP, String(pid)], { env: desktop.env, encoding: 'utf8' }),
        ) as { nodes: ReadNode[] }
      ).nodes
        .filter((n) => n.role === 'paragraph' && n.states.includes('editable'))
        .map((n) => n.text ?? '');
    const windowNames = () =>
      execFileSync('/usr/bin/xdotool', ['search', '--name', 'LibreOffice Writer', 'getwindowname', '%@'], {
        env: desktop.env,
        encoding: 'utf8',
      })
        .trim()
        .split('\n');
    const docView = async () =>
      (await driver.find({ app: String(pid), role: 'textarea' })).elements.filter(
        (e) => e.ancestry?.[0]?.name === 'doc.fodt - LibreOffice Writer',
      );

    beforeAll(async () => {
      home = mkdtempSync(join(tmpdir(), 'rein-ax-office-'));
      mkdirSync(join(home, 'lo/user'), { recursive: true });
      writeFileSync(join(home, 'lo/user/registrymodifications.xcu'), XCU);
      doc = join(home, 'doc.fodt');
      writeFileSync(doc, FODT);
      desktop = await startDesktop({ activateRegistry: true });
      Object.assign(desktop.env, { HOME: home, XDG_CACHE_HOME: join(home, 'cache'), SAL_USE_VCLPLUGIN: 'gtk3' });
      client = desktop.client();
      driver = new AxDriver(client, new RefTable());
      // Writer on a loaded machine (CI runs test files side by side) now and then never shows up on the
      // bus: it is stopped and started once more before the file gives up.
      const args = [
        '--writer',
        '--norestore',
        '--nologo',
        '--nolockcheck',
        `-env:UserInstallation=${pathToFileURL(join(home, 'lo')).href}`,
        doc,
      ];
      for (let attempt = 1; ; attempt++) {
        const office = await desktop.startApp(SOFFICE, args);
        let seen = '';
        try {
          await until(
            'Writer’s window on the accessibility bus',
            async () => {
              const { apps } = await client.call('list_apps', {});
              seen = JSON.stringify(
                apps.map((a) => ({ name: a.name, pid: a.pid, windows: a.windows.map((w) => w.name) })),
              );
              const app = apps.find((a) => a.windows.some((w) => w.name === 'doc.fodt - LibreOffice Writer'));
              if (app) pid = app.pid;
              return app !== undefined;
            },
            attempt === 1 ? 60_000 : 90_000,
          );
          break;
        } catch (e) {
          const { exitCode, signalCode } = office.child;
          const why = `${(e as Error).message} (the bus lists ${seen}; soffice ${exitCode === null && signalCode === null ? 'runs' : `exited with ${exitCode ?? signalCode}`})`;
          if (attempt >= 2) throw new Error(why);
          try {
            process.kill(-office.pid, 'SIGKILL');
          } catch {
            // gone already
          }
          await new Promise((r) => setTimeout(r, 1_000));
        }
      }
      await until('the document’s paragraph in the tree', async () => (await docView()).length === 1, 30_000);
    }, 210_000);

    afterAll(async () => {
      await desktop?.close();
      if (home) rmSync(home, { recursive: true, force: true });
    });

    it('sees the document’s paragraph as a text area and reads its text by ref', async () => {
      const view = await driver.snapshot({ app: String(pid), filter: 'interactive', window: 'doc.fodt' });
      const areas = view.elements.filter((e) => e.role === 'textarea');
      expect(areas).toHaveLength(1);
      expect(areas[0]).toMatchObject({ value: 'Hello from the file' });
      // get_value by ref gives the text the file holds.
      expect((await driver.act('get_value', { ref: areas[0]!.ref })).result).toMatchObject({
        value: 'Hello from the file',
        kind: 'text',
      });
    });

    it('replaces the paragraph’s text by ref and types into it by ref (full Unicode), read back by plain pyatspi', async () => {
      const [para] = await docView();
      const set = await driver.act('set_value', { ref: para!.ref, value: 'Grüße aus Rein 日本' });
      expect(set.result).toMatchObject({ verified: true });
      expect(paragraphs()).toContain('Grüße aus Rein 日本');
      const typed = await driver.act('type_text', { ref: para!.ref, text: ' + typed ÄÖ' });
      expect(typed.result).toMatchObject({ verified: true });
      expect(paragraphs()).toContain('Grüße aus Rein 日本 + typed ÄÖ');
    });

    it('saves with ctrl+s sent to the paragraph by ref: the file Writer wrote holds the text', async () => {
      const [para] = await docView();
      const before = statSync(doc).mtimeMs;
      const out = await driver.act('key', { ref: para!.ref, keys: 'ctrl+s' });
      expect(out.actedOn).toMatchObject({ role: 'textarea' });
      await until(
        'Writer to save the file',
        () => statSync(doc).mtimeMs !== before && readFileSync(doc, 'utf8').includes('</office:document>'),
        20_000,
      );
      const body = readFileSync(doc, 'utf8').match(/<office:text[\s\S]*<\/office:text>/)?.[0] ?? '';
      expect(body).toContain('Grüße aus Rein 日本 + typed ÄÖ');
      expect(body).not.toContain('Hello from the file');
    });

    it('opens a new document by clicking New by ref, and edits its empty paragraph by ref', async () => {
      const [newButton] = (
        await driver.find({ app: String(pid), role: 'button', name: 'New', exact: true })
      ).elements.filter((e) => e.ancestry?.[0]?.name === 'doc.fodt - LibreOffice Writer');
      expect(newButton).toBeDefined();
      await driver.act('click', { ref: newButton!.ref });
      // The X server's titles: a second Writer window, the untitled document.
      await until(
        'a new Writer window',
        () => windowNames().some((n) => /^Untitled \d+ - LibreOffice Writer$/.test(n)),
        30_000,
      );
      const untitled = windowNames().find((n) => n.startsWith('Untitled'))!;
      let area: Awaited<ReturnType<typeof docView>>[number] | undefined;
      await until(
        'the new document’s paragraph',
        async () => {
          area = (await driver.find({ app: String(pid), role: 'textarea' })).elements.find(
            (e) => e.ancestry?.[0]?.name === untitled,
          );
          return area !== undefined;
        },
        30_000,
      );
      expect(area).toMatchObject({ name: '', value: '' });
      const out = await driver.act('type_text', { ref: area!.ref, text: 'A new page, ünïcödé' });
      expect(out.result).toMatchObject({ verified: true });
      expect(paragraphs()).toContain('A new page, ünïcödé');
      // The first document is untouched.
      expect(paragraphs()).toContain('Grüße aus Rein 日本 + typed ÄÖ');
    });
  },
);
