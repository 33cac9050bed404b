// The tool_progress event in every place that reads events: the schema, the CLI's text renderer and the
// page's chat state (which must neither break nor show it after the call ended).
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { textRenderer } from '../../../src-main/cli/render.js';
import { ReinEvent } from '../../../src-main/core/api/events.js';
import type { ApiEvent } from '../../../src-main/core/api/index.js';
import { chatReducer, emptyChat, type ChatState } from '../../../src-renderer/src/state/chat.js';

const SID = '2026-01-02-0123456789ab';
let seq = 0;
const ev = (body: Record<string, unknown>): ApiEvent =>
  ({
    session_id: SID,
    seq: body.type === 'session_start' ? (seq = 0) : ++seq,
    at: '2026-01-02T10:00:00.000Z',
    route: 'r',
    ...body,
  }) as ApiEvent;
const progress = (message: string) =>
  ev({ type: 'tool_progress', call_id: 'c1', tool: 'cloud_delegate', message, data: { kind: 'agent' } });

describe('tool_progress', () => {
  it('is an event of the vocabulary with snake_case fields, data optional', () => {
    const base = { session_id: SID, seq: 3, at: 'now' };
    expect(ReinEvent.parse({ ...base, type: 'tool_progress', call_id: 'c1', tool: 't', message: 'm' })).toEqual({
      ...base,
      type: 'tool_progress',
      call_id: 'c1',
      tool: 't',
      message: 'm',
    });
    expect(ReinEvent.safeParse({ ...base, type: 'tool_progress', call_id: 'c1', tool: 't' }).success).toBe(false);
  });

  it('the CLI prints it as a dim line on stderr, the answer stream untouched', () => {
    const out = new PassThrough();
    const err = new PassThrough();
    const r = textRenderer(out, err);
    r.event(
      ReinEvent.parse({
        session_id: SID,
        seq: 1,
        at: 'x',
        type: 'tool_progress',
        call_id: 'c',
        tool: 'cloud_delegate',
        message: '[researcher] started\nsecond line',
      }),
    );
    expect(String(err.read())).toBe('  … cloud_delegate: [researcher] started\n');
    expect(out.read()).toBeNull();
  });

  it('the chat shows the latest report on the running tool card, and ignores reports after the call ended', () => {
    let s: ChatState = emptyChat('ops', 'r');
    const apply = (e: ApiEvent) => (s = chatReducer(s, { type: 'event', event: e }));
    apply(
      ev({
        type: 'session_start',
        agent: 'ops',
        source: 'chat',
        origin: 'attended',
        model: 'm',
        resumed: false,
        cwd: '/',
      }),
    );
    apply(ev({ type: 'tool_call_start', call_id: 'c1', tool: 'cloud_delegate', input: {}, summary: 's' }));
    apply(progress('plan ready'));
    apply(progress('[a] started'));
    expect(s.items.find((i) => i.kind === 'tool')).toMatchObject({ status: 'running', progress: '[a] started' });
    apply(ev({ type: 'tool_call_end', call_id: 'c1', tool: 'cloud_delegate', ok: true, preview: 'p', duration_ms: 5 }));
    apply(progress('late'));
    expect(s.items.find((i) => i.kind === 'tool')).toMatchObject({ status: 'ok', progress: '[a] started' });
    // A report for a call the page never saw start changes nothing.
    const before = s.items;
    apply(ev({ type: 'tool_progress', call_id: 'unknown', tool: 't', message: 'x' }));
    expect(s.items).toEqual(before);
  });
});
