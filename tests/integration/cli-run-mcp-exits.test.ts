/**
 * Every way `rein run` ends stops the stdio MCP servers it started for the run, and a run that cannot
 * begin ends at once. The servers are real (npm's server-everything, and a server that never answers),
 * each started through a small wrapper that writes its pid to a file first, so the test knows the very
 * process to look for after the command has gone: with the CLI gone a leftover would be reparented and
 * no longer a descendant of this test (the leak check also gets the owner tag, for what it can see).
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cliWorld, startRein, rein, type CliResult } from '../support/cli.js';
import type { FakeAnthropic } from '../support/fakeAnthropic.js';
import { useLeakCheck } from '../support/leaks.js';
import { EVERYTHING_BIN } from '../support/mcpPeers.js';
import { processGroupAlive } from '../../src-main/core/process/processGroup.js';

useLeakCheck();

let world: { fake: FakeAnthropic; home: string; cwd: string; env: NodeJS.ProcessEnv };

beforeEach(async () => {
  world = await cliWorld();
  // Orphans of the CLI carry the tag, so the leak check recognises them as this test's (leaks.ts).
  world.env.REIN_LEAK_CHECK_OWNER = process.env.REIN_LEAK_CHECK_OWNER;
  await mkdir(world.home, { recursive: true });
});
afterEach(async () => {
  await world.fake.close();
});

const pidFile = (name: string) => join(world.cwd, `${name}.pid`);

/** mcp_servers entries: `everything` (real, answers) and, with `hung`, a server that never answers. */
async function configure(o: { hung?: boolean } = {}) {
  const everything = join(world.cwd, 'everything.mjs');
  await writeFile(
    everything,
    // It outlives the end of its stdin (as many servers do): only a signal stops it, so Rein must send one.
    `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(pidFile('everything'))}, String(process.pid));\nsetInterval(() => undefined, 60_000);\nawait import(${JSON.stringify(pathToFileURL(EVERYTHING_BIN).href)});\n`,
  );
  const hung = join(world.cwd, 'hung.mjs');
  await writeFile(
    hung,
    `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(pidFile('hung'))}, String(process.pid));\nsetInterval(() => undefined, 60_000);\n`,
  );
  let yaml = `mcp_servers:\n  everything:\n    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(everything)}, stdio]\n`;
  if (o.hung)
    yaml += `  hung:\n    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(hung)}]\n    connect_timeout_seconds: 120\n`;
  await writeFile(join(world.home, 'config.yaml'), yaml);
}

/** The server's pid, written when it started (so the test cannot pass without a server to stop). */
function serverPid(name: string): number {
  expect(existsSync(pidFile(name)), `the ${name} MCP server was started`).toBe(true);
  return Number(readFileSync(pidFile(name), 'utf8'));
}

async function waitFor(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    if (cond()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/**
 * The server (the leader of its own process group) and anything it started are gone: at once when the CLI
 * awaited them, within moments when it signalled them on its way out. Zombies do not count (processGroup.ts).
 */
async function expectGone(pid: number): Promise<void> {
  for (let i = 0; i < 100 && processGroupAlive(pid); i++) await new Promise((r) => setTimeout(r, 20));
  expect(processGroupAlive(pid), `MCP server ${pid} is still running`).toBe(false);
}

describe('rein run stops its MCP servers on every way out', () => {
  it('an unknown --session exits 1 at once, naming the session, and stops the servers it started', async () => {
    await configure();
    const r = await rein(['run', '--session', '2026-01-01-000000000000', 'hi'], { env: world.env, cwd: world.cwd });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no session 2026-01-01-000000000000');
    await expectGone(serverPid('everything'));
    expect(world.fake.requests).toHaveLength(0);
  });

  it('a damaged session file exits non-zero and stops the servers', async () => {
    await configure();
    await mkdir(join(world.home, 'sessions'), { recursive: true });
    await writeFile(join(world.home, 'sessions', '2026-01-01-0123456789ab.json'), '{ not json');
    const r = await rein(['run', '--session', '2026-01-01-0123456789ab', 'hi'], { env: world.env, cwd: world.cwd });
    expect(r.code).not.toBe(0);
    expect(r.code).not.toBeNull();
    await expectGone(serverPid('everything'));
  });

  it('SIGTERM while a server is still starting ends the command at once, and no server is left', async () => {
    await configure({ hung: true });
    const { child, done } = startRein(['run', 'hi'], { env: world.env, cwd: world.cwd });
    await waitFor(() => existsSync(pidFile('hung')) && existsSync(pidFile('everything')), 'both servers to start');
    child.kill('SIGTERM');
    const r: CliResult = await done;
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('SIGTERM: the run was stopped before it started');
    // Not after the 120 s connect timeout and not at the stop deadline's forced exit: the runtime stopped waiting.
    expect(r.stderr).not.toContain('did not stop within');
    await expectGone(serverPid('hung'));
    await expectGone(serverPid('everything'));
    expect(world.fake.requests).toHaveLength(0);
  });

  it('SIGTERM during the model turn cancels the run and stops the servers', async () => {
    await configure();
    world.fake.enqueue({ kind: 'stall' });
    const { child, done } = startRein(['run', 'wait'], { env: world.env, cwd: world.cwd });
    await waitFor(() => world.fake.requests.length > 0, 'the model call');
    child.kill('SIGTERM');
    const r = await done;
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('(cancelled)');
    await expectGone(serverPid('everything'));
  });

  it('a reader that closes the pipe ends the command quietly, and the servers with it', async () => {
    await configure();
    world.fake.enqueue({ kind: 'stall' });
    const { child, done } = startRein(['run', '--json', 'wait'], { env: world.env, cwd: world.cwd });
    // The reader goes away before the first event: the CLI's first write (session_start) meets EPIPE.
    child.stdout!.destroy();
    const r = await done;
    expect(r.code).toBe(0);
    expect(r.stderr).not.toMatch(/EPIPE|Error/);
    await expectGone(serverPid('everything'));
  });
});
