/**
 * The daemon's last resort (issue 26, item 2): a rejection nobody handled — a full disk somewhere no
 * one catches it yet — is said on stderr with the file it is about, and the process keeps serving.
 * Without the handler Node ends the process (the daemon died this way, clients saw ECONNRESET).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const CHILD = join(import.meta.dirname, '..', '..', 'fixtures', 'daemon', 'lastResortChild.ts');

function run(mode: 'guarded' | 'bare'): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', CHILD, mode], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  proc.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  proc.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((ok) => proc.on('close', (code) => ok({ code, stdout, stderr })));
}

describe('keepServingOnUnhandledRejections', () => {
  it('says each unhandled failure with its file and keeps the process alive', async () => {
    const r = await run('guarded');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('still serving\n');
    expect(r.stderr).toContain(
      'rein daemon: a failure nobody handled (the daemon keeps serving): cannot write /home/me/.rein/daemon-routes.json: no space left on device\n',
    );
    expect(r.stderr).toContain(
      'rein daemon: a failure nobody handled (the daemon keeps serving): /home/me/.rein/audit.jsonl: EIO: i/o error, open\n',
    );
  });

  it('without it, the same rejection ends the process (what the handler is there for)', async () => {
    const r = await run('bare');
    expect(r.code).not.toBe(0);
    expect(r.stdout).toBe('');
  });
});
