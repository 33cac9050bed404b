// Runs the project's real ESLint config (eslint.config.js) on small texts placed at chosen paths, so the
// layering rules are pinned by behaviour: a file under src-main/core that imports Electron or a higher
// layer is an error, while the same text in the shell is fine.
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../../..');
const eslint = new ESLint({ cwd: root });

/** Rule ids reported for `text` as if it lived at `filePath` (relative to the project root). */
async function rulesFiredAt(filePath: string, text: string): Promise<string[]> {
  const [result] = await eslint.lintText(text, { filePath: join(root, filePath) });
  if (!result) throw new Error('ESLint returned no result');
  return result.messages.map((m) => m.ruleId ?? `fatal: ${m.message}`);
}

const importsElectron = "import { app } from 'electron';\nexport const version = app.getVersion();\n";

describe('layering lint', () => {
  it('forbids electron in src-main/core', async () => {
    expect(await rulesFiredAt('src-main/core/config/probe.ts', importsElectron)).toEqual(['no-restricted-imports']);
  });

  it('allows the same import in src-main/electron and the Electron entry', async () => {
    expect(await rulesFiredAt('src-main/electron/probe.ts', importsElectron)).toEqual([]);
    expect(await rulesFiredAt('src-main/index.ts', importsElectron)).toEqual([]);
  });

  it('also catches require() and import() of electron outside the shell', async () => {
    const text = "export const a = require('electron');\nexport const b = await import('electron');\n";
    const fired = await rulesFiredAt('scripts/probe.ts', text);
    expect(fired.filter((r) => r === 'no-restricted-syntax')).toHaveLength(2);
  });

  it('forbids core from importing the Electron shell, the CLI, the preload or the page', async () => {
    const text = [
      "import { handle } from '../../electron/ipc.js';",
      "import { main } from '../../cli/index.js';",
      "import '../../../src-preload/index.js';",
      "export * from '../../../src-renderer/src/App.js';",
      'export { handle, main };',
      '',
    ].join('\n');
    expect(await rulesFiredAt('src-main/core/tools/probe.ts', text)).toEqual([
      'rein/layering',
      'rein/layering',
      'rein/layering',
      'rein/layering',
    ]);
  });

  it('forbids the shell, the CLI and the Electron entry from importing the page or the preload', async () => {
    const page = "import { httpCalls } from '../../src-renderer/src/api/daemonApi.js';\nexport { httpCalls };\n";
    const preload = "import '../../src-preload/index.js';\n";
    expect(await rulesFiredAt('src-main/electron/probe.ts', page)).toEqual(['rein/layering']);
    expect(await rulesFiredAt('src-main/cli/probe.ts', preload)).toEqual(['rein/layering']);
    expect(await rulesFiredAt('src-main/index.ts', "import '../src-renderer/src/App.js';\n")).toEqual([
      'rein/layering',
    ]);
  });

  it('lets the shell import the shared contract in core/api', async () => {
    const text = "import { httpCalls } from '../core/api/daemonCalls.js';\nexport { httpCalls };\n";
    expect(await rulesFiredAt('src-main/electron/probe.ts', text)).toEqual([]);
  });

  it('resolves paths: a folder named shell inside core is not the desktop shell', async () => {
    const text = "import { parse } from './shell/parse.js';\nexport { parse };\n";
    expect(await rulesFiredAt('src-main/core/permissions/probe.ts', text)).toEqual([]);
  });

  it('lets the page import the ReinApi contract and nothing else from src-main', async () => {
    const contract = "import type { ReinApi } from '../../src-main/core/api/index.js';\nexport type A = ReinApi;\n";
    const errors = "import { ReinError } from '../../src-main/core/errors.js';\nexport { ReinError };\n";
    expect(await rulesFiredAt('src-renderer/src/probe.ts', contract)).toEqual([]);
    expect(await rulesFiredAt('src-renderer/src/probe.ts', errors)).toEqual(['rein/layering']);
  });

  it('keeps the contract pure: core/api imports nothing else from core', async () => {
    const text = "import { paths } from '../config/paths.js';\nexport { paths };\n";
    expect(await rulesFiredAt('src-main/core/api/probe.ts', text)).toEqual(['rein/core-areas']);
  });

  it('forbids back-edges between core areas: tools does not import context, the service does not import the daemon', async () => {
    const context = "import { assembleSystem } from '../context/index.js';\nexport { assembleSystem };\n";
    const daemon = "import { startDaemon } from '../daemon/daemon.js';\nexport { startDaemon };\n";
    const desktop = "import { DesktopActivity } from '../desktop/activity.js';\nexport { DesktopActivity };\n";
    expect(await rulesFiredAt('src-main/core/tools/probe.ts', context)).toEqual(['rein/core-areas']);
    expect(await rulesFiredAt('src-main/core/service/probe.ts', daemon)).toEqual(['rein/core-areas']);
    expect(await rulesFiredAt('src-main/core/daemon/probe.ts', desktop)).toEqual(['rein/core-areas']);
  });

  it('allows the edges the table lists, and reports an area it does not know', async () => {
    const tools = "import { ToolRegistry } from '../tools/registry.js';\nexport { ToolRegistry };\n";
    expect(await rulesFiredAt('src-main/core/context/probe.ts', tools)).toEqual([]);
    expect(await rulesFiredAt('src-main/core/somewhere/probe.ts', 'export const x = 1;\n')).toEqual([
      'rein/core-areas',
    ]);
  });

  it('lets the triggers describe the service they run on (types), never call into it (values)', async () => {
    const types = "import type { BusListener } from '../service/eventBus.js';\nexport type L = BusListener;\n";
    const values = "import { EventBus } from '../service/eventBus.js';\nexport { EventBus };\n";
    expect(await rulesFiredAt('src-main/core/triggers/probe.ts', types)).toEqual([]);
    expect(await rulesFiredAt('src-main/core/triggers/probe.ts', values)).toEqual(['rein/core-areas']);
    // The service starts schedule runs, which live with the other triggers.
    const runs = "import { runSchedule } from '../triggers/scheduleRuns.js';\nexport { runSchedule };\n";
    expect(await rulesFiredAt('src-main/core/service/probe.ts', runs)).toEqual([]);
  });

  it('keeps the faces on the service: no values from the runtime or the harness, types are fine', async () => {
    const values =
      "import { createRuntime } from '../runtime/runtime.js';\nimport { executeToolCalls } from '../harness/executor.js';\nexport { createRuntime, executeToolCalls };\n";
    const facesRule = (fired: string[]) => fired.filter((r) => r === 'rein/faces-use-the-service');
    // (core-areas also keeps mcpServer/ out of harness/ altogether.)
    expect(facesRule(await rulesFiredAt('src-main/core/mcpServer/probe.ts', values))).toHaveLength(2);
    expect(
      await rulesFiredAt('src-main/core/daemon/probe.ts', "export { startRun } from '../runtime/runtime.js';\n"),
    ).toEqual(['rein/faces-use-the-service']);
    expect(
      await rulesFiredAt('src-main/electron/probe.ts', "export const m = await import('../core/harness/loop.js');\n"),
    ).toEqual(['rein/faces-use-the-service']);
    expect(
      await rulesFiredAt(
        'src-main/cli/commands/run.ts',
        "import { startRun } from '../../core/runtime/runtime.js';\nexport { startRun };\n",
      ),
    ).toEqual(['rein/faces-use-the-service']);
    const types =
      "import type { Runtime } from '../core/runtime/runtime.js';\nimport { type BatchOutcome } from '../core/harness/executor.js';\nexport type { Runtime, BatchOutcome };\n";
    expect(await rulesFiredAt('src-main/electron/probe.ts', types)).toEqual([]);
    // The service itself composes them, and so may the rest of the CLI for now.
    expect(facesRule(await rulesFiredAt('src-main/core/service/probe.ts', values))).toEqual([]);
  });
});

