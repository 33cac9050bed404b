import { existsSync } from 'node:fs';
import { readFile, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { partition } from '../../../src-main/core/harness/execution/batch.js';
import type { Admitted } from '../../../src-main/core/harness/execution/types.js';
import { basicPolicy } from '../../../src-main/core/permissions/basicPolicy.js';
import { initShellParser } from '../../../src-main/core/permissions/shell/parser.js';
import { bashTool, type BashInput } from '../../../src-main/core/tools/builtin/bash.js';
import type { CommandClassifier, ToolContext } from '../../../src-main/core/tools/tool.js';
import { callTool, makeToolContext, processAlive, type TempToolContext } from './toolTestContext.js';

let t: TempToolContext;
beforeEach(async () => {
  t = await makeToolContext();
});
afterEach(async () => {
  await t.cleanup();
});

async function waitForFile(path: string): Promise<string> {
  for (let n = 0; n < 400; n++) {
    if (existsSync(path)) {
      const text = (await readFile(path, 'utf8')).trim();
      if (text) return text;
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`${path} never appeared`);
}

describe('bash tool', () => {
  it("gives the command Rein's environment without its credentials or secret-looking names, plus tools.env_passthrough", async () => {
    const saved = { ...process.env };
    Object.assign(process.env, {
      ANTHROPIC_API_KEY: 'sk-ant-bashleak-0123456789',
      ANTHROPIC_AUTH_TOKEN: 'auth-x',
      GH_TOKEN: 'gho_kept',
      NPM_TOKEN: 'npm_withheld',
      DATABASE_URL: 'postgres://u:pw@db/x',
    });
    try {
      const r = await callTool(bashTool, { command: 'env' }, { ...t.ctx, envPassthrough: ['GH_TOKEN'] });
      expect(r.ok).toBe(true);
      expect(r.content).toContain('GH_TOKEN=gho_kept');
      expect(r.content).toContain('PATH=');
      for (const leaked of ['sk-ant-bashleak', 'auth-x', 'npm_withheld', 'u:pw@'])
        expect(r.content).not.toContain(leaked);
      const bare = await callTool(bashTool, { command: 'printenv ANTHROPIC_API_KEY GH_TOKEN; echo "[$?]"' }, t.ctx);
      expect(bare.content.trim()).toBe('[1]');
    } finally {
      for (const k of ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'GH_TOKEN', 'NPM_TOKEN', 'DATABASE_URL']) {
        if (saved[k] === undefined) delete process.env[k];
        else process.env[k] = saved[k];
      }
    }
  });

  it('runs the command in the context working folder', async () => {
    const r = await callTool(bashTool, { command: 'pwd' }, t.ctx);
    expect(r.ok).toBe(true);
    expect(await realpath(r.content.trim())).toBe(t.dir);
  });

  it('returns stdout and stderr combined', async () => {
    const r = await callTool(bashTool, { command: 'echo to-out; echo to-err >&2' }, t.ctx);
    expect(r.ok).toBe(true);
    expect(r.content).toContain('to-out');
    expect(r.content).toContain('to-err');
  });

  it('reports a non-zero exit as an error with the exit status and the output', async () => {
    const r = await callTool(bashTool, { command: 'echo partial; exit 3' }, t.ctx);
    expect(r.ok).toBe(false);
    expect(r.errorKind).toBe('business');
    expect(r.content).toContain('exit status 3');
    expect(r.content).toContain('partial');
  });

  it('keeps the head and tail of output beyond 30,000 chars with a truncation marker', async () => {
    const r = await callTool(
      bashTool,
      { command: "printf START; head -c 100000 /dev/zero | tr '\\0' a; printf END" },
      t.ctx,
    );
    expect(r.ok).toBe(true);
    expect(r.content.startsWith('STARTaaa')).toBe(true);
    expect(r.content.endsWith('aaaEND')).toBe(true);
    // 100,008 chars in, 15,000 kept at each end.
    expect(r.content).toContain('... (70008 chars truncated) ...');
    expect(r.content.length).toBeLessThan(30_100);
  });

  it('on timeout kills the whole process group and returns the output so far as a transient error', async () => {
    const pidFile = join(t.dir, 'grandchild.pid');
    const r = await callTool(
      bashTool,
      { command: `echo started; sleep 300 & echo $! > ${pidFile}; wait`, timeout: 1 },
      t.ctx,
    );
    expect(r.ok).toBe(false);
    expect(r.errorKind).toBe('transient');
    expect(r.content).toContain('timed out after 1 s');
    expect(r.content).toContain('started');
    const grandchild = Number(await waitForFile(pidFile));
    expect(processAlive(grandchild)).toBe(false);
  });

  it('escalates to SIGKILL for processes that ignore SIGTERM', async () => {
    const pidFile = join(t.dir, 'stubborn.pid');
    const r = await callTool(
      bashTool,
      { command: `bash -c 'trap "" TERM; sleep 300' & echo $! > ${pidFile}; wait`, timeout: 1 },
      t.ctx,
    );
    expect(r.errorKind).toBe('transient');
    const stubborn = Number(await waitForFile(pidFile));
    expect(processAlive(stubborn)).toBe(false);
  });

  it('is cancelled through the AbortSignal and leaves no process behind', async () => {
    const pidFile = join(t.dir, 'cancel.pid');
    const controller = new AbortController();
    const pending = callTool(bashTool, { command: `sleep 300 & echo $! > ${pidFile}; wait` }, t.ctx, controller.signal);
    const grandchild = Number(await waitForFile(pidFile));
    expect(processAlive(grandchild)).toBe(true);
    controller.abort();
    const r = await pending;
    expect(r.ok).toBe(false);
    expect(r.errorKind).toBe('transient');
    expect(r.content).toContain('cancelled');
    expect(processAlive(grandchild)).toBe(false);
  });

  it('does not start when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const marker = join(t.dir, 'ran');
    const r = await callTool(bashTool, { command: `touch ${marker}` }, t.ctx, controller.signal);
    expect(r.errorKind).toBe('transient');
    expect(existsSync(marker)).toBe(false);
  });

  it('clamps a timeout above 600 s and says so', async () => {
    const r = await callTool(bashTool, { command: 'echo hi', timeout: 9999 }, t.ctx);
    expect(r.ok).toBe(true);
    expect(r.content).toContain('used 600 s');
    expect(r.content).toContain('hi');
  });

  it('says when a successful command printed nothing', async () => {
    const r = await callTool(bashTool, { command: 'true' }, t.ctx);
    expect(r).toEqual({ ok: true, content: '(no output)' });
  });

  it('refuses a working folder that does not exist', async () => {
    const r = await callTool(bashTool, { command: 'echo hi' }, { ...t.ctx, cwd: join(t.dir, 'missing') });
    expect(r.errorKind).toBe('validation');
  });

  it('rejects an empty command and unknown fields at the schema', () => {
    expect(bashTool.input.safeParse({ command: '' }).success).toBe(false);
    expect(bashTool.input.safeParse({ command: 'ls', cwd: '/' }).success).toBe(false);
  });
});

