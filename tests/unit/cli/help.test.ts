/** `rein --help` names every command `rein` has, so a newcomer finds each one from there. */
import { describe, expect, it } from 'vitest';
import { COMMAND_NAMES, HELP, main } from '../../../src-main/cli/index.js';
import type { CliIo } from '../../../src-main/cli/io.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';

function io(env: NodeJS.ProcessEnv = {}): { io: CliIo; out: () => string } {
  const stdout = new PassThrough();
  let out = '';
  stdout.on('data', (d: Buffer) => (out += d.toString()));
  const stdin = new PassThrough();
  stdin.end();
  return {
    io: { stdin, stdout, stderr: new PassThrough(), env, cwd: process.cwd() } as unknown as CliIo,
    out: () => out,
  };
}

describe('rein --help', () => {
  it('has a usage line for every command in the dispatch table', () => {
    expect(COMMAND_NAMES.length).toBeGreaterThan(10);
    const usage = HELP.slice(HELP.indexOf('Usage:'), HELP.indexOf('rein run options:'));
    for (const name of COMMAND_NAMES)
      expect(usage, `rein ${name} is missing from rein --help`).toMatch(new RegExp(`^ {2}rein ${name}\\b`, 'm'));
  });

  it('names what a newcomer looks for: agents, sessions, memory, permissions, doctor --online, changes', () => {
    for (const text of [
      'rein agents',
      'rein sessions',
      'rein memory',
      'rein permissions check',
      'rein doctor [--online]',
      'rein changes',
    ])
      expect(HELP).toContain(text);
  });

  it('every command it names answers `rein COMMAND --help` with exit code 0 and some usage', async () => {
    const home = await mkdtemp(join(tmpdir(), 'rein-help-'));
    try {
      for (const name of COMMAND_NAMES) {
        const t = io({ REIN_HOME: home, HOME: home });
        expect(await main([name, '--help'], t.io), `rein ${name} --help`).toBe(0);
        expect(t.out(), `rein ${name} --help`).toMatch(/usage|rein /i);
      }
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it('is what `rein --help` prints, with exit code 0', async () => {
    const t = io();
    expect(await main(['--help'], t.io)).toBe(0);
    expect(t.out()).toBe(HELP);
  });
});