describe('one teardown word', () => {
  const restricted = (fired: string[]) => fired.filter((r) => r === 'no-restricted-syntax');

  it('refuses a close() of our own in src-main and takes dispose()', async () => {
    expect(await rulesFiredAt('src-main/core/service/probe.ts', 'export class A {\n  async close() {}\n}\n')).toEqual([
      'no-restricted-syntax',
    ]);
    expect(await rulesFiredAt('src-main/core/service/probe.ts', 'export class A {\n  async dispose() {}\n}\n')).toEqual(
      [],
    );
  });

  it('catches the other words and shapes, not data members or calls of APIs we do not own', async () => {
    const declared = [
      'export interface H {\n  close(): Promise<void>;\n  stop: () => void;\n}',
      'export class A {\n  teardown = () => undefined;\n}',
      'export const o = { shutdown() {}, destroy: () => undefined };',
      '',
    ].join('\n');
    expect(restricted(await rulesFiredAt('src-main/core/daemon/probe.ts', declared))).toHaveLength(5);
    const fine = [
      'export interface O {\n  closed: boolean;\n  stop?: Promise<void>;\n}',
      'export const end = { end: 3, close: true };',
      "import type { Server } from 'node:http';\nexport const shut = (s: Server) => s.close();",
      '',
    ].join('\n');
    expect(restricted(await rulesFiredAt('src-main/core/daemon/probe.ts', fine))).toEqual([]);
  });

  it('holds in the shell too, and only in src-main', async () => {
    const text = "export const e = await import('electron');\nexport class A {\n  close() {}\n}\n";
    expect(await rulesFiredAt('src-main/electron/probe.ts', text)).toEqual(['no-restricted-syntax']);
    expect(restricted(await rulesFiredAt('tests/unit/probe.ts', 'export class A {\n  close() {}\n}\n'))).toEqual([]);
  });

  it('keeps the Electron selectors in src-main (the two lists are merged, not replaced)', async () => {
    const text = "export const a = require('electron');\nexport class A {\n  close() {}\n}\n";
    expect(restricted(await rulesFiredAt('src-main/core/config/probe.ts', text))).toHaveLength(2);
  });

  it('lets an interface we must satisfy keep its close() with a reason', async () => {
    const text =
      'export class T {\n  // eslint-disable-next-line no-restricted-syntax -- the SDK Transport names it close()\n  async close() {}\n}\n';
    expect(await rulesFiredAt('src-main/core/mcpClient/probe.ts', text)).toEqual([]);
  });
});
