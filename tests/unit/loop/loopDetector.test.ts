import { describe, expect, it } from 'vitest';
import {
  LOOP_THRESHOLDS,
  LoopDetector,
  NudgeCounter,
  canonicalJson,
  resultUrls,
  webTopic,
  type LoopCall,
  type LoopVerdict,
} from '../../../src-main/core/harness/loopDetector.js';
import { builtinTools } from '../../../src-main/core/tools/builtin/index.js';
import type { ToolTraits } from '../../../src-main/core/tools/traits.js';

/**
 * The traits of the tools these tests name, as the executor passes them: the built-ins' own, and for
 * the web and GUI tools not written yet, the traits they are to declare.
 */
const TRAITS: Record<string, ToolTraits | undefined> = {
  ...Object.fromEntries(builtinTools().map((t) => [t.name, t.traits])),
  web_search: { family: 'web' },
  web_fetch: { family: 'web' },
  applescript: { family: 'gui', reportsOwnSuccess: true },
  screenshot: { family: 'gui', repeatable: true, looksAtScreen: true },
};

const ok = (tool: string, input: unknown, content = 'ok', traits = TRAITS[tool]): LoopCall => ({
  tool,
  traits,
  input,
  ok: true,
  content,
});
const fail = (
  tool: string,
  input: unknown,
  content: string,
  errorKind = 'business',
  traits = TRAITS[tool],
): LoopCall => ({
  tool,
  traits,
  input,
  ok: false,
  content,
  errorKind,
});

/** Records the calls one by one, checking after each (as the loop does); returns every verdict. */
function run(calls: LoopCall[], detector = new LoopDetector()): LoopVerdict[] {
  return calls.map((c) => {
    detector.record(c);
    return detector.check();
  });
}

const actions = (vs: LoopVerdict[]) => vs.map((v) => (v.action === 'none' ? '-' : `${v.action}:${v.detector}`));
const fired = (vs: LoopVerdict[]) => vs.filter((v) => v.action !== 'none');

describe('canonical call identity', () => {
  it('treats inputs with the same keys in another order as the same call', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: 'z' } })).toBe(
      canonicalJson({ a: { c: 'z', d: [1, { x: 1, y: 2 }] }, b: 1 }),
    );
    const v = run([ok('file_read', { path: 'a', limit: 5 }), ok('file_read', { limit: 5, path: 'a' })]);
    expect(v[1]).toMatchObject({ action: 'nudge', detector: 'consecutive_duplicate' });
  });

  it('normalises web queries: dates, years, filler words, order and case do not make a new topic', () => {
    expect(webTopic({ query: 'Rust async runtime news today' })).toBe('async runtime rust');
    expect(webTopic({ query: 'latest RUST async runtime 2025' })).toBe('async runtime rust');
    expect(webTopic({ q: 'rust async runtime, March 3 2025' })).toBe('async runtime rust');
    expect(webTopic({ queries: ['runtime rust async 2024-05-01', 'other'] })).toBe('async runtime rust');
    expect(webTopic({ query: 'latest news today' })).toBe('[empty]');
    expect(webTopic({ url: 'https://Example.com/A?b=1' })).toBe('https://Example.com/A?b=1');
    expect(webTopic({ path: 'x' })).toBeUndefined();
  });

  it('compares results by the set of URLs they mention, ignoring query strings and order', () => {
    expect(resultUrls('see https://b.org/x?utm=1, and https://A.com/page#top.')).toBe(
      'https://a.com/page,https://b.org/x',
    );
    expect(resultUrls('https://a.com/page https://b.org/x')).toBe('https://a.com/page,https://b.org/x');
    expect(resultUrls('no links here')).toBe('');
  });
});

describe('consecutive duplicates', () => {
  it('nudges on the second identical call in a row and force-stops on the fourth', () => {
    const calls = Array.from({ length: LOOP_THRESHOLDS.consecutiveDuplicate.forceStop }, () =>
      ok('file_read', { path: 'src/a.ts' }),
    );
    const v = run(calls);
    expect(actions(v)).toEqual(['-', 'nudge:consecutive_duplicate', '-', 'force_stop:consecutive_duplicate']);
    expect(v[1]!.message).toMatch(/file_read .*src\/a\.ts.* 2 times in a row/);
    expect(v[1]!.message).toMatch(/will not change/);
    expect(v[3]!.message).toMatch(/Do not call any more tools/);
    expect(v[3]!.message).toMatch(/not evidence that the task succeeded/);
  });

  it('does not fire when another call sits between the repeats', () => {
    const v = run([ok('file_read', { path: 'a' }), ok('file_read', { path: 'b' }), ok('file_read', { path: 'a' })]);
    expect(fired(v)).toEqual([]);
  });
});