describe('bash safety hints', () => {
  beforeAll(async () => {
    await initShellParser();
  });
  const readOnly = [
    'ls -la',
    'cat README.md',
    'git status',
    'git log --oneline -5',
    'git branch -a',
    'rg foo src',
    'grep -rn foo .',
    'env',
    'tail -f app.log',
    'ls | wc -l',
    'ls \\\n -la',
  ];
  const notReadOnly = [
    'rm -rf build',
    'cat a > b',
    'echo $(whoami)',
    'ls; rm x',
    'git branch -D main',
    'git diff --output=x.patch',
    'env rm -rf x',
    'npm test',
    'FOO=1 ls',
    'rg --pre ./evil foo',
  ];
  it.each(readOnly)('treats %j as read-only', (command) => {
    expect(bashTool.isReadOnly({ command }, t.ctx)).toBe(true);
  });
  it.each(notReadOnly)('does not treat %j as read-only', (command) => {
    expect(bashTool.isReadOnly({ command }, t.ctx)).toBe(false);
  });

  it('never treats following a file or reading a device as concurrency-safe', () => {
    expect(bashTool.isConcurrencySafe!({ command: 'cat README.md' }, t.ctx)).toBe(true);
    expect(bashTool.isConcurrencySafe!({ command: 'tail -f app.log' }, t.ctx)).toBe(false);
    expect(bashTool.isConcurrencySafe!({ command: 'tail -n 5 -F app.log' }, t.ctx)).toBe(false);
    expect(bashTool.isConcurrencySafe!({ command: 'head -c 10 /dev/urandom' }, t.ctx)).toBe(false);
    expect(bashTool.isConcurrencySafe!({ command: 'cat /dev/tty' }, t.ctx)).toBe(false);
    expect(bashTool.isConcurrencySafe!({ command: 'rm x' }, t.ctx)).toBe(false);
  });

  it.each([
    'rm -rf build',
    'mv a b',
    'git reset --hard HEAD~1',
    'dd if=/dev/zero of=x',
    'mkfs.ext4 /dev/sda1',
    'echo hi > notes.txt',
    'find . -name "*.o" -delete',
    'git push --force origin main',
  ])('flags %j as destructive', (command) => {
    expect(bashTool.isDestructive({ command }, t.ctx)).toBe(true);
  });

  it.each(['ls -la', 'echo hi >> log.txt', 'make 2>&1', 'ls > /dev/null', 'git status', 'npm test'])(
    'does not flag %j as destructive',
    (command) => {
      expect(bashTool.isDestructive({ command }, t.ctx)).toBe(false);
    },
  );
});

