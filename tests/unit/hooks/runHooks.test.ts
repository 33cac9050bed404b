import { readFileSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  IN_HOOK_ENV,
  matchesTool,
  runHooks,
  StopHookGate,
  type HookLogEntry,
  type HookPayload,
} from '../../../src-main/core/hooks/index.js';

let dir: string;
let logs: HookLogEntry[];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rein-hooks-'));
  logs = [];
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A real executable bash script in the temp dir; returns the command that runs it. */
async function hook(name: string, body: string): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, `#!/usr/bin/env bash\n${body}\n`);
  await chmod(file, 0o755);
  return `'${file}'`;
}

const opts = (extra: { timeoutMs?: number } = {}) => ({ cwd: dir, log: (e: HookLogEntry) => logs.push(e), ...extra });
const bashCall = (command: string): HookPayload => ({
  session_id: 's-1',
  agent: 'default',
  tool: 'bash',
  input: { command },
});

/** A killed process whose new parent never reaps it stays a zombie: dead, though kill(pid, 0) still succeeds. */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    // No /proc (macOS), or the process is gone.
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('PreToolUse', () => {
  it('denies with the hook stderr as the reason when it exits 2, and gets the event as JSON on stdin', async () => {
    const cmd = await hook('guard.sh', `cat > "${dir}/event.json"\necho "no deploys on Friday" >&2\nexit 2`);
    const out = await runHooks('PreToolUse', [{ command: cmd }], bashCall('git push'), opts());
    expect(out.deny).toEqual({ reason: 'no deploys on Friday', command: cmd });
    const event = JSON.parse(await readFile(join(dir, 'event.json'), 'utf8'));
    expect(event).toMatchObject({
      event: 'PreToolUse',
      session_id: 's-1',
      agent: 'default',
      tool: 'bash',
      input: { command: 'git push' },
      cwd: dir,
    });
  });

  it('denies when the hook answers {"decision":"deny"} and stops at the first denial', async () => {
    const deny = await hook('deny.sh', `echo '{"decision":"deny","reason":"rm is not allowed here"}'`);
    const after = await hook('after.sh', `touch "${dir}/ran-after"`);
    const out = await runHooks('PreToolUse', [{ command: deny }, { command: after }], bashCall('rm x'), opts());
    expect(out.deny?.reason).toBe('rm is not allowed here');
    await expect(readFile(join(dir, 'ran-after'))).rejects.toThrow();
  });

  it('replaces the input when the hook answers {"input":…}, and the next hook sees the new input', async () => {
    const modify = await hook('modify.sh', `echo '{"input":{"command":"ls -la --color=never"}}'`);
    const observe = await hook('observe.sh', `cat > "${dir}/seen.json"`);
    const out = await runHooks('PreToolUse', [{ command: modify }, { command: observe }], bashCall('ls'), opts());
    expect(out.deny).toBeUndefined();
    expect(out.input).toEqual({ command: 'ls -la --color=never' });
    const seen = JSON.parse(await readFile(join(dir, 'seen.json'), 'utf8'));
    expect(seen.input).toEqual({ command: 'ls -la --color=never' });
  });

  it('lets the call proceed when a hook fails with another exit code, and logs the failure', async () => {
    const broken = await hook('broken.sh', `echo "jq: command not found" >&2\nexit 127`);
    const out = await runHooks('PreToolUse', [{ command: broken }], bashCall('ls'), opts());
    expect(out.deny).toBeUndefined();
    expect(out.input).toBeUndefined();
    expect(out.runs[0]!.failure).toMatch(/exited with code 127: jq: command not found/);
    expect(logs).toEqual([expect.objectContaining({ level: 'warning', event: 'PreToolUse', command: broken })]);
  });

  it('ignores a JSON answer of the wrong shape, naming the field, and proceeds', async () => {
    const odd = await hook('odd.sh', `echo '{"decision":"maybe","input":"ls"}'`);
    const out = await runHooks('PreToolUse', [{ command: odd }], bashCall('ls'), opts());
    expect(out.deny).toBeUndefined();
    expect(out.input).toBeUndefined();
    expect(out.runs[0]!.failure).toMatch(/decision: expected one of allow\|deny\|block\|continue/);
    expect(out.runs[0]!.failure).toMatch(/input: /);
  });

  it('treats plain-text stdout as no answer', async () => {
    const chatty = await hook('chatty.sh', `echo "checking bash call..."`);
    const out = await runHooks('PreToolUse', [{ command: chatty }], bashCall('ls'), opts());
    expect(out).toMatchObject({ context: [], runs: [{ exitCode: 0 }] });
    expect(out.deny).toBeUndefined();
    expect(out.runs[0]!.failure).toBeUndefined();
  });

  it('kills a hook that runs past its timeout, with everything it started, and proceeds', async () => {
    const slow = await hook('slow.sh', `sleep 30 &\necho $! > "${dir}/child.pid"\nwait`);
    const out = await runHooks('PreToolUse', [{ command: slow }], bashCall('ls'), opts({ timeoutMs: 300 }));
    expect(out.deny).toBeUndefined();
    expect(out.runs[0]).toMatchObject({ timedOut: true, exitCode: null });
    expect(out.runs[0]!.failure).toMatch(/timed out after 300 ms/);
    expect(logs[0]).toMatchObject({ level: 'warning', message: expect.stringMatching(/timed out/) });
    const childPid = Number((await readFile(join(dir, 'child.pid'), 'utf8')).trim());
    expect(alive(childPid)).toBe(false);
  });

  it("uses the entry's own timeout (seconds) over the default", async () => {
    const slow = await hook('slow2.sh', `sleep 30`);
    const out = await runHooks(
      'PreToolUse',
      [{ command: slow, timeout: 0.2 }],
      bashCall('ls'),
      opts({ timeoutMs: 60_000 }),
    );
    expect(out.runs[0]!.failure).toMatch(/timed out after 200 ms/);
  });

  it('stops running hooks when the run is cancelled', async () => {
    const slow = await hook('slow3.sh', `sleep 30`);
    const never = await hook('never.sh', `touch "${dir}/never.ran"`);
    const ctrl = new AbortController();
    const pending = runHooks('PreToolUse', [{ command: slow }, { command: never }], bashCall('ls'), {
      ...opts(),
      signal: ctrl.signal,
    });
    ctrl.abort();
    const out = await pending;
    expect(out.runs).toHaveLength(1);
    expect(out.runs[0]!.failure).toBe('cancelled');
    await expect(readFile(join(dir, 'never.ran'))).rejects.toThrow();
  });

  it('reports a hook that cannot start (missing working folder) without throwing', async () => {
    const out = await runHooks('PreToolUse', [{ command: 'true' }], bashCall('ls'), {
      cwd: join(dir, 'nope'),
      log: (e) => logs.push(e),
    });
    expect(out.deny).toBeUndefined();
    expect(out.runs[0]!.failure).toMatch(/could not start/);
  });
});