describe('duplicates anywhere in the window', () => {
  it('nudges on the third same call with the same result, force-stops on the sixth', () => {
    const calls: LoopCall[] = [];
    for (let i = 0; i < LOOP_THRESHOLDS.windowDuplicate.forceStop; i++) {
      calls.push(ok('bash', { command: 'git status' }, 'nothing to commit'));
      if (i < LOOP_THRESHOLDS.windowDuplicate.forceStop - 1)
        calls.push(ok('file_read', { path: `f${i}` }, `body ${i}`));
    }
    const v = run(calls);
    expect(actions(v).filter((a) => a !== '-')).toEqual(['nudge:window_duplicate', 'force_stop:window_duplicate']);
    expect(v[4]).toMatchObject({ action: 'nudge', detector: 'window_duplicate' });
    expect(v[4]!.message).toMatch(/git status.* 3 times recently/);
  });

  it('does not fire when the repeated call returns something new each time (a test-fix loop)', () => {
    const calls: LoopCall[] = [];
    for (let i = 0; i < 5; i++) {
      calls.push(fail('bash', { command: 'npm test' }, `[business error] exit 1: ${5 - i} tests failing`));
      calls.push(ok('file_edit', { path: 'src/a.ts', old: `v${i}`, new: `v${i + 1}` }));
    }
    expect(fired(run(calls))).toEqual([]);
  });
});

describe('repeated errors of one tool', () => {
  it('nudges with the last error at six failures, force-stops at ten', () => {
    const calls = Array.from({ length: LOOP_THRESHOLDS.toolErrors.forceStop }, (_, i) =>
      fail('http', { url: `https://api.example.com/v${i}` }, `[transient error] connection refused (${i})`),
    );
    const v = run(calls);
    expect(actions(v).filter((a) => a !== '-')).toEqual(['nudge:tool_errors', 'force_stop:tool_errors']);
    const nudge = v[LOOP_THRESHOLDS.toolErrors.nudge - 1]!;
    expect(nudge).toMatchObject({ action: 'nudge', detector: 'tool_errors' });
    expect(nudge.message).toMatch(/http has failed 6 times/);
    expect(nudge.message).toMatch(/connection refused \(5\)/);
    expect(nudge.message).toMatch(/Do not retry http/);
  });

  it('does not fire for five failures, nor when the latest call of the tool succeeded', () => {
    const five = Array.from({ length: 5 }, (_, i) =>
      fail('http', { url: `https://x/${i}` }, `[transient error] e${i}`),
    );
    expect(fired(run(five))).toEqual([]);
    expect(
      fired(run([...five, fail('http', { url: 'https://x/5' }, 'e'), ok('http', { url: 'https://x/6' })]).slice(6)),
    ).toEqual([]);
  });
});

describe('no progress on one topic', () => {
  const queries = [
    'Rust async runtime news today',
    'latest rust async runtime',
    'rust ASYNC runtime 2025',
    'async runtime rust!',
    'Rust async runtime, May 2 2025',
    'runtime async rust',
    'rust async runtime updates',
  ];
  it('nudges at three searches on one topic, nudges harder at five, force-stops at seven', () => {
    const v = run(queries.map((q, i) => ok('web_search', { query: q }, `result set ${i}`)));
    expect(actions(v)).toEqual([
      '-',
      '-',
      'nudge:topic_no_progress',
      '-',
      'nudge:topic_no_progress',
      '-',
      'force_stop:topic_no_progress',
    ]);
    expect(v[2]!.message).toMatch(/3 web calls on the same topic \(async runtime rust\)/);
    expect(v[4]!.message).toMatch(/Do not search again/);
  });

  it('counts different queries that keep returning the same sources', () => {
    const sources = 'https://a.com/1 and https://b.com/2';
    const v = run(['tokio', 'smol', 'async-std'].map((q) => ok('web_search', { query: q }, `${q}: ${sources}`)));
    expect(v[2]).toMatchObject({ action: 'nudge', detector: 'topic_no_progress' });
    expect(v[2]!.message).toMatch(/same sources/);
  });

  it('does not fire for three searches on different topics with different sources', () => {
    const v = run(
      ['tokio runtime', 'python asyncio', 'go goroutines'].map((q, i) =>
        ok('web_search', { query: q }, `https://s${i}.com`),
      ),
    );
    expect(fired(v)).toEqual([]);
  });
});

