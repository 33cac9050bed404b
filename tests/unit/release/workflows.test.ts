/** The CI workflow that builds and tests Rein on a Mac and builds the Linux packages: the steps a release relies on. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const root = join(import.meta.dirname, '../../..');
const file = join(root, '.github/workflows/macos.yml');
const workflow = parse(readFileSync(file, 'utf8')) as {
  on: unknown;
  jobs: Record<
    string,
    { 'runs-on': string; steps: { name?: string; run?: string; uses?: string; 'working-directory'?: string }[] }
  >;
};
const runs = (job: string) =>
  workflow.jobs[job]!.steps.map((s) => `${s['working-directory'] ?? '.'}: ${s.run ?? s.uses ?? ''}`);

describe('.github/workflows/macos.yml', () => {
  it('runs on a push, a pull request and by hand', () => {
    expect(workflow.on).toMatchObject({ push: expect.anything(), pull_request: null, workflow_dispatch: null });
  });

  it('runs the macOS job on macOS 14 or later', () => {
    const version = /^macos-(\d+)$/.exec(workflow.jobs.macos!['runs-on'])?.[1];
    expect(Number(version)).toBeGreaterThanOrEqual(14);
  });

  it('installs with npm ci, builds and tests the Swift helper, runs the whole suite, packages, checks the fuses and the signature, and smoke-tests the app', () => {
    const steps = runs('macos');
    const index = (re: RegExp) => {
      const i = steps.findIndex((s) => re.test(s));
      expect(i, `no step matching ${re} in:\n${steps.join('\n')}`).toBeGreaterThanOrEqual(0);
      return i;
    };
    const order = [
      index(/^\.: npm ci$/),
      index(/^native\/ax_server\/macos: swift build$/),
      index(/^native\/ax_server\/macos: swift test$/),
      index(/^\.: npm test$/),
      index(/npm run dist:mac/),
      index(/npx @electron\/fuses read --app/),
      index(/npx vitest run tests\/e2e\/packaged/),
    ];
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    const fuseStep = steps[index(/npx @electron\/fuses read --app/)]!;
    expect(fuseStep).toContain('EnableNodeCliInspectArguments is Disabled');
    expect(fuseStep).toContain('codesign --verify --deep --strict');
    expect(existsSync(join(root, 'tests/e2e/packaged/packagedApp.test.ts'))).toBe(true);
  });

  it('packages unsigned: no signing secrets are read and nothing is published', () => {
    const text = readFileSync(file, 'utf8');
    expect(text).not.toMatch(/secrets\./);
    expect(text).not.toMatch(/REIN_PUBLISH: "1"|--publish always/);
  });

  it("builds the AppImage and the deb on Linux, checks their fuses and the deb's Python dependencies, and smoke-tests under Xvfb", () => {
    expect(workflow.jobs.linux!['runs-on']).toMatch(/^ubuntu-/);
    const steps = runs('linux').join('\n');
    expect(steps).toContain('npm ci');
    expect(steps).toContain('npm run dist:linux');
    expect(steps).toContain('npx @electron/fuses read --app dist/linux-unpacked/rein-desktop');
    expect(steps).toMatch(/dpkg-deb --field dist\/\*\.deb Depends.*python3-pyatspi/);
    expect(steps).toMatch(/xvfb-run -a npx vitest run tests\/e2e\/packaged/);
  });
});
