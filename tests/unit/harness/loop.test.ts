import { existsSync, readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { tmpdir } from 'node:os';
import { createPermissionEngine } from '../../../src-main/core/permissions/engine.js';
import { Inbox } from '../../../src-main/core/harness/inbox.js';
import { CONTINUE_PROMPT } from '../../../src-main/core/harness/loop.js';
import { countBreakpoints } from '../../../src-main/core/llm/cacheBreakpoints.js';
import {
  startFakeAnthropic,
  stripCacheControl,
  text,
  toolCall,
  tools,
  type FakeAnthropic,
} from '../../support/fakeAnthropic.js';
import { face, lastToolResults, runWith, testTool } from '../../support/harness.js';

let fake: FakeAnthropic;
beforeEach(async () => {
  fake = await startFakeAnthropic();
});
afterEach(async () => {
  await fake.close();
});

describe('agent loop', () => {
  it('answers without tools: one request, final stop, session saved with user and assistant turns', async () => {
    fake.enqueue(text('All good.'));
    const { events, outcome, session, store } = await runWith(fake, { prompt: 'how are you?' });
    expect(outcome.stopReason).toBe('final');
    expect(outcome.text).toBe('All good.');
    expect(events[0]!.type).toBe('session_start');
    expect(events.at(-1)).toMatchObject({ type: 'session_end', stop_reason: 'final', text: 'All good.' });
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
    const saved = await store.load(session.id);
    expect(saved.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(JSON.stringify(saved.messages[0])).toContain('how are you?');
    expect(saved.message_meta).toHaveLength(2);
    expect(saved.usage.requests).toBe(1);
  });

  it('runs consecutive read-only calls in parallel and returns results in call order', async () => {
    let inFlight = 0;
    let peak = 0;
    const slow = (ms: number) => async (input: { arg?: string }) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((r) => setTimeout(r, ms));
      inFlight--;
      return `read ${input.arg}`;
    };
    const reader = testTool('reader', { readOnly: true, run: slow(80) });
    fake.enqueue(
      tools([
        toolCall('reader', { arg: 'a' }, 'c1'),
        toolCall('reader', { arg: 'b' }, 'c2'),
        toolCall('reader', { arg: 'c' }, 'c3'),
      ]),
      text('done reading'),
    );
    const { outcome } = await runWith(fake, { tools: [reader] });
    expect(outcome.stopReason).toBe('final');
    expect(peak).toBe(3);
    const results = lastToolResults(fake);
    expect(results.map((r) => r.tool_use_id)).toEqual(['c1', 'c2', 'c3']);
    expect(results.map((r) => r.content)).toEqual(['read a', 'read b', 'read c']);
  });

  it('runs a write alone, in order, between read batches', async () => {
    const order: string[] = [];
    const reader = testTool('reader', { readOnly: true, run: async (i) => (order.push(`r${i.arg}`), 'ok') });
    const writer = testTool('writer', { readOnly: false, run: async (i) => (order.push(`w${i.arg}`), 'written') });
    fake.enqueue(
      tools([toolCall('reader', { arg: '1' }), toolCall('writer', { arg: '2' }), toolCall('reader', { arg: '3' })]),
      text('ok'),
    );
    await runWith(fake, { tools: [reader, writer], faces: [face('allow')] });
    expect(order).toEqual(['r1', 'w2', 'r3']);
  });

  it('asks before a write: approved writes run', async () => {
    const asked: string[] = [];
    const writer = testTool('writer', { readOnly: false });
    fake.enqueue(tools([toolCall('writer', { arg: 'x' })]), text('Wrote it.'));
    const { events, outcome } = await runWith(fake, { tools: [writer], faces: [face('allow', asked)] });
    expect(asked).toHaveLength(1);
    expect(writer.calls).toHaveLength(1);
    expect(events.some((e) => e.type === 'approval_request')).toBe(true);
    expect(events.find((e) => e.type === 'approval_response')).toMatchObject({ decision: 'allow', by: 'test' });
    expect(outcome.stopReason).toBe('final');
  });

  it('a denied write does not run, the model is told plainly, and a success claim gets one nudge', async () => {
    const writer = testTool('writer', { readOnly: false });
    fake.enqueue(
      tools([toolCall('writer', { arg: 'x' }, 'w1')]),
      text('Done! I have written the file successfully.'),
      text('The write was denied, so nothing changed.'),
    );
    const { events, outcome } = await runWith(fake, { tools: [writer], faces: [face('deny')] });
    expect(writer.calls).toHaveLength(0);
    const [res] = lastToolResults(fake, 1);
    expect(res!.is_error).toBe(true);
    expect(String(res!.content)).toMatch(/DENIED/);
    expect(events.some((e) => e.type === 'loop_nudge' && e.detector === 'success_after_denial')).toBe(true);
    expect(outcome.text).toBe('The write was denied, so nothing changed.');
  });

  it('with no face to ask, a write is denied', async () => {
    const writer = testTool('writer', { readOnly: false });
    fake.enqueue(tools([toolCall('writer', {})]), text('could not'));
    await runWith(fake, { tools: [writer], faces: [] });
    expect(writer.calls).toHaveLength(0);
  });

  it('does not ask twice for the same call in one turn, and refuses a denied call without asking again', async () => {
    const asked: string[] = [];
    const writer = testTool('writer', { readOnly: false });
    fake.enqueue(
      tools([toolCall('writer', { arg: 'same' })]),
      tools([toolCall('writer', { arg: 'same' })]),
      text('ok'),
    );
    await runWith(fake, { tools: [writer], faces: [face('deny', asked)] });
    expect(asked).toHaveLength(1);
    expect(String(lastToolResults(fake, 2)[0]!.content)).toMatch(/denied this exact writer call earlier/);
  });

  it('"always allow" on one bash command covers that command only; on another tool, the tool for the rest of the run', async () => {
    const asked: string[] = [];
    const bash = testTool('bash', { readOnly: false, input: z.object({ command: z.string() }) });
    const writer = testTool('writer', { readOnly: false });
    fake.enqueue(
      tools([toolCall('bash', { command: 'npm test' })]),
      tools([toolCall('bash', { command: 'npm test' })]),
      tools([toolCall('bash', { command: 'rm -rf build' })]),
      tools([toolCall('writer', { arg: 'a' })]),
      tools([toolCall('writer', { arg: 'b' })]),
      text('ok'),
    );
    const saved: unknown[] = [];
    await runWith(fake, {
      tools: [bash, writer],
      faces: [face('always_allow', asked)],
      policy: createPermissionEngine({ permissions: {}, home: tmpdir() }),
      deps: { onAlwaysAllow: async (_t, _i, _by, grant) => void saved.push(grant) },
    });
    // The same command again runs unasked; a different one is asked about; the writer once for all.
    expect(asked.map((a) => a.split(':')[0])).toEqual(['bash', 'bash', 'writer']);
    expect(bash.calls).toHaveLength(3);
    expect(writer.calls).toHaveLength(2);
    // What is saved is the grant the person saw: the command in its folder (with the package.json it runs), the tool.
    expect(saved[0]).toMatchObject({ tool: 'bash', command: 'npm test', cwd: expect.any(String) });
    expect(Object.entries((saved[0] as { scripts: Record<string, string> }).scripts)).toEqual([
      [expect.stringMatching(/package\.json$/), 'missing'],
    ]);
    expect(saved[2]).toEqual({ tool: 'writer' });
  });

  it('"allow in this conversation" holds in later runs of the same session, not in a new one', async () => {
    const asked: string[] = [];
    const policy = createPermissionEngine({ permissions: {}, home: tmpdir() });
    const bash = testTool('bash', { readOnly: false, input: z.object({ command: z.string() }) });
    const writer = testTool('writer', { readOnly: false });
    fake.enqueue(tools([toolCall('bash', { command: 'npm test' }), toolCall('writer', { arg: 'a' })]), text('ok'));
    const first = await runWith(fake, { tools: [bash, writer], faces: [face('allow_session', asked)], policy });
    expect(asked).toHaveLength(2);
    // Each grant is signed for this session with Rein's own key (a copied or hand-written one never counts).
    expect(first.session.context).toMatchObject({
      approvals: {
        grants: [
          expect.stringMatching(/^v2:[0-9a-f]{64}:.*"npm test"/),
          expect.stringMatching(/^v2:[0-9a-f]{64}:\{"tool":"writer"\}$/),
        ],
      },
    });

    // The next run of this conversation: the same command and any writer call go unasked; another command asks.
    const later: string[] = [];
    fake.enqueue(
      tools([
        toolCall('bash', { command: 'npm test' }),
        toolCall('writer', { arg: 'b' }),
        toolCall('bash', { command: 'rm -rf build' }),
      ]),
      text('ok'),
    );
    const second = await runWith(fake, {
      tools: [bash, writer],
      faces: [face('deny', later)],
      policy,
      session: await first.store.load(first.session.id),
      store: first.store,
      reinHome: first.dir,
      cwd: first.dir,
    });
    expect(later).toEqual(['bash:{"command":"rm -rf build"}']);
    expect(bash.calls).toEqual([{ command: 'npm test' }, { command: 'npm test' }]);
    expect(writer.calls).toHaveLength(2);
    expect(second.events.some((e) => e.type === 'approval_request' && e.tool === 'writer')).toBe(false);

    // A new conversation starts with nothing granted.
    const fresh: string[] = [];
    fake.enqueue(tools([toolCall('writer', { arg: 'c' })]), text('ok'));
    await runWith(fake, { tools: [bash, writer], faces: [face('deny', fresh)], policy, reinHome: first.dir });
    expect(fresh).toHaveLength(1);
  });

  it('grants written into a session file by anything but Rein never count: unsigned, forged or copied from another session', async () => {
    const policy = createPermissionEngine({ permissions: {}, home: tmpdir() });
    const writer = testTool('writer', { readOnly: false });
    fake.enqueue(tools([toolCall('writer', { arg: 'a' })]), text('ok'));
    const other = await runWith(fake, { tools: [writer], faces: [face('allow_session')], policy });
    const copied = (other.session.context as { approvals: { grants: string[] } }).approvals.grants[0]!;

    const asked: string[] = [];
    fake.enqueue(tools([toolCall('writer', { arg: 'b' })]), text('ok'));
    const target = other.store.create({ agent: 'default', cwd: other.dir, source: 'test' });
    target.context = { approvals: { grants: ['tool:writer', `v2:${'0'.repeat(64)}:{"tool":"writer"}`, copied] } };
    await runWith(fake, {
      tools: [writer],
      faces: [face('deny', asked)],
      policy,
      session: target,
      store: other.store,
      reinHome: other.dir,
    });
    expect(asked).toEqual(['writer:{"arg":"b"}']);
    expect(writer.calls).toHaveLength(1);
  });

  it('runs identical calls in one response once', async () => {
    const reader = testTool('reader');
    fake.enqueue(tools([toolCall('reader', { arg: 'a' }, 'd1'), toolCall('reader', { arg: 'a' }, 'd2')]), text('ok'));
    await runWith(fake, { tools: [reader] });
    expect(reader.calls).toHaveLength(1);
    const results = lastToolResults(fake);
    expect(results.map((r) => r.tool_use_id)).toEqual(['d1', 'd2']);
    expect(String(results[1]!.content)).toContain('ran once');
  });

  it('coerces "5000" and "true" strings leniently, and reports real validation errors', async () => {
    const typed = testTool('typed', { input: z.object({ n: z.number(), flag: z.boolean() }) });
    fake.enqueue(
      tools([toolCall('typed', { n: '5000', flag: 'true' }), toolCall('typed', { n: 'lots', flag: true })]),
      text('ok'),
    );
    await runWith(fake, { tools: [typed] });
    expect(typed.calls).toEqual([{ n: 5000, flag: true }]);
    const results = lastToolResults(fake);
    expect(results[1]!.is_error).toBe(true);
    expect(String(results[1]!.content)).toMatch(/^\[validation error\].*n:/);
  });

  it('tells the model about an unknown tool', async () => {
    fake.enqueue(tools([toolCall('nope', {})]), text('ok'));
    await runWith(fake, { tools: [testTool('reader')] });
    expect(String(lastToolResults(fake)[0]!.content)).toMatch(/unknown tool: nope.*reader/);
  });

  it('saves an over-budget result to a file and gives the model a head/tail preview with the path', async () => {
    const big = Array.from({ length: 5000 }, (_, i) => `line ${i} ${'x'.repeat(20)}`).join('\n');
    const dump = testTool('dump', { budget: 10_000, run: () => big });
    fake.enqueue(tools([toolCall('dump', {}, 'big1')]), text('ok'));
    const { events } = await runWith(fake, { tools: [dump] });
    const content = String(lastToolResults(fake)[0]!.content);
    expect(content.length).toBeLessThan(10_000);
    expect(content).toContain('line 0 ');
    expect(content).toContain('line 4999 ');
    const end = events.find((e) => e.type === 'tool_call_end');
    expect(end?.type === 'tool_call_end' && end.saved_to).toBeTruthy();
    const saved_to = (end as { saved_to: string }).saved_to;
    expect(content).toContain(saved_to);
    expect(readFileSync(saved_to, 'utf8')).toBe(big);
  });

  it('continues after max_tokens at most 3 times and joins the parts', async () => {
    fake.enqueue(
      text('part one, ', { stopReason: 'max_tokens' }),
      text('part two, ', { stopReason: 'max_tokens' }),
      text('part three.', { stopReason: 'end_turn' }),
    );
    const { outcome } = await runWith(fake);
    expect(outcome.stopReason).toBe('final');
    expect(outcome.text).toBe('part one, part two, part three.');
    expect(JSON.stringify(fake.requests[1]!.body.messages.at(-1))).toContain(CONTINUE_PROMPT);
  });

  it('stops continuing after 3 continuations', async () => {
    for (let i = 0; i < 5; i++) fake.enqueue(text(`p${i} `, { stopReason: 'max_tokens' }));
    const { outcome } = await runWith(fake);
    expect(fake.requests).toHaveLength(4);
    expect(outcome.text).toBe('p0 p1 p2 p3 ');
  });

  it('stops at the iteration cap and keeps the partial text', async () => {
    const reader = testTool('reader');
    let n = 0;
    fake.fallback = () => tools([toolCall('reader', { arg: String(n++) })], `step ${n}`);
    const { outcome, events } = await runWith(fake, { tools: [reader], settings: { maxIterations: 4 } });
    expect(outcome.stopReason).toBe('max_iterations');
    expect(fake.requests).toHaveLength(4);
    expect(outcome.text).toBe('step 4');
    expect(events.some((e) => e.type === 'error' && /max_iterations = 4/.test(e.message))).toBe(true);
  });

  it('raises the cap to 75 once a GUI tool was used', async () => {
    const gui = testTool('screenshot', { gui: true });
    let n = 0;
    fake.fallback = () => (n++ < 6 ? tools([toolCall('screenshot', { arg: String(n) })]) : text('finished'));
    const { outcome } = await runWith(fake, { tools: [gui], settings: { maxIterations: 3 } });
    expect(outcome.stopReason).toBe('final');
    expect(fake.requests).toHaveLength(7);
  });

  it('hands messages injected during a run to the model as one user message', async () => {
    const inbox = new Inbox();
    const reader = testTool('reader', {
      run: () => {
        inbox.push('also check the tests');
        inbox.push('and the docs');
        return 'ok';
      },
    });
    fake.enqueue(tools([toolCall('reader', {})]), text('will do'));
    const { events } = await runWith(fake, { tools: [reader], inbox });
    const sent = JSON.stringify(fake.requests[1]!.body.messages.at(-1));
    expect(sent).toContain('[New message from user]\\nalso check the tests\\n\\nand the docs');
    expect(events.find((e) => e.type === 'injected')).toMatchObject({
      texts: ['also check the tests', 'and the docs'],
    });
    // The tool_result and the injected text share one user message: roles keep alternating.
    const roles = fake.requests[1]!.body.messages.map((m) => m.role);
    expect(roles).toEqual(['user', 'assistant', 'user']);
  });

  it('cancellation stops a running tool, keeps the history valid and ends with cancelled', async () => {
    const ac = new AbortController();
    const waiter = testTool('waiter', {
      readOnly: false,
      run: (_i, signal) =>
        new Promise((resolve) => {
          setTimeout(() => ac.abort(), 50);
          signal.addEventListener('abort', () => resolve('stopped by cancel'));
        }),
    });
    fake.enqueue(tools([toolCall('waiter', {}, 'w1')], 'Starting the long job.'));
    const { outcome, session, store } = await runWith(fake, {
      tools: [waiter],
      faces: [face('allow')],
      signal: ac.signal,
    });
    expect(outcome.stopReason).toBe('cancelled');
    expect(outcome.text).toBe('Starting the long job.');
    const saved = await store.load(session.id);
    const last = saved.messages.at(-1)!;
    expect(last.role).toBe('user');
    expect(JSON.stringify(last.content)).toContain('"tool_use_id":"w1"');
    expect(fake.requests).toHaveLength(1);
  });

  it('cancellation while the model streams keeps the text already shown', async () => {
    const ac = new AbortController();
    fake.enqueue(
      text('A long answer that streams slowly, piece by piece, word by word.', { chunkDelayMs: 30, chunkSize: 4 }),
    );
    const { outcome, session, store } = await runWith(fake, {
      signal: ac.signal,
      onEvent: (e) => {
        if (e.type === 'text_delta' && e.seq > 3) ac.abort();
      },
    });
    expect(outcome.stopReason).toBe('cancelled');
    expect(outcome.text.length).toBeGreaterThan(0);
    expect('A long answer that streams slowly, piece by piece, word by word.'.startsWith(outcome.text)).toBe(true);
    const saved = await store.load(session.id);
    expect(saved.messages.at(-1)).toMatchObject({ role: 'assistant' });
  });

  it('stops at the spending cap before running more tools', async () => {
    const reader = testTool('reader');
    fake.enqueue(tools([toolCall('reader', {})], 'Let me look.'));
    fake.fallback = () => tools([toolCall('reader', { arg: 'again' })]);
    const { outcome, events } = await runWith(fake, {
      tools: [reader],
      settings: { maxUsdPerRun: 0.0001, prices: { 'claude-sonnet-5-5': { input: 1000, output: 1000 } } },
    });
    expect(outcome.stopReason).toBe('budget');
    expect(reader.calls).toHaveLength(0);
    expect(events.some((e) => e.type === 'error' && /Spending cap reached/.test(e.message))).toBe(true);
  });

  it('reports a non-retryable API error as stop reason error with the message', async () => {
    fake.enqueue({ kind: 'error', status: 401, message: 'invalid x-api-key' });
    const { outcome } = await runWith(fake);
    expect(outcome.stopReason).toBe('error');
    expect(outcome.error?.message).toMatch(/401.*invalid x-api-key/);
  });

  it('marks at most 4 cache breakpoints and keeps the tools+system prefix byte-identical across requests', async () => {
    const reader = testTool('reader');
    fake.enqueue(tools([toolCall('reader', {})]), tools([toolCall('reader', { arg: '2' })]), text('ok'));
    await runWith(fake, { tools: [reader, testTool('other')] });
    for (const r of fake.requests) expect(countBreakpoints(r.body)).toBeLessThanOrEqual(4);
    const prefix = (i: number) =>
      JSON.stringify({ tools: fake.requests[i]!.body.tools, system: fake.requests[i]!.body.system });
    expect(prefix(1)).toBe(prefix(0));
    expect(prefix(2)).toBe(prefix(0));
    expect(fake.requests[1]!.body.tools!.map((t) => t.name)).toEqual(['other', 'reader']);
    // Each request's content bytes (breakpoint markers aside), up to its closing brackets, are an exact
    // prefix of the next request.
    for (let i = 0; i + 1 < fake.requests.length; i++) {
      const a = stripCacheControl(fake.requests[i]!.raw);
      const b = stripCacheControl(fake.requests[i + 1]!.raw);
      let n = 0;
      while (n < a.length && a[n] === b[n]) n++;
      expect(n).toBeGreaterThanOrEqual(a.length - 3);
    }
  });

  it('resumes a session: history is sanitised and the new prompt continues it', async () => {
    fake.enqueue(tools([toolCall('reader', {}, 'r1')]));
    const reader = testTool('reader', {
      run: () => {
        throw new Error('crash');
      },
    });
    const first = await runWith(fake, { tools: [reader], prompt: 'first' });
    // Simulate a crash that left a dangling tool_use: drop the tool_result turn.
    first.session.messages = first.session.messages.slice(0, 2);
    first.session.message_meta = first.session.message_meta.slice(0, 2);
    await first.store.save(first.session);
    fake.enqueue(text('second answer'));
    const loaded = await first.store.load(first.session.id);
    const second = await runWith(fake, { session: loaded, store: first.store, prompt: 'second', tools: [reader] });
    expect(second.events[0]).toMatchObject({ type: 'session_start', resumed: true });
    const sent = fake.requests.at(-1)!.body.messages;
    expect(JSON.stringify(sent)).not.toContain('"tool_use"');
    expect(sent.at(-1)!.role).toBe('user');
    expect(JSON.stringify(sent.at(-1))).toContain('second');
    expect(existsSync(`${first.store.dir}/${first.session.id}.json`)).toBe(true);
  });
});