describe('family fallback (a family tool with nothing to compare)', () => {
  it('nudges at five mostly-repeated applescript calls, force-stops at seven', () => {
    const scripts = ['tell app "Mail" to check', 'tell app "Mail" to activate'];
    const calls = Array.from({ length: LOOP_THRESHOLDS.familyFallback.forceStop }, (_, i) =>
      ok('applescript', { script: scripts[i % 2] }, `done ${i}`),
    );
    const v = run(calls);
    expect(actions(v)).toEqual(['-', '-', '-', '-', 'nudge:family_fallback', '-', 'force_stop:family_fallback']);
  });

  it('does not fire when the calls are mostly distinct', () => {
    const v = run(Array.from({ length: 7 }, (_, i) => ok('applescript', { script: `step ${i}` }, `done ${i}`)));
    expect(fired(v)).toEqual([]);
  });
});

describe('search escalation', () => {
  it('nudges after three fruitless searches in a row and force-stops after five', () => {
    const v = run(
      ['fooBar', 'foo.?bar', '(?i)foo', 'foo', 'fo'].map((p) => ok('grep', { pattern: p }, 'No matches found')),
    );
    expect(actions(v)).toEqual(['-', '-', 'nudge:search_escalation', '-', 'force_stop:search_escalation']);
    expect(v[2]!.message).toMatch(/3 searches in a row found nothing/);
  });

  it('does not fire when a search in between found something, nor for searches that find things', () => {
    const missThenHit = run([
      ok('grep', { pattern: 'a' }, 'No matches found'),
      ok('glob', { pattern: '**/*.x' }, ''),
      ok('grep', { pattern: 'b' }, 'src/b.ts:3: const b = 1'),
      ok('grep', { pattern: 'c' }, 'No matches found'),
      ok('grep', { pattern: 'd' }, '0 matches'),
    ]);
    expect(fired(missThenHit)).toEqual([]);
    const hits = run(Array.from({ length: 8 }, (_, i) => ok('grep', { pattern: `p${i}` }, `src/f${i}.ts:1: hit`)));
    expect(fired(hits)).toEqual([]);
  });
});

describe('one tool too often', () => {
  const cycle = (n: number, distinct: number) =>
    Array.from({ length: n }, (_, i) => ok('file_read', { path: `f${i % distinct}` }, `content ${i}`));

  it('nudges at twelve mostly-repeated calls of one tool and force-stops at sixteen', () => {
    const v = run(cycle(LOOP_THRESHOLDS.toolOveruse.forceStop, 5));
    const hits = v.map((x, i) => [i + 1, x.action, x.detector]).filter((x) => x[1] !== 'none');
    expect(hits).toEqual([
      [12, 'nudge', 'tool_overuse'],
      [16, 'force_stop', 'tool_overuse'],
    ]);
  });

  it('does not fire for a batch of mostly distinct reads, nor for eleven repeated ones', () => {
    expect(fired(run(cycle(16, 8)))).toEqual([]);
    expect(fired(run(cycle(11, 5)))).toEqual([]);
  });

  it('exempts tools whose results change with the world (screenshot)', () => {
    const v = run(Array.from({ length: 16 }, (_, i) => ok('screenshot', { display: i % 2 }, `frame ${i}`)));
    expect(fired(v).filter((x) => x.detector === 'tool_overuse')).toEqual([]);
  });
});

describe('sleep polling', () => {
  const poll = (i: number) => ok('bash', { command: `sleep ${i + 1} && curl -s localhost:3000/health` }, `down ${i}`);

  it('nudges at the second `sleep N` command and force-stops at the fourth', () => {
    const v = run([poll(0), ok('file_read', { path: 'a' }), poll(1), ok('file_read', { path: 'b' }), poll(2), poll(3)]);
    expect(actions(v)).toEqual(['-', '-', 'nudge:sleep_polling', '-', '-', 'force_stop:sleep_polling']);
    expect(v[2]!.message).toMatch(/polling with `sleep`/);
  });

  it('does not fire for commands that mention sleep without a duration, or a single sleep', () => {
    const v = run([
      poll(0),
      ok('bash', { command: 'pkill sleep' }),
      ok('bash', { command: 'man sleep | head' }),
      ok('bash', { command: 'echo nosleep 5' }),
    ]);
    expect(fired(v)).toEqual([]);
  });

  it('forgets sleeps that left the 20-call window', () => {
    const between = Array.from({ length: LOOP_THRESHOLDS.window }, (_, i) => ok('file_read', { path: `x${i}` }));
    expect(fired(run([poll(0), ...between, poll(1)]))).toEqual([]);
  });
});

