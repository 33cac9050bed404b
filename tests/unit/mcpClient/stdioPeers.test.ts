/**
 * The MCP client against the real npm servers over stdio: server-everything and server-filesystem
 * through the manager, its providers and tools, as a run uses them. The servers run through core's
 * process runner in their own process group; a server killed under us is reconnected on demand.
 */
import { getEventListeners } from 'node:events';
import { mkdir, writeFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { McpManager } from '../../../src-main/core/mcpClient/manager.js';
import { ELICITATION_SLOT } from '../../../src-main/core/mcpClient/elicitation.js';
import { sessionSlots } from '../../../src-main/core/tools/sessionSlots.js';
import { ToolSet } from '../../../src-main/core/tools/toolSet.js';
import { concurrencySafe, type Tool } from '../../../src-main/core/tools/tool.js';
import { useLeakCheck } from '../../support/leaks.js';
import { alive, EVERYTHING_BIN, everythingStdio, filesystemStdio } from '../../support/mcpPeers.js';
import { makeToolContext, type TempToolContext } from '../tools/toolTestContext.js';

useLeakCheck();

const signal = () => new AbortController().signal;
let managers: McpManager[] = [];
let temps: TempToolContext[] = [];

afterEach(async () => {
  await Promise.all(managers.map((m) => m.dispose()));
  await Promise.all(temps.map((t) => t.cleanup()));
  managers = [];
  temps = [];
});

function manager(
  servers: ConstructorParameters<typeof McpManager>[0]['servers'],
  timing?: ConstructorParameters<typeof McpManager>[0]['timing'],
): McpManager {
  const m = new McpManager({
    servers,
    env: process.env,
    home: '/nonexistent-rein-home',
    ...(timing ? { timing } : {}),
  });
  managers.push(m);
  return m;
}

async function context() {
  const t = await makeToolContext();
  temps.push(t);
  return t;
}

const byName = (tools: readonly Tool[], name: string) => {
  const t = tools.find((x) => x.name === name);
  if (!t) throw new Error(`no ${name} in ${tools.map((x) => x.name).join(', ')}`);
  return t;
};

describe('server-everything over stdio', () => {
  it('lists its tools as mcp__everything__*, with annotations as traits, and runs them', async () => {
    const m = manager({ everything: everythingStdio({ context: 'A test server.' }) });
    await m.ready();
    expect(m.status()[0]).toMatchObject({
      name: 'everything',
      state: 'healthy',
      sign_in_required: false,
      server: { name: 'mcp-servers/everything' },
    });
    const tools = await m.providers[0]!.tools();
    expect(tools.length).toBeGreaterThan(5);
    for (const t of tools) {
      expect(t.name).toMatch(/^mcp__everything__[a-zA-Z0-9_-]+$/);
      expect(t.source).toBe('mcp');
    }
    const echo = byName(tools, 'mcp__everything__echo');
    expect(echo.traits?.mcp).toEqual({ server: 'everything', tool: 'echo' });
    expect(echo.isReadOnly({})).toBe(true);
    expect(concurrencySafe(echo, {})).toBe(true);
    expect(byName(tools, 'mcp__everything__toggle-simulated-logging').isReadOnly({})).toBe(false);

    const { ctx } = await context();
    expect(await echo.call({ message: 'hi there' }, ctx, signal())).toEqual({ ok: true, content: 'Echo: hi there' });
    // A run's one signal serves every call: no call leaves a listener on it.
    const runSignal = signal();
    for (let i = 0; i < 12; i++) await echo.call({ message: `n${i}` }, ctx, runSignal);
    expect(getEventListeners(runSignal, 'abort')).toHaveLength(0);
    const image = await byName(tools, 'mcp__everything__get-tiny-image').call({}, ctx, signal());
    expect(image.ok).toBe(true);
    expect(image.images?.[0]?.mediaType).toBe('image/png');
    const ref = await byName(tools, 'mcp__everything__get-resource-reference').call(
      { resourceType: 'Text', resourceId: 2 },
      ctx,
      signal(),
    );
    expect(ref.content).toMatch(/\[resource: demo:\/\/resource\/\S+ \(text\/plain, \d+ characters\)\]/);
    const bad = await byName(tools, 'mcp__everything__get-sum').call({ a: 'x', b: 1 }, ctx, signal());
    expect(bad.ok).toBe(false);

    expect(m.context()).toEqual({ everything: 'A test server.' });
    expect(m.instructions().everything).toMatch(/Everything Server/);
  });

  it('the server’s progress notifications become the call’s progress reports', async () => {
    const m = manager({ everything: everythingStdio() });
    await m.ready();
    const { ctx } = await context();
    const reports: { message: string; data?: unknown }[] = [];
    const tool = byName(await m.providers[0]!.tools(), 'mcp__everything__trigger-long-running-operation');
    const r = await tool.call({ duration: 0.3, steps: 3 }, { ...ctx, progress: (p) => reports.push(p) }, signal());
    expect(r.ok).toBe(true);
    // The server reports each step as it starts the next (the last may come after the answer: dropped).
    expect(reports.map((p) => p.message).slice(0, 2)).toEqual(['1/3', '2/3']);
    expect(reports[0]!.data).toEqual({ progress: 1, total: 3 });
  });

  it('the same list gives the same tool objects (and so the same registry)', async () => {
    const m = manager({ everything: everythingStdio() });
    await m.ready();
    const set = new ToolSet(
      m.providers.map((p) => ({
        id: p.id,
        source: p.source,
        tools: () => p.tools(),
        onDidChange: (l: () => void) => p.onDidChange(l),
        dispose: () => undefined,
      })),
    );
    const r1 = await set.registry();
    const again = await m.servers[0]!.connection!.refreshTools();
    expect(again.length).toBe(r1.size);
    expect(await set.registry()).toBe(r1);
    set.dispose();
  });

  it('a question from the server goes to the run’s elicitor, and its answer back', async () => {
    const m = manager({ everything: everythingStdio() });
    await m.ready();
    const { ctx } = await context();
    const asked: unknown[] = [];
    sessionSlots(ctx).seed(ELICITATION_SLOT, async (req) => {
      asked.push(req);
      return { action: 'accept', content: { name: 'Ada', check: true, email: 'ada@example.com', integer: 7 } };
    });
    const tool = byName(await m.providers[0]!.tools(), 'mcp__everything__trigger-elicitation-request');
    const r = await tool.call({}, ctx, signal());
    expect(r.ok).toBe(true);
    expect(r.content).toMatch(/Ada/);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      server: 'everything',
      tool: 'mcp__everything__trigger-elicitation-request',
      message: expect.stringMatching(/provide inputs/),
    });
    // Without an elicitor the question is declined.
    const declined = await tool.call({}, (await context()).ctx, signal());
    expect(declined.content).toMatch(/declined/i);
  });

  it('a killed server is reconnected on demand by the next call', async () => {
    const m = manager({ everything: everythingStdio() });
    await m.ready();
    const h = m.servers[0]!;
    const pid1 = h.connection!.pid!;
    process.kill(-pid1, 'SIGKILL');
    await expect.poll(() => h.status().state, { timeout: 5_000 }).toBe('disconnected');
    expect(h.status().last_error).toMatch(/stopped by SIGKILL|closed/);
    const { ctx } = await context();
    const r = await byName(await h.tools(), 'mcp__everything__echo').call({ message: 'back' }, ctx, signal());
    expect(r).toEqual({ ok: true, content: 'Echo: back' });
    expect(h.connection!.pid).not.toBe(pid1);
    expect(h.status().state).toBe('healthy');
  });

  it('keep_alive: false stops an unused server; its tools stay listed and the next call starts it again', async () => {
    // Probed every 50 ms; "unused" after 200 ms instead of five minutes.
    const timing = { probeIntervalMs: 50, jitter: 0, idleCloseMs: 200 };
    const m = manager({ sleepy: everythingStdio({ keep_alive: false }), awake: everythingStdio() }, timing);
    await m.ready();
    const [awake, sleepy] = m.servers;
    const pid1 = sleepy!.connection!.pid!;
    await expect.poll(() => sleepy!.status().state, { timeout: 15_000 }).toBe('idle');
    await expect.poll(() => alive(pid1), { timeout: 15_000 }).toBe(false);
    expect(awake!.status().state).toBe('healthy');
    const tools = await sleepy!.tools();
    expect(tools.map((t) => t.name)).toContain('mcp__sleepy__echo');
    const { ctx } = await context();
    expect(await byName(tools, 'mcp__sleepy__echo').call({ message: 'awake again' }, ctx, signal())).toEqual({
      ok: true,
      content: 'Echo: awake again',
    });
    expect(sleepy!.status().state).toBe('healthy');
    expect(sleepy!.connection!.pid).not.toBe(pid1);
  });

  it('closing takes the server’s whole process group down (a shell wrapper and its child)', async () => {
    const m = manager({
      wrapped: {
        type: 'stdio',
        command: '/bin/sh',
        args: ['-c', `"${process.execPath}" "${EVERYTHING_BIN}" stdio; true`],
        env: {},
        disabled: false,
      },
    });
    await m.ready();
    const pgid = m.servers[0]!.connection!.pid!;
    expect(m.status()[0]!.state).toBe('healthy');
    await m.dispose();
    let groupAlive = true;
    try {
      process.kill(-pgid, 0);
    } catch {
      groupAlive = false;
    }
    expect(groupAlive).toBe(false);
    expect(alive(pgid)).toBe(false);
  });

  it('a server that cannot start is reported, and the others go on', async () => {
    const m = manager({
      everything: everythingStdio(),
      missing: { type: 'stdio', command: '/nonexistent/mcp-server', args: [], env: {}, disabled: false },
      off: { ...everythingStdio(), disabled: true },
      nocmd: { type: 'stdio', args: [], env: {}, disabled: false },
    });
    await m.ready();
    const byState = Object.fromEntries(m.status().map((s) => [s.name, s]));
    expect(byState.everything!.state).toBe('healthy');
    expect(byState.missing).toMatchObject({
      state: 'disconnected',
      last_error: expect.stringMatching(/could not be started/),
    });
    expect(byState.off!.state).toBe('disabled');
    expect(byState.nocmd).toMatchObject({
      state: 'disconnected',
      last_error: expect.stringMatching(/needs a command/),
    });
    expect(m.problems().join('\n')).toMatch(/missing is disconnected/);
    expect(await m.server('off')!.tools()).toEqual([]);
  });

  it('a slow server past its connect timeout fails in time', async () => {
    const m = manager({
      slow: {
        type: 'stdio',
        command: process.execPath,
        args: ['-e', 'setTimeout(() => {}, 60000)'],
        env: {},
        disabled: false,
        connect_timeout_seconds: 0.5,
      },
    });
    // It never answers: only the 0.5 s connect timeout ends the first attempt (the default is 30 s).
    await m.ready();
    expect(m.status()[0]).toMatchObject({
      state: 'disconnected',
      last_error: expect.stringMatching(/connect_timeout_seconds/),
    });
  });
});

