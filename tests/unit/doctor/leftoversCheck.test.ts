/**
 * `rein doctor` names what interrupted writes left in REIN_HOME — sessions' temp files not settled yet,
 * other files' temp files, what leftovers/ keeps — and changes none of it. Temp files of live
 * processes (writes in progress) are not counted.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { leftoversChecks } from '../../../src-main/core/doctor/leftoversCheck.js';

let home: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'rein-doctor-leftovers-'));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((r) => child.on('close', r));
  return child.pid!;
}

const ID = '2026-03-08-a1b2c3d4e5f6';

describe('the doctor on interrupted writes', () => {
  it('is ok with none, and counts no temp file of a live process', async () => {
    await mkdir(join(home, 'sessions'), { recursive: true });
    await writeFile(join(home, 'sessions', `.${ID}.json.${process.ppid}.0.tmp`), '{');
    expect(await leftoversChecks(home)).toEqual([
      { name: 'leftovers', status: 'ok', message: 'nothing left by writes that were interrupted' },
    ]);
  });

  it('names unsettled session saves, other files’ interrupted writes and what leftovers/ keeps, and changes nothing', async () => {
    const pid = await deadPid();
    const sessions = join(home, 'agents', 'ops', 'sessions');
    await mkdir(join(sessions, 'leftovers'), { recursive: true });
    await mkdir(join(home, 'agents', 'ops', 'memory'), { recursive: true });
    const sessionTemp = join(sessions, `.${ID}.json.${pid}.1.tmp`);
    await writeFile(sessionTemp, '{');
    const configTemp = join(home, `.config.yaml.${pid}.0.tmp`);
    await writeFile(configTemp, 'model: x\n');
    const memoryTemp = join(home, 'agents', 'ops', 'memory', `.MEMORY.md.${pid}.2.tmp`);
    await writeFile(memoryTemp, '- a fact\n');
    await writeFile(join(sessions, 'leftovers', `${ID}.json.replaced-2026-03-08T12-00-00-000Z`), '{}');
    const before = await readdir(sessions);

    const checks = await leftoversChecks(home);

    expect(checks.map((c) => [c.name, c.status])).toEqual([
      ['leftovers', 'warn'],
      ['leftovers', 'warn'],
      ['leftovers', 'warn'],
    ]);
    expect(checks[0]!.message).toBe(`1 interrupted save(s) of sessions not settled yet: ${sessionTemp}`);
    expect(checks[0]!.hint).toContain('rein sessions list');
    expect(checks[1]!.message).toContain(`${configTemp} (of ${join(home, 'config.yaml')})`);
    expect(checks[1]!.message).toContain(`${memoryTemp} (of ${join(home, 'agents', 'ops', 'memory', 'MEMORY.md')})`);
    expect(checks[2]!.message).toContain('1 file(s) kept in leftovers/');
    expect(await readdir(sessions)).toEqual(before);
  });
});