describe('GUI mode switch', () => {
  it('nudges once when a screenshot follows a successful applescript', () => {
    const v = run([
      ok('applescript', { script: 'tell app "Notes" to make new note' }, 'note created'),
      ok('screenshot', {}, 'image'),
      ok('screenshot', { region: 'top' }, 'image 2'),
    ]);
    expect(actions(v)).toEqual(['-', 'nudge:gui_mode_switch', '-']);
    expect(v[1]!.message).toMatch(/applescript already reported success/);
  });

  it('does not fire when the applescript failed', () => {
    const v = run([
      fail('applescript', { script: 'x' }, '[business error] Notes got an error'),
      ok('screenshot', {}, 'image'),
    ]);
    expect(fired(v)).toEqual([]);
  });
});

describe('success after error', () => {
  it('nudges when a screenshot follows a retry that succeeded after a failure', () => {
    const v = run([
      fail('bash', { command: 'open -a Safar' }, '[business error] Unable to find application named Safar'),
      ok('bash', { command: 'open -a Safari' }, ''),
      ok('screenshot', {}, 'image'),
    ]);
    expect(v[2]).toMatchObject({ action: 'nudge', detector: 'success_after_error' });
    expect(v[2]!.message).toMatch(/retry of bash succeeded/);
  });

  it('does not fire when nothing failed before the success', () => {
    const v = run([ok('bash', { command: 'open -a Safari' }, ''), ok('screenshot', {}, 'image')]);
    expect(fired(v)).toEqual([]);
  });
});

describe('think stalls', () => {
  it('force-stops on two empty think calls in a row', () => {
    const v = run([ok('think', {}), ok('think', { thought: '   ' })]);
    expect(v[1]).toMatchObject({ action: 'force_stop', detector: 'empty_think' });
  });

  it('nudges on a repeated thought (ignoring case and punctuation) and force-stops on the third', () => {
    const v = run([
      ok('think', { thought: 'I should read the config file first.' }),
      ok('think', { thought: 'i should read the config file first' }),
      ok('think', { thought: 'I should read the config file, first!' }),
    ]);
    expect(actions(v)).toEqual(['-', 'nudge:repeated_think', 'force_stop:repeated_think']);
  });

  it('does not fire for an empty think followed by a real thought, or for different thoughts', () => {
    expect(fired(run([ok('think', {}), ok('think', { thought: 'plan: read the config, then edit it' })]))).toEqual([]);
    expect(
      fired(
        run([
          ok('think', { thought: 'first read the config' }),
          ok('think', { thought: 'the config has no hooks key, so add one' }),
        ]),
      ),
    ).toEqual([]);
  });
});

describe('repeated validation errors', () => {
  const verr = '[validation error] old_string: expected string, got number';
  it('nudges on the second identical validation error of a tool and force-stops on the third', () => {
    const v = run([
      fail('file_edit', { path: 'a', old_string: 1 }, verr, 'validation'),
      fail('file_edit', { path: 'b', old_string: 2 }, verr, 'validation'),
      fail('file_edit', { path: 'c', old_string: 3 }, verr, 'validation'),
    ]);
    expect(actions(v)).toEqual(['-', 'nudge:validation_repeat', 'force_stop:validation_repeat']);
    expect(v[1]!.message).toContain('old_string: expected string');
  });

  it('does not fire when the validation errors differ', () => {
    const v = run([
      fail('file_edit', { path: 'a' }, '[validation error] old_string: missing', 'validation'),
      fail('file_edit', { path: 'a', old_string: 'x' }, '[validation error] new_string: missing', 'validation'),
      fail(
        'file_edit',
        { path: 'a', old_string: 'x', new_string: 1 },
        '[validation error] new_string: expected string',
        'validation',
      ),
    ]);
    expect(fired(v)).toEqual([]);
  });
});