describe('server-filesystem over stdio', () => {
  it('lists, reads and writes inside its root; its write tools are destructive', async () => {
    const { dir, ctx } = await context();
    await mkdir(`${dir}/sub`);
    await writeFile(`${dir}/hello.txt`, 'hello from the filesystem server\n');
    const m = manager({ files: filesystemStdio(dir) });
    await m.ready();
    const tools = await m.providers[0]!.tools();
    const read = byName(tools, 'mcp__files__read_text_file');
    const write = byName(tools, 'mcp__files__write_file');
    expect(read.isReadOnly({})).toBe(true);
    expect(write.isReadOnly({})).toBe(false);
    expect(write.isDestructive({})).toBe(true);
    const list = await byName(tools, 'mcp__files__list_directory').call({ path: dir }, ctx, signal());
    expect(list.content).toMatch(/\[FILE\] hello\.txt/);
    expect(list.content).toMatch(/\[DIR\] sub/);
    expect((await read.call({ path: `${dir}/hello.txt` }, ctx, signal())).content).toContain(
      'hello from the filesystem server',
    );
    expect((await write.call({ path: `${dir}/sub/new.txt`, content: 'written' }, ctx, signal())).ok).toBe(true);
    expect((await read.call({ path: `${dir}/sub/new.txt` }, ctx, signal())).content).toContain('written');
    const outside = await read.call({ path: '/etc/hostname' }, ctx, signal());
    expect(outside.ok).toBe(false);
  });
});
