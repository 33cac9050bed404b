import { mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { logDirFor, logFileFor, RotatingLog } from '../../../src-main/core/desktop/logFile.js';

describe('the app log file', () => {
  it('lives in ~/Library/Logs/Rein on macOS, the XDG state folder elsewhere, or REIN_LOG_DIR', () => {
    expect(logFileFor('darwin', { HOME: '/Users/ada' })).toBe('/Users/ada/Library/Logs/Rein/rein.log');
    expect(logFileFor('linux', { HOME: '/home/ada' })).toBe('/home/ada/.local/state/rein/rein.log');
    expect(logDirFor('linux', { HOME: '/home/ada', XDG_STATE_HOME: '/home/ada/state' })).toBe('/home/ada/state/rein');
    // A relative XDG_STATE_HOME is ignored, as the spec says.
    expect(logDirFor('linux', { HOME: '/home/ada', XDG_STATE_HOME: 'state' })).toBe('/home/ada/.local/state/rein');
    expect(logDirFor('darwin', { HOME: '/Users/ada', REIN_LOG_DIR: '/tmp/rein-logs' })).toBe('/tmp/rein-logs');
  });

  it('appends one line per message (the folder made on first use), and rotates past its size, keeping a few', async () => {
    const dir = join(await mkdtemp(join(tmpdir(), 'rein-log-')), 'Logs', 'Rein');
    const file = join(dir, 'rein.log');
    const log = new RotatingLog(file, { maxBytes: 200, keep: 2, now: () => new Date('2026-01-02T03:04:05.000Z') });
    log.write('warn', 'first\nsecond line');
    expect(await readFile(file, 'utf8')).toBe('2026-01-02T03:04:05.000Z warn first\n    second line\n');
    for (let i = 0; i < 20; i++) log.write('warn', `message ${i} ${'x'.repeat(40)}`);
    expect((await readdir(dir)).sort()).toEqual(['rein.log', 'rein.log.1', 'rein.log.2']);
    for (const f of ['rein.log', 'rein.log.1', 'rein.log.2'])
      expect((await readFile(join(dir, f))).length).toBeLessThanOrEqual(200);
    expect(await readFile(file, 'utf8')).toContain('message 19');
  });

  it('never stops the app when it cannot write: says so once on stderr', async () => {
    const root = await mkdtemp(join(tmpdir(), 'rein-log-'));
    const blocked = join(root, 'file-not-folder');
    await writeFile(blocked, '');
    const said: string[] = [];
    const log = new RotatingLog(join(blocked, 'rein.log'), { stderr: (t) => said.push(t) });
    log.write('warn', 'a');
    log.write('warn', 'b');
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/cannot be written/);
  });
});
