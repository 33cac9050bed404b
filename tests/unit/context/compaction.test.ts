import { mkdtemp, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { requestHistory, SUMMARY_OPEN, type CompactionCheckpoint } from '../../../src-main/core/context/checkpoint.js';
import {
  compactIfNeeded,
  newCompactionState,
  shouldCompact,
  type CompactionDeps,
  type CompactionInput,
} from '../../../src-main/core/context/compaction.js';
import { historyShapeProblems } from '../../../src-main/core/context/historyShape.js';
import { houseKeep, newHouseKeepState } from '../../../src-main/core/context/houseKeep.js';
import { IDENTIFIERS_HEADING } from '../../../src-main/core/context/identifiers.js';
import { estimateMessagesTokens } from '../../../src-main/core/context/tokens.js';
import { SessionFile, type SessionMessage } from '../../../src-main/core/sessions/types.js';
import {
  assistant,
  choreOf,
  fakeSmallModel,
  llmFailure,
  toolCalls,
  toolResults,
  toolSession,
  user,
} from './helpers.js';

const WINDOW = 40_000;
const FIXED = 2_000;
const PLANTED = [
  '/srv/app/config/prod.yaml',
  'db.internal:5432',
  'deploy-7f3a9c2e',
  'https://ops.example.com/runbooks/42',
];

/** U0, an early exchange that plants identifiers, then `n` tool iterations of 8 KB results. */
function plantedSession(n = 30): SessionMessage[] {
  const rest = toolSession(n, 8000).slice(1);
  return [
    user('Deploy the new config'),
    toolCalls(
      [{ id: 'plant', name: 'file_read', input: { path: PLANTED[0] } }],
      'Reading the production config first.',
    ),
    toolResults([{ id: 'plant', text: `database: ${PLANTED[1]}\nrelease: ${PLANTED[2]}` }]),
    assistant(
      `${PLANTED[0]} points at release ${PLANTED[2]}; the runbook at ${PLANTED[3]} says to restart after deploying.`,
    ),
    user(`ok, go on, and keep ${PLANTED[1]} as the database`),
    ...rest,
  ];
}

const overLimit = { inputTokens: 100, cacheReadTokens: 36_000, cacheCreationTokens: 0 };

function input(messages: SessionMessage[], over: Partial<CompactionInput> = {}): CompactionInput {
  return {
    session: { messages },
    contextWindow: WINDOW,
    fixedTokens: FIXED,
    lastUsage: overLimit,
    state: newCompactionState(),
    ...over,
  };
}

function deps(
  llm: ReturnType<typeof fakeSmallModel>,
  over: Partial<CompactionDeps> = {},
): CompactionDeps & { warnings: string[] } {
  const warnings: string[] = [];
  return {
    llm,
    model: 'claude-haiku-5-5',
    signal: new AbortController().signal,
    now: () => new Date('2026-03-14T10:00:00Z'),
    warn: (m) => warnings.push(m),
    warnings,
    ...over,
  };
}

describe('compaction trigger', () => {
  it('compacts at 85% of the window by the last real usage (input + cache read + cache creation)', () => {
    const messages = plantedSession(4);
    expect(
      shouldCompact(
        input(messages, { lastUsage: { inputTokens: 1000, cacheReadTokens: 32_000, cacheCreationTokens: 1000 } }),
      ),
    ).toBe(true);
    expect(
      shouldCompact(
        input(messages, { lastUsage: { inputTokens: 1000, cacheReadTokens: 31_000, cacheCreationTokens: 1000 } }),
      ),
    ).toBe(false);
  });

  it('adds an estimate of the messages appended since that request', () => {
    const messages = plantedSession(4); // the last two messages hold an 8 KB result
    const usage = { inputTokens: 0, cacheReadTokens: 32_000, cacheCreationTokens: 0 };
    expect(shouldCompact(input(messages, { lastUsage: usage }))).toBe(false);
    expect(shouldCompact(input(messages, { lastUsage: { ...usage, messagesSent: messages.length - 2 } }))).toBe(true);
  });

  it('uses an estimate of what will be sent (after housekeeping) when there is no usage yet, as on resume', () => {
    const messages = plantedSession(30);
    expect(estimateMessagesTokens(messages)).toBeGreaterThan(WINDOW);
    expect(shouldCompact(input(messages, { lastUsage: undefined }))).toBe(true);
    // With housekeeping, 30 results of 8 KB shrink to well under the threshold.
    expect(shouldCompact(input(messages, { lastUsage: undefined, housekeeping: { state: newHouseKeepState() } }))).toBe(
      false,
    );
  });

  it('does nothing and calls no model below the threshold', async () => {
    const llm = fakeSmallModel();
    const r = await compactIfNeeded(
      input(plantedSession(4), { lastUsage: { inputTokens: 10, cacheReadTokens: 0, cacheCreationTokens: 0 } }),
      deps(llm),
    );
    expect(r).toBeUndefined();
    expect(llm.requests).toHaveLength(0);
  });
});

describe('proactive compaction', () => {
  it('replaces the older part with a summary and keeps the newest messages that fit, never splitting a tool pair', async () => {
    const messages = plantedSession(30);
    const llm = fakeSmallModel('## Task state\nDeploying; 20 files read.');
    const r = (await compactIfNeeded(input(messages), deps(llm)))!;
    expect(r.summarised).toBe(true);
    expect(r.learnings).toBe('skipped');
    expect(messages[r.checkpoint.firstKeptIndex]!.role).toBe('assistant');
    expect(r.droppedMessages).toBe(r.checkpoint.firstKeptIndex - 1);

    const sent = requestHistory({ messages, checkpoint: r.checkpoint });
    expect(historyShapeProblems(sent)).toEqual([]);
    const first = sent[0]!.content as Array<{ type: string; text: string }>;
    expect(first[0]!.text).toBe('Deploy the new config');
    expect(first[1]!.text.startsWith(SUMMARY_OPEN)).toBe(true);
    expect(first[1]!.text).toContain('## Task state\nDeploying; 20 files read.');
    expect(sent.slice(1)).toEqual(messages.slice(r.checkpoint.firstKeptIndex));
    // Lands at or under half the window, with the kept part as large as fits.
    expect(r.tokensAfter).toBeLessThanOrEqual(WINDOW / 2);
    expect(r.tokensAfter).toBeGreaterThan(WINDOW / 4);
    expect(r.tokensBefore).toBe(36_100);
    // The summariser saw the dropped part as a transcript, without the kept part.
    const prompt = llm.requests[0]!.messages[0]!.content as string;
    expect(prompt).toContain('[tool_call: file_read {"path":"/srv/app/config/prod.yaml"}]');
    expect(prompt).not.toContain(`END-t29`);
    expect(llm.requests[0]!.model).toBe('claude-haiku-5-5');
    expect(llm.requests[0]!.temperature).toBe(0.2);
  });

  it('keeps identifiers planted early: the ones the summary lacks are appended verbatim', async () => {
    const messages = plantedSession(30);
    const llm = fakeSmallModel(`We deploy per the runbook; config at ${PLANTED[0]}.`);
    const r = (await compactIfNeeded(input(messages), deps(llm)))!;
    expect(r.identifiersAppended).toEqual(expect.arrayContaining([PLANTED[1], PLANTED[2], PLANTED[3]]));
    expect(r.identifiersAppended).not.toContain(PLANTED[0]);
    expect(r.checkpoint.summary).toContain(IDENTIFIERS_HEADING);
    const sentText = JSON.stringify(requestHistory({ messages, checkpoint: r.checkpoint }));
    for (const id of PLANTED) expect(sentText).toContain(id);
  });

  it('write-before-compact: appends the extracted facts to MEMORY.md through boundedAppend before summarising', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rein-mem-'));
    const llm = fakeSmallModel(
      '- Production DB is db.internal:5432\n- Restart after deploying (runbook 42)',
      'the summary',
    );
    const r = (await compactIfNeeded(input(plantedSession(30)), deps(llm, { memoryDir: dir })))!;
    expect(r.learnings).toBe('written');
    expect(llm.requests.map(choreOf)).toEqual(['learnings', 'summary']);
    const memory = await readFile(join(dir, 'MEMORY.md'), 'utf8');
    expect(memory).toMatch(
      /^\n## Auto-persisted \(2026-03-14 \d\d:00\)\n\n- Production DB is db.internal:5432\n- Restart after deploying \(runbook 42\)\n$/,
    );
    expect(llm.requests[0]!.messages[0]!.content).toContain('## Existing Memory (do not duplicate)');
  });

  it('write-before-compact: NONE writes nothing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rein-mem-'));
    const llm = fakeSmallModel('NONE', 'the summary');
    const r = (await compactIfNeeded(input(plantedSession(30)), deps(llm, { memoryDir: dir })))!;
    expect(r.learnings).toBe('none');
    await expect(stat(join(dir, 'MEMORY.md'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('write-before-compact failing is reported, not fatal', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rein-mem-'));
    const llm = fakeSmallModel(llmFailure('small model down'), 'the summary');
    const d = deps(llm, { memoryDir: dir });
    const r = (await compactIfNeeded(input(plantedSession(30)), d))!;
    expect(r.learnings).toBe('failed');
    expect(r.summarised).toBe(true);
    expect(d.warnings[0]).toMatch(/write-before-compact.*small model down/);
  });

  it('retries a failed summary once', async () => {
    const state = newCompactionState();
    const llm = fakeSmallModel(llmFailure(), '   ', 'second try'); // an empty answer counts as a failure too
    const first = await compactIfNeeded(
      input(plantedSession(30), { state }),
      deps(fakeSmallModel(llmFailure(), 'ok now')),
    );
    expect(first!.summarised).toBe(true);
    const r = (await compactIfNeeded(input(plantedSession(30), { state }), deps(llm)))!;
    expect(r.summarised).toBe(false); // failure + empty answer = two failures
    expect(state.consecutiveFailures).toBe(1);
    expect(llm.remaining()).toBe(1);
  });

  it('falls back to dropping the oldest turns with a note (identifiers still kept) when the summary fails twice', async () => {
    const messages = plantedSession(30);
    const state = newCompactionState();
    const d = deps(fakeSmallModel(llmFailure(), llmFailure()));
    const r = (await compactIfNeeded(input(messages, { state }), d))!;
    expect(r.summarised).toBe(false);
    expect(r.checkpoint.summarised).toBe(false);
    expect(r.checkpoint.summary).toMatch(/could not be summarised and was left out here/);
    for (const id of PLANTED) expect(r.checkpoint.summary).toContain(id);
    expect(historyShapeProblems(requestHistory({ messages, checkpoint: r.checkpoint }))).toEqual([]);
    expect(state.consecutiveFailures).toBe(1);
    expect(d.warnings.join('\n')).toMatch(/summary failed twice/);
  });

  it('after three failures in a row stops asking for summaries for 5 iterations, then tries again', async () => {
    const state = newCompactionState();
    const messages = plantedSession(30);
    const failing = () => fakeSmallModel(llmFailure(), llmFailure());
    for (let i = 0; i < 3; i++) await compactIfNeeded(input(messages, { state }), deps(failing()));
    expect(state.consecutiveFailures).toBe(3);

    // The next 5 iterations: compaction still relieves the window, without calling the summariser.
    for (let i = 0; i < 5; i++) {
      const idle = fakeSmallModel();
      const r = (await compactIfNeeded(input(messages, { state }), deps(idle)))!;
      expect(r.summarised).toBe(false);
      expect(idle.requests).toHaveLength(0);
    }
    // Then the back-off is over; a success resets the count.
    const back = fakeSmallModel('summary again');
    const r = (await compactIfNeeded(input(messages, { state }), deps(back)))!;
    expect(back.requests).toHaveLength(1);
    expect(r.summarised).toBe(true);
    expect(state.consecutiveFailures).toBe(0);
  });

  it('a second compaction absorbs the first summary and moves the checkpoint forward', async () => {
    let messages = plantedSession(30);
    const r1 = (await compactIfNeeded(input(messages), deps(fakeSmallModel('FIRST SUMMARY'))))!;
    for (let i = 30; i < 45; i++)
      messages = [...messages, toolCalls([{ id: `t${i}` }]), toolResults([{ id: `t${i}`, text: 'y'.repeat(8000) }])];
    const llm = fakeSmallModel((req) =>
      String(req.messages[0]!.content).includes('FIRST SUMMARY')
        ? 'SECOND SUMMARY'
        : new Error('previous summary missing'),
    );
    const r2 = (await compactIfNeeded(
      input(messages, { session: { messages, checkpoint: r1.checkpoint } }),
      deps(llm),
    ))!;
    expect(r2.summarised).toBe(true);
    expect(r2.checkpoint.firstKeptIndex).toBeGreaterThan(r1.checkpoint.firstKeptIndex);
    expect(r2.droppedMessages).toBe(r2.checkpoint.firstKeptIndex - r1.checkpoint.firstKeptIndex);
    const sent = requestHistory({ messages, checkpoint: r2.checkpoint });
    expect(JSON.stringify(sent)).toContain('SECOND SUMMARY');
    expect(JSON.stringify(sent)).not.toContain('FIRST SUMMARY');
    // The identifiers of the first summary are carried into the second.
    for (const id of PLANTED) expect(r2.checkpoint.summary).toContain(id);
    expect(historyShapeProblems(sent)).toEqual([]);
  });

  it('cuts the texts of a huge first message in requests (and only there)', async () => {
    const messages = plantedSession(30);
    messages[0] = user('x'.repeat(60_000));
    const r = (await compactIfNeeded(input(messages), deps(fakeSmallModel('s'))))!;
    expect(r.checkpoint.firstMessageMaxChars).toBeDefined();
    const sent = requestHistory({ messages, checkpoint: r.checkpoint });
    const text = (sent[0]!.content as Array<{ text: string }>)[0]!.text;
    expect(text.length).toBeLessThan(r.checkpoint.firstMessageMaxChars! + 100);
    expect(text).toMatch(/characters omitted to save context/);
    expect((messages[0]!.content as Array<{ text: string }>)[0]!.text).toHaveLength(60_000);
  });
});

describe('checkpoint and requestHistory', () => {
  async function compacted() {
    const messages = plantedSession(30);
    const r = (await compactIfNeeded(input(messages), deps(fakeSmallModel('the summary'))))!;
    return { messages, checkpoint: r.checkpoint };
  }

  it('round-trips through the session file: a resumed session continues from the checkpoint', async () => {
    const { messages, checkpoint } = await compacted();
    const session: SessionFile = {
      version: 1,
      id: '2026-03-14-0123456789ab',
      agent: 'default',
      title: 't',
      cwd: '/w',
      source: 'local',
      created_at: '2026-03-14T10:00:00Z',
      updated_at: '2026-03-14T10:00:00Z',
      messages,
      message_meta: messages.map(() => ({ source: 'local', timestamp: '2026-03-14T10:00:00Z' })),
      usage: {
        input_tokens: 0,
        output_tokens: 0,
        cache_read_tokens: 0,
        cache_creation_tokens: 0,
        cost_usd: 0,
        requests: 0,
      },
      checkpoint,
    };
    const loaded = SessionFile.parse(JSON.parse(JSON.stringify(session)));
    expect(loaded.messages).toHaveLength(messages.length); // the full transcript stays
    expect(requestHistory(loaded)).toEqual(requestHistory(session));

    loaded.messages.push(assistant('Done with the deploy.'), user('thanks, now the docs'));
    const resumed = requestHistory(loaded);
    expect(resumed.slice(-2)).toEqual(loaded.messages.slice(-2));
    expect(resumed.length).toBe(loaded.messages.length - checkpoint.firstKeptIndex + 1);
    expect(historyShapeProblems(resumed)).toEqual([]);
  });

  it('finds the kept message again when a repair shifted the indexes', async () => {
    const { messages, checkpoint } = await compacted();
    const before = requestHistory({ messages, checkpoint });
    const repaired = [messages[0]!, ...messages.slice(3)]; // two early messages gone
    const after = requestHistory({ messages: repaired, checkpoint });
    expect(after).toEqual(before);
  });

  it('ignores a checkpoint that does not fit the transcript or does not validate', async () => {
    const { messages, checkpoint } = await compacted();
    const other = toolSession(5);
    expect(requestHistory({ messages: other, checkpoint })).toEqual(other);
    expect(
      requestHistory({
        messages,
        checkpoint: { ...checkpoint, firstKeptIndex: 'x' } as unknown as CompactionCheckpoint,
      }),
    ).toEqual(messages);
    expect(requestHistory({ messages, checkpoint: 'garbage' })).toEqual(messages);
  });

  it('housekeeping on the request history keeps decisions across the checkpoint', async () => {
    const { messages, checkpoint } = await compacted();
    const state = newHouseKeepState();
    const full = houseKeep(messages, state);
    const sent = houseKeep(requestHistory({ messages, checkpoint }), state);
    expect(sent.slice(1)).toEqual(full.slice(checkpoint.firstKeptIndex));
    expect(historyShapeProblems(sent)).toEqual([]);
  });
});
