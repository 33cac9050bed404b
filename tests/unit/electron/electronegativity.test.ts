/**
 * Electronegativity (Doyensec's static checker of Electron's security checklist) over the code that
 * makes up the desktop app: the entry, the shell, the preload and the page. Any finding of medium
 * severity or above fails the test unless it is in ACCEPTED below, each with the reason it was
 * reviewed and kept (docs/desktop-shell.md lists the same). An accepted finding that no longer occurs
 * fails too, so the list stays true.
 *
 * Needs the devDependency @doyensec/electronegativity: without it the test is skipped with a reason on
 * a laptop, and fails under CI=true.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../../..');
const PACKAGE = '@doyensec/electronegativity';
const inCi = process.env.CI === 'true';

function installed(): boolean {
  try {
    createRequire(join(ROOT, 'package.json')).resolve(PACKAGE);
    return true;
  } catch {
    return false;
  }
}
const available = installed();

/** Reviewed findings: rule, file, and why it stays. */
const ACCEPTED: { id: string; file: string; why: string }[] = [
  {
    id: 'PRELOAD_JS_CHECK',
    file: 'src-main/electron/window.ts',
    why: 'the preload is our own, bundled as one CommonJS file into a sandboxed, context-isolated window; it exposes named operations only (src-preload/index.ts, pinned by preload.test.ts)',
  },
  {
    id: 'OPEN_EXTERNAL_JS_CHECK',
    file: 'src-main/electron/window.ts',
    why: 'openInBrowser parses the URL and passes on http: and https: only (window.test.ts)',
  },
  {
    id: 'OPEN_EXTERNAL_JS_CHECK',
    file: 'src-main/electron/macPermissions.ts',
    why: 'only the two exact System Settings pane URLs of core/desktop/macPermissions.ts (macPermissions.test.ts)',
  },
];

const SEVERE = new Set(['MEDIUM', 'HIGH', 'CRITICAL']);

interface Finding {
  id: string;
  file: string;
  line: number;
  severity: string;
  confidence: string;
  sample?: string;
  description?: string;
}

let staged: string | undefined;
afterAll(() => {
  if (staged) rmSync(staged, { recursive: true, force: true });
});

/** The desktop app's sources, copied to a folder of their own (the scanner walks everything it is given). */
function stageSources(): string {
  staged = mkdtempSync(join(tmpdir(), 'rein-eng-'));
  for (const part of ['src-main/index.ts', 'src-main/electron', 'src-preload', 'src-renderer']) {
    cpSync(join(ROOT, part), join(staged, part), { recursive: true, filter: (src) => !src.includes('node_modules') });
  }
  return staged;
}

describe.runIf(!available && inCi)('electronegativity', () => {
  it('is installed under CI', () => {
    throw new Error(`${PACKAGE} is required under CI=true (a devDependency); install the project's devDependencies`);
  });
});

describe.skipIf(!available)(
  available ? 'electronegativity' : `electronegativity (skipped: ${PACKAGE} is not installed)`,
  () => {
    it('finds nothing of medium severity or above in the desktop app beyond the reviewed findings', () => {
      const electronVersion = (
        JSON.parse(readFileSync(join(ROOT, 'node_modules/electron/package.json'), 'utf8')) as { version: string }
      ).version;
      const r = spawnSync(
        process.execPath,
        [join(import.meta.dirname, 'electronegativityScan.mjs'), stageSources(), electronVersion],
        {
          cwd: ROOT,
          encoding: 'utf8',
          env: { ...process.env, LANG: 'en-US' },
          maxBuffer: 64 * 1024 * 1024,
        },
      );
      if (r.status !== 0) throw new Error(`electronegativity failed:\n${r.stderr}`);
      // The tool prints a notice ("Could not retrieve updated translations…": it is offline) before its JSON.
      const result = JSON.parse(r.stdout.slice(r.stdout.indexOf('{'))) as {
        errors: { file: string; message: string; tolerable: boolean }[];
        issues: Finding[];
      };

      // A file it could not parse was not checked at all. The shell, the preload and the entry must be
      // readable to it; for the page's files (where its TypeScript parsers may trip over newer syntax)
      // it is reported, not failed.
      const unparsed = result.errors.filter((e) => !e.tolerable);
      const mustParse = (file: string) => /(^|[/\\])(src-main|src-preload)[/\\]/.test(file);
      expect(unparsed.filter((e) => mustParse(e.file)).map((e) => `${e.file}: ${e.message}`)).toEqual([]);
      for (const e of unparsed.filter((x) => !mustParse(x.file)))
        console.warn(`electronegativity could not parse ${e.file}: ${e.message}`);

      const severe = result.issues.filter((i) => SEVERE.has(i.severity));
      const isAccepted = (i: Finding) => ACCEPTED.some((a) => a.id === i.id && a.file === i.file);
      const unexpected = severe
        .filter((i) => !isAccepted(i))
        .map((i) => `${i.severity} ${i.id} at ${i.file}:${i.line}: ${i.sample ?? ''} (${i.description ?? ''})`);
      expect(unexpected).toEqual([]);

      const stale = ACCEPTED.filter((a) => !severe.some((i) => i.id === a.id && i.file === a.file)).map(
        (a) => `${a.id} in ${a.file}`,
      );
      expect(stale, 'accepted findings that no longer occur: remove them here and in docs/desktop-shell.md').toEqual(
        [],
      );
    });
  },
);