describe('escalation and verdict bookkeeping', () => {
  it('turns the third nudge of a run into a force stop', () => {
    const v = run([
      ok('file_read', { path: 'a' }),
      ok('file_read', { path: 'a' }), // nudge 1: consecutive duplicate
      ok('bash', { command: 'sleep 1; ls' }),
      ok('bash', { command: 'sleep 2; ls' }), // nudge 2: sleep polling
      ok('think', { thought: 'what now' }),
      ok('think', { thought: 'what now?' }), // third nudge → force stop
    ]);
    expect(actions(v)).toEqual([
      '-',
      'nudge:consecutive_duplicate',
      '-',
      'nudge:sleep_polling',
      '-',
      'force_stop:nudge_limit',
    ]);
    expect(v[5]!.message).toMatch(/warned 3 times/);
    expect(v[5]!.message).toMatch(/same thought/);
  });

  it('NudgeCounter passes other verdicts through and escalates at its limit', () => {
    const c = new NudgeCounter(2);
    expect(c.observe({ action: 'none' })).toEqual({ action: 'none' });
    expect(c.observe({ action: 'nudge', detector: 'x', message: 'm' }).action).toBe('nudge');
    expect(c.observe({ action: 'force_stop', detector: 'y', message: 'n' })).toMatchObject({ detector: 'y' });
    expect(c.observe({ action: 'nudge', detector: 'x', message: 'm2' })).toMatchObject({
      action: 'force_stop',
      detector: 'nudge_limit',
    });
  });

  it('does not repeat a nudge while its condition merely persists, and asking twice counts once', () => {
    const d = new LoopDetector();
    d.record(ok('bash', { command: 'sleep 5' }, '1'));
    d.record(ok('bash', { command: 'sleep 6' }, '2'));
    expect(d.check()).toMatchObject({ action: 'nudge', detector: 'sleep_polling' });
    expect(d.check()).toMatchObject({ action: 'nudge', detector: 'sleep_polling' });
    d.record(ok('bash', { command: 'sleep 7' }, '3'));
    expect(d.check()).toEqual({ action: 'none' });
    // Two more distinct nudges would escalate if the repeated check had counted twice; only one does.
    d.record(ok('file_read', { path: 'q' }));
    d.record(ok('file_read', { path: 'q' }));
    expect(d.check()).toMatchObject({ action: 'nudge', detector: 'consecutive_duplicate' });
  });

  it('says nothing with fewer than two calls', () => {
    expect(run([ok('think', {})])).toEqual([{ action: 'none' }]);
  });
});

describe('tools are judged by their traits, not their names', () => {
  const look: ToolTraits = { family: 'gui', repeatable: true, looksAtScreen: true };

  it('treats any tool that looks at the screen after a self-reporting step as a GUI mode switch', () => {
    const v = run([
      ok('mcp__notes__create', { title: 'x' }, 'note created', { reportsOwnSuccess: true }),
      ok('ax_snapshot', {}, 'tree', look),
    ]);
    expect(v[1]).toMatchObject({ action: 'nudge', detector: 'gui_mode_switch' });
    expect(v[1]!.message).toMatch(/mcp__notes__create already reported success, and you switched to ax_snapshot/);
  });

  it('exempts any repeatable tool from overuse, and counts a tool called screenshot that declares nothing', () => {
    const frames = (traits: ToolTraits) =>
      run(Array.from({ length: 16 }, (_, i) => ok('screenshot', { display: i % 2 }, `frame ${i}`, traits)));
    expect(fired(frames({ repeatable: true })).filter((x) => x.detector === 'tool_overuse')).toEqual([]);
    expect(fired(frames({})).map((x) => x.detector)).toContain('tool_overuse');
  });

  it('escalates fruitless searches of any search-family tool, and not of a grep that declares nothing', () => {
    const misses = (tool: string, traits: ToolTraits) =>
      run(['a', 'b', 'c'].map((p) => ok(tool, { pattern: p }, 'No matches found', traits)));
    expect(misses('code_search', { family: 'search' })[2]).toMatchObject({
      action: 'nudge',
      detector: 'search_escalation',
    });
    expect(fired(misses('grep', {}))).toEqual([]);
  });

  it('compares the calls of any web-family tool by topic', () => {
    const v = run(
      ['rust async', 'async rust', 'Rust async 2025'].map((q, i) =>
        ok('mcp__kagi__search', { query: q }, `r${i}`, { family: 'web' }),
      ),
    );
    expect(v[2]).toMatchObject({ action: 'nudge', detector: 'topic_no_progress' });
  });

  it('judges read-family calls as it judges calls with no family', () => {
    const calls = (traits: ToolTraits) =>
      Array.from({ length: 8 }, (_, i) => ok('reader', { path: `f${i % 2}` }, 'see https://a.com/x', traits));
    expect(actions(run(calls({ family: 'read' })))).toEqual(actions(run(calls({}))));
    expect(actions(run(calls({ family: 'web' })))).not.toEqual(actions(run(calls({}))));
  });
});