describe('the environment of a hook', () => {
  it("leaves out Rein's credentials and secret-looking names, except those tools.env_passthrough names", async () => {
    const saved = { ...process.env };
    Object.assign(process.env, {
      ANTHROPIC_API_KEY: 'sk-ant-hookleak-0123456789',
      REIN_DAEMON_TOKEN: 'daemon-token-x',
      SLACK_TOKEN: 'xoxb-kept',
      DB_PASSWORD: 'hunter2',
    });
    try {
      const out = join(dir, 'env.txt');
      const cmd = await hook('env.sh', `env > '${out}'`);
      await runHooks('PreToolUse', [{ command: cmd }], bashCall('ls'), {
        ...opts(),
        envPassthrough: ['SLACK_TOKEN', 'ANTHROPIC_API_KEY'],
      });
      const env = await readFile(out, 'utf8');
      expect(env).toContain('SLACK_TOKEN=xoxb-kept');
      expect(env).toContain('REIN_HOOK_EVENT=PreToolUse');
      expect(env).toContain('PATH=');
      // Rein's own credentials never pass, even when the allow-list names them.
      expect(env).not.toContain('sk-ant-hookleak');
      expect(env).not.toContain('daemon-token-x');
      expect(env).not.toContain('hunter2');
    } finally {
      for (const k of ['ANTHROPIC_API_KEY', 'REIN_DAEMON_TOKEN', 'SLACK_TOKEN', 'DB_PASSWORD']) {
        if (saved[k] === undefined) delete process.env[k];
        else process.env[k] = saved[k];
      }
    }
  });
});

describe('matchers', () => {
  it('matches exact names, globs and alternatives; empty matches everything', () => {
    expect(matchesTool(undefined, 'bash')).toBe(true);
    expect(matchesTool('', 'bash')).toBe(true);
    expect(matchesTool('*', 'mcp__github__create_issue')).toBe(true);
    expect(matchesTool('bash', 'bash')).toBe(true);
    expect(matchesTool('bash', 'bash_background')).toBe(false);
    expect(matchesTool('file_*', 'file_write')).toBe(true);
    expect(matchesTool('file_*', 'grep')).toBe(false);
    expect(matchesTool('bash | file_write', 'file_write')).toBe(true);
    expect(matchesTool('bash|file_write', 'file_read')).toBe(false);
    expect(matchesTool('mcp__github__*|bash', 'mcp__github__create_issue')).toBe(true);
    // Session events have no tool: every entry applies.
    expect(matchesTool('bash', undefined)).toBe(true);
  });

  it('runs only the entries whose matcher matches the tool', async () => {
    const mark = (name: string) => hook(`${name}.sh`, `touch "${dir}/${name}.ran"`);
    const entries = [
      { matcher: 'bash', command: await mark('exact') },
      { matcher: 'file_*', command: await mark('glob') },
      { matcher: 'grep|bash', command: await mark('alt') },
      { command: await mark('all') },
    ];
    const out = await runHooks(
      'PostToolUse',
      entries,
      { ...bashCall('ls'), result: { ok: true, content: 'x' } },
      opts(),
    );
    expect(out.runs.map((r) => r.command)).toEqual([entries[0]!.command, entries[2]!.command, entries[3]!.command]);
    await expect(readFile(join(dir, 'glob.ran'))).rejects.toThrow();
  });
});

