import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, utimesSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditLog, maskSecrets, summarizeArgs, type AuditEntryInput } from '../../../src-main/core/audit/index.js';
import { paths } from '../../../src-main/core/config/paths.js';
import { isReinError } from '../../../src-main/core/errors.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const appendMany = fileURLToPath(new URL('./fixtures/appendMany.ts', import.meta.url));

let home: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'rein-audit-'));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

const entry = (over: Partial<AuditEntryInput> = {}): AuditEntryInput => ({
  session: 's-1',
  agent: 'default',
  source: 'cli',
  tool: 'bash',
  args: { command: 'ls -la' },
  decision: 'allow',
  layer: 'allowed',
  approved_by: 'policy',
  duration_ms: 12,
  ok: true,
  ...over,
});

const readLines = async (file: string) =>
  (await readFile(file, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('maskSecrets', () => {
  const table: Array<[string, string, string]> = [
    ['Anthropic key', 'export ANTHROPIC_KEY_X sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123', 'sk-ant-api03'],
    ['OpenAI project key', 'use sk-proj-abcDEF1234567890ghijkl now', 'sk-proj-abc'],
    ['AWS access key id', 'aws AKIAIOSFODNN7EXAMPLE configured', 'AKIAIOSFODNN7EXAMPLE'],
    [
      'GitHub classic token in a URL',
      'git clone https://ghp_abcdefghijklmnopqrstuvwxyz0123456789@github.com/x/y',
      'ghp_abc',
    ],
    ['GitHub fine-grained token', 'GH github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz', 'github_pat_11'],
    ['Slack bot token', 'slack xoxb-123456789012-abcdefghijkl', 'xoxb-1234'],
    ['Slack user token', 'slack xoxp-123456789012-abcdefghijkl', 'xoxp-1234'],
    ['Bearer header', 'curl -H "Authorization: Bearer abc.def-ghi_jkl" https://x', 'abc.def-ghi_jkl'],
    ['bare Bearer token', 'token is Bearer abcdefghijklmnop', 'abcdefghijklmnop'],
    ['password=', 'login password=hunter2&user=bob', 'hunter2'],
    ['--password=', 'mysql --password=hunter2 -u root', 'hunter2'],
    ['--password value', 'tool --password hunter2 -u root', 'hunter2'],
    ['JSON password', JSON.stringify({ password: 'hunter2', user: 'bob' }), 'hunter2'],
    ['JSON inside a command', JSON.stringify({ command: `curl -d '{"password":"hunter2"}' x` }), 'hunter2'],
    ['env assignment', 'export GITHUB_TOKEN=abc123def456', 'abc123def456'],
    ['YAML secret', 'db_password: "s3cr3t value"', 's3cr3t'],
    ['URL credentials', 'psql postgres://admin:Sup3rS3cret@db.local/app', 'Sup3rS3cret'],
    [
      'JWT',
      'jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
      'dozjgNryP4',
    ],
    [
      'PEM private key',
      '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----',
      'b3BlbnNzaC1rZXkt',
    ],
  ];
  it.each(table)('masks %s', (_name, text, secret) => {
    const masked = maskSecrets(text);
    expect(masked).not.toContain(secret);
    expect(masked).toContain('[REDACTED]');
  });

  it('keeps the surrounding text readable', () => {
    expect(maskSecrets('login password=hunter2&user=bob')).toBe('login password=[REDACTED]&user=bob');
    expect(maskSecrets(JSON.stringify({ password: 'x', user: 'bob' }))).toBe('{"password":"[REDACTED]","user":"bob"}');
    expect(maskSecrets('curl -H "Authorization: Bearer abcdefghij" x')).toBe('curl -H "Authorization: [REDACTED]" x');
  });

  it.each([
    'ls -la src/ && git status',
    'risk-assessment-framework-v2 task-force desk-lamp',
    '{"max_tokens":4096,"author":"Ann","token_count":5}',
    'grep -rn "password" src/',
    'AKIA123',
  ])('leaves ordinary text alone: %s', (text) => {
    expect(maskSecrets(text)).toBe(text);
  });
});

describe('argument summary', () => {
  it('is at most 500 characters and masks a key that straddles the cut', () => {
    const key = 'sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789';
    const text = `${'a'.repeat(480)} ${key} ${'b'.repeat(1000)}`;
    const summary = summarizeArgs({ command: text });
    expect(summary.length).toBe(500);
    expect(summary.endsWith('…')).toBe(true);
    expect(summary).not.toContain('sk-ant-api03-AbCd');
  });
});

describe('AuditLog', () => {
  it('writes one JSON line per entry at the audit path, with every field and secrets masked', async () => {
    const file = paths.auditLog(home);
    const log = new AuditLog(file);
    await log.append(entry({ args: { command: 'curl -H "Authorization: Bearer tok_1234567890" x' } }));
    await log.append(
      entry({ decision: 'deny', layer: 'hard_block', approved_by: null, duration_ms: null, ok: undefined }),
    );
    const lines = await readLines(file);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toEqual({
      time: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      session: 's-1',
      agent: 'default',
      source: 'cli',
      tool: 'bash',
      args: '{"command":"curl -H \\"Authorization: [REDACTED]\\" x"}',
      decision: 'allow',
      layer: 'allowed',
      approved_by: 'policy',
      duration_ms: 12,
      ok: true,
    });
    expect(lines[1]).toMatchObject({ decision: 'deny', layer: 'hard_block', approved_by: null, duration_ms: null });
    expect(lines[1]).not.toHaveProperty('ok');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('refuses a bad entry, naming the field, and writes nothing', async () => {
    const file = paths.auditLog(home);
    const log = new AuditLog(file);
    const err = await log.append({ ...entry(), decision: 'maybe' as 'allow' }).catch((e: unknown) => e);
    expect(isReinError(err, 'invalid_input')).toBe(true);
    expect((err as Error).message).toMatch(/decision: expected one of allow\|deny/);
    await expect(stat(file)).rejects.toThrow();
  });

  it('rotates at maxBytes and keeps five files, the newest lines intact and in order', async () => {
    const file = paths.auditLog(home);
    const log = new AuditLog(file, { maxBytes: 600, keep: 5 });
    const total = 60;
    for (let i = 0; i < total; i++) await log.append(entry({ session: `n${i}` }));
    const names = (await readdir(join(home, 'logs'))).filter((n) => n.endsWith('.jsonl')).sort();
    expect(names).toEqual(['audit.1.jsonl', 'audit.2.jsonl', 'audit.3.jsonl', 'audit.4.jsonl', 'audit.jsonl']);
    const kept: string[] = [];
    for (const f of [...log.files()].reverse()) {
      expect((await stat(f)).size).toBeLessThanOrEqual(600);
      kept.push(...(await readLines(f)).map((l) => String(l.session)));
    }
    // Oldest file first: what is kept is exactly the newest lines, in the order written.
    const firstKept = total - kept.length;
    expect(kept).toEqual(Array.from({ length: kept.length }, (_, i) => `n${firstKept + i}`));
    expect(kept.length).toBeGreaterThan(4 * 2);
  });

  it('loses nothing when several processes append at once (4 × 100)', async () => {
    const file = paths.auditLog(home);
    await runWorkers(file, 4, 100, 10 * 1024 * 1024, 5);
    const lines = await readLines(file);
    expect(lines).toHaveLength(400);
    expect(new Set(lines.map((l) => l.args)).size).toBe(400);
  });

  it('loses nothing, and rotates only full files, when several processes append across rotations', async () => {
    const file = paths.auditLog(home);
    await runWorkers(file, 4, 100, 4096, 1000);
    const all: Record<string, unknown>[] = [];
    const names = (await readdir(join(home, 'logs'))).filter((n) => n.endsWith('.jsonl'));
    let longestLine = 0;
    for (const name of names) {
      const text = await readFile(join(home, 'logs', name), 'utf8');
      for (const l of text.split('\n').filter(Boolean)) longestLine = Math.max(longestLine, Buffer.byteLength(l) + 1);
      all.push(...(await readLines(join(home, 'logs', name))));
    }
    expect(all).toHaveLength(400);
    const seen = new Set(all.map((l) => `${l.session}/${l.duration_ms}`));
    expect(seen.size).toBe(400);
    expect(names.length).toBeGreaterThan(5);
    // Each rotation happened exactly when needed: every rotated file is full, none over the limit. Two
    // processes rotating at once would leave a nearly empty file behind or overfill one.
    for (const name of names) {
      const size = (await stat(join(home, 'logs', name))).size;
      expect(size).toBeLessThanOrEqual(4096);
      if (name !== 'audit.jsonl') expect(size).toBeGreaterThan(4096 - longestLine);
    }
  });
});

describe('AuditLog under crashes', () => {
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const c of children.splice(0)) c.kill('SIGKILL');
  });

  /** The pid of a process that has exited (and been reaped). */
  async function deadPid(): Promise<number> {
    const child = spawn(process.execPath, ['-e', '0']);
    await new Promise((r) => child.on('exit', r));
    return child.pid!;
  }
  /** A process that stays alive until the test ends. */
  function livePid(): number {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)']);
    children.push(child);
    return child.pid!;
  }
  async function plantLock(file: string, owner: Record<string, unknown> | undefined): Promise<string> {
    const lock = `${file}.lock`;
    await mkdir(lock, { recursive: true });
    if (owner)
      await writeFile(
        join(lock, 'owner.json'),
        JSON.stringify({
          host: hostname(),
          nonce: 'planted',
          since: new Date().toISOString(),
          holder: 'rein run',
          ...owner,
        }),
      );
    return lock;
  }
  /** A clock that only the lock's pauses move on: what a wait would cost, without waiting. */
  function fakeTime() {
    const clock = { at: Date.now(), slept: 0, pauses: 0 };
    return {
      clock,
      lock: {
        now: () => clock.at,
        sleep: async (ms: number) => {
          clock.at += ms;
          clock.slept += ms;
          clock.pauses++;
        },
      },
    };
  }

  it('takes a lock left by a process that died at once: no pause, no 10 s wait', async () => {
    const file = paths.auditLog(home);
    await mkdir(dirname(file), { recursive: true });
    const lock = await plantLock(file, { pid: await deadPid() });
    const t = fakeTime();
    await new AuditLog(file, { lock: t.lock }).append(entry({ session: 'after-the-crash' }));
    expect(t.clock.pauses).toBe(0);
    expect((await readLines(file)).map((l) => l.session)).toEqual(['after-the-crash']);
    expect(existsSync(lock)).toBe(false);
  });

  it('waits for a live holder and then names it and the file', async () => {
    const file = paths.auditLog(home);
    await mkdir(dirname(file), { recursive: true });
    const pid = livePid();
    await plantLock(file, { pid });
    const t = fakeTime();
    const err = await new AuditLog(file, { lock: { ...t.lock, waitMs: 5_000 } })
      .append(entry())
      .catch((e: unknown) => e);
    expect(isReinError(err)).toBe(true);
    expect((err as Error).message).toBe(
      `could not write the audit log ${file}: the lock ${file}.lock is held by rein run (pid ${pid})`,
    );
    expect(t.clock.slept).toBeGreaterThanOrEqual(5_000);
    await expect(stat(file)).rejects.toThrow();
  });

  it('takes a live pid’s lock held far longer than an append takes (a reused pid), and a reused pid by its start time', async () => {
    const file = paths.auditLog(home);
    await mkdir(dirname(file), { recursive: true });
    const lock = await plantLock(file, { pid: livePid() });
    const old = (Date.now() - 60_000) / 1000;
    utimesSync(lock, old, old);
    const t = fakeTime();
    await new AuditLog(file, { lock: t.lock }).append(entry({ session: 'old-lock' }));
    expect(t.clock.pauses).toBe(0);
    if (process.platform === 'linux') {
      await plantLock(file, { pid: livePid(), start: '1' }); // the pid's process started at another time
      await new AuditLog(file, { lock: t.lock }).append(entry({ session: 'reused-pid' }));
      expect(t.clock.pauses).toBe(0);
    }
    expect((await readLines(file)).map((l) => l.session)).toEqual([
      'old-lock',
      ...(process.platform === 'linux' ? ['reused-pid'] : []),
    ]);
  });

  it('treats a lock naming nobody (an older Rein’s) as proper-lockfile did: stale after 10 s', async () => {
    const file = paths.auditLog(home);
    await mkdir(dirname(file), { recursive: true });
    await plantLock(file, undefined);
    const t = fakeTime();
    await new AuditLog(file, { lock: t.lock }).append(entry({ session: 'legacy' }));
    // About 10 s of the fake clock (less the moments between making the lock and the first look).
    expect(t.clock.slept).toBeGreaterThan(9_000);
    expect((await readLines(file)).map((l) => l.session)).toEqual(['legacy']);
  });

  it('ends a torn last line before the next append: the torn line stays as it was, the new one parses', async () => {
    const file = paths.auditLog(home);
    await mkdir(dirname(file), { recursive: true });
    const whole = JSON.stringify({ session: 'before' });
    const torn = '{"time":"2026-03-08T09:00:00.000Z","session":"cut-sh';
    await writeFile(file, `${whole}\n${torn}`);
    await new AuditLog(file).append(entry({ session: 'next' }));
    const lines = (await readFile(file, 'utf8')).split('\n');
    expect(lines.at(-1)).toBe('');
    expect(lines.slice(0, 2)).toEqual([whole, torn]);
    expect(JSON.parse(lines[2]!)).toMatchObject({ session: 'next' });
    expect(lines).toHaveLength(4);
  });

  it('ends a torn last line before rotating the file away', async () => {
    const file = paths.auditLog(home);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, `${'x'.repeat(500)}`);
    const log = new AuditLog(file, { maxBytes: 600 });
    await log.append(entry({ session: 'rotated-in' }));
    expect(await readFile(log.files()[1]!, 'utf8')).toBe(`${'x'.repeat(500)}\n`);
    expect((await readLines(file)).map((l) => l.session)).toEqual(['rotated-in']);
  });

  it('names the file when the append fails', async () => {
    await writeFile(join(home, 'logs'), 'a file where the folder should be');
    const file = paths.auditLog(home);
    const err = await new AuditLog(file).append(entry()).catch((e: unknown) => e);
    expect(isReinError(err)).toBe(true);
    expect((err as Error).message).toContain(`could not write the audit log ${file}: `);
  });
});

function runWorkers(file: string, workers: number, count: number, maxBytes: number, keep: number): Promise<void> {
  const runs = Array.from(
    { length: workers },
    (_, w) =>
      new Promise<void>((resolve, reject) => {
        const child = spawn(
          process.execPath,
          ['--import', 'tsx', appendMany, file, String(w), String(count), String(maxBytes), String(keep)],
          { cwd: repoRoot, stdio: ['ignore', 'ignore', 'pipe'] },
        );
        let stderr = '';
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        child.on('error', reject);
        child.on('close', (code) =>
          code === 0 ? resolve() : reject(new Error(`worker ${w} exited ${code}: ${stderr}`)),
        );
      }),
  );
  return Promise.all(runs).then(() => undefined);
}