describe('the bash tool classifies a command only with the classifier its context carries', () => {
  beforeAll(async () => {
    await initShellParser();
  });
  const calls = (commands: string[]): Admitted[] =>
    commands.map((command, index) => ({
      index,
      call: { id: `c${index}`, name: 'bash', input: { command } },
      tool: bashTool,
      input: { command } satisfies BashInput,
    }));
  const check = (ctx: ToolContext, command: string, classifyCommand?: CommandClassifier) =>
    basicPolicy({ classifyCommand }).check({
      tool: bashTool,
      input: { command },
      cwd: ctx.cwd,
      mode: 'default',
      source: 'test',
      origin: 'attended',
      agent: 'default',
    });

  it('without a classifier a command is unclassified: not read-only, not run beside others, destructive', async () => {
    // There is no process-wide fallback: loading the permission engine (toolTestContext imports it) registers nothing.
    const bare: ToolContext = { ...t.ctx, classifyCommand: undefined };
    for (const ctx of [bare, undefined]) {
      expect(bashTool.isReadOnly({ command: 'ls -la' }, ctx)).toBe(false);
      expect(bashTool.isConcurrencySafe!({ command: 'cat README.md' }, ctx)).toBe(false);
      expect(bashTool.isDestructive({ command: 'ls -la' }, ctx)).toBe(true);
    }
    // Two reads each run alone, and the simple policy asks about a plain `ls` as a high-risk call.
    expect(partition(calls(['ls', 'cat README.md']), bare).map((b) => b.length)).toEqual([1, 1]);
    expect(await check(bare, 'ls')).toMatchObject({ decision: 'ask', risk: 'high' });
    // The same calls with the context's classifier: one batch, allowed as read-only.
    expect(partition(calls(['ls', 'cat README.md']), t.ctx).map((b) => b.length)).toEqual([2]);
    expect(await check(t.ctx, 'ls', t.ctx.classifyCommand)).toMatchObject({ decision: 'allow', layer: 'read_only' });
  });

  it("uses the context's classifier, in the call's folder, and fails closed when it cannot answer", () => {
    const seen: string[] = [];
    const stub: CommandClassifier = (command, cwd) => {
      seen.push(`${cwd}: ${command}`);
      return { readOnly: true, concurrencySafe: true, destructive: false };
    };
    const ctx: ToolContext = { ...t.ctx, classifyCommand: stub };
    // The stub's verdict, not the engine's: the engine would call `rm -rf build` destructive.
    expect(bashTool.isReadOnly({ command: 'rm -rf build' }, ctx)).toBe(true);
    expect(bashTool.isDestructive({ command: 'rm -rf build' }, ctx)).toBe(false);
    expect(partition(calls(['rm -rf build', 'rm -rf dist']), ctx).map((b) => b.length)).toEqual([2]);
    expect(seen).toContain(`${t.dir}: rm -rf build`);
    expect(seen).toContain(`${t.dir}: rm -rf dist`);

    const unsure: ToolContext = { ...t.ctx, classifyCommand: () => undefined };
    const broken: ToolContext = {
      ...t.ctx,
      classifyCommand: () => {
        throw new Error('no parser');
      },
    };
    for (const c of [unsure, broken]) {
      expect(bashTool.isReadOnly({ command: 'ls' }, c)).toBe(false);
      expect(bashTool.isConcurrencySafe!({ command: 'ls' }, c)).toBe(false);
      expect(bashTool.isDestructive({ command: 'ls' }, c)).toBe(true);
    }
  });
});