describe('PostToolUse, SessionStart, Stop', () => {
  it('PostToolUse sees the result; its failures are logged and change nothing', async () => {
    const observe = await hook('post.sh', `cat > "${dir}/post.json"\nexit 1`);
    const payload = { ...bashCall('ls'), result: { ok: true, content: 'a\nb' } };
    const out = await runHooks('PostToolUse', [{ command: observe }], payload, opts());
    expect(JSON.parse(await readFile(join(dir, 'post.json'), 'utf8')).result).toEqual({ ok: true, content: 'a\nb' });
    expect(out.deny).toBeUndefined();
    expect(out.runs[0]!.failure).toMatch(/exited with code 1/);
    expect(logs).toHaveLength(1);
  });

  it('SessionStart collects context text from hooks, in order', async () => {
    const a = await hook('a.sh', `echo '{"context":"Today is release day."}'`);
    const b = await hook('b.sh', `echo '{"context":"  The repo uses pnpm.  "}'`);
    const c = await hook('c.sh', `echo '{}'`);
    const out = await runHooks(
      'SessionStart',
      [{ command: a }, { command: b }, { command: c }],
      { session_id: 's', agent: 'a' },
      opts(),
    );
    expect(out.context).toEqual(['Today is release day.', 'The repo uses pnpm.']);
  });

  it('Stop blocks with a message from JSON, or from stderr on exit 2', async () => {
    const json = await hook('stop.sh', `echo '{"decision":"block","message":"Run the tests before finishing."}'`);
    const out = await runHooks('Stop', [{ command: json }], { session_id: 's', agent: 'a' }, opts());
    expect(out.block).toEqual({ message: 'Run the tests before finishing.', command: json });
    const exit2 = await hook('stop2.sh', `echo "lint is failing" >&2\nexit 2`);
    const out2 = await runHooks('Stop', [{ command: exit2 }], { session_id: 's', agent: 'a' }, opts());
    expect(out2.block?.message).toBe('lint is failing');
    const quiet = await hook('stop3.sh', `exit 0`);
    expect(
      (await runHooks('Stop', [{ command: quiet }], { session_id: 's', agent: 'a' }, opts())).block,
    ).toBeUndefined();
  });

  it('tells the hook it runs inside Rein, and a Rein inside a hook runs no hooks', async () => {
    const env = await hook('env.sh', `echo "$${IN_HOOK_ENV} $REIN_HOOK_EVENT $REIN_SESSION_ID" > "${dir}/env.txt"`);
    await runHooks('SessionStart', [{ command: env }], { session_id: 's-9', agent: 'a' }, opts());
    expect((await readFile(join(dir, 'env.txt'), 'utf8')).trim()).toBe('1 SessionStart s-9');

    const deny = await hook('deny2.sh', `exit 2`);
    process.env[IN_HOOK_ENV] = '1';
    try {
      const out = await runHooks('PreToolUse', [{ command: deny }], bashCall('ls'), opts());
      expect(out.deny).toBeUndefined();
      expect(out.runs).toEqual([]);
      expect(logs[0]).toMatchObject({ level: 'info', message: expect.stringMatching(/inside a hook/) });
    } finally {
      delete process.env[IN_HOOK_ENV];
    }
  });
});

describe('StopHookGate', () => {
  it('honours a block at most once per turn', () => {
    const gate = new StopHookGate();
    expect(gate.allowBlock()).toBe(true);
    expect(gate.allowBlock()).toBe(false);
    gate.beginTurn();
    expect(gate.allowBlock()).toBe(true);
  });

  it('honours at most three blocks per run, whatever the turns', () => {
    const gate = new StopHookGate();
    const allowed = [];
    for (let turn = 0; turn < 5; turn++) {
      gate.beginTurn();
      allowed.push(gate.allowBlock());
    }
    expect(allowed).toEqual([true, true, true, false, false]);
    expect(gate.blocksThisRun).toBe(3);
  });
});
