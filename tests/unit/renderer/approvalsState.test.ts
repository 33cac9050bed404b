// The approvals queue: filled from GET /approvals, kept current by the event stream, emptied by answers
// from any client. Every card shows the input its request carries.
import { describe, expect, it } from 'vitest';
import type { ApiEvent, PendingApproval } from '../../../src-main/core/api/index.js';
import { approvalsReducer, emptyApprovals } from '../../../src-renderer/src/state/approvals.js';

const ID1 = 'apr_0000000000000001';
const ID2 = 'apr_0000000000000002';
const base = { seq: 1, at: '2026-01-02T10:00:00.000Z' };
const request = (request_id: string, command: string, session_id = 's1') => ({
  request_id,
  session_id,
  agent: 'default',
  route: 'slack:C1',
  source: 'slack',
  origin: 'remote' as const,
  tool: 'bash',
  input: { command },
  summary: `$ ${command}`,
  reason: 'writes',
  layer: 'tool',
  risk: 'medium' as const,
  risk_explanation: 'creates a file',
  asked_at: base.at,
});
const ask = (request_id: string, command: string, session_id = 's1'): ApiEvent => {
  const { session_id: s, ...rest } = request(request_id, command, session_id);
  return { ...base, session_id: s, type: 'approval_request', ...rest } as ApiEvent;
};
const listed = (request_id: string, command: string): PendingApproval => ({
  ...request(request_id, command),
  agent: 'ops',
  route: 'agent:ops',
});

describe('approvals queue', () => {
  it('adds each request once, from any route, with the input it carries', () => {
    let s = approvalsReducer(emptyApprovals(), { type: 'event', event: ask(ID1, 'touch a') });
    s = approvalsReducer(s, { type: 'event', event: ask(ID1, 'touch a') });
    expect(s.pending).toHaveLength(1);
    expect(s.pending[0]).toMatchObject({
      request_id: ID1,
      route: 'slack:C1',
      agent: 'default',
      origin: 'remote',
      input: { command: 'touch a' },
      risk: 'medium',
    });
  });

  it('shows each of two bash calls of one response with its own command, whatever ran before', () => {
    // An earlier call's tool_call_start must not lend its input to a later question.
    let s = approvalsReducer(emptyApprovals(), {
      type: 'event',
      event: {
        ...base,
        session_id: 's1',
        type: 'tool_call_start',
        call_id: 'c0',
        tool: 'bash',
        input: { command: 'ls' },
        summary: '$ ls',
      } as ApiEvent,
    });
    s = approvalsReducer(s, { type: 'event', event: ask(ID1, 'touch a') });
    s = approvalsReducer(s, { type: 'event', event: ask(ID2, 'touch b') });
    expect(s.pending.map((p) => p.input)).toEqual([{ command: 'touch a' }, { command: 'touch b' }]);
  });

  it('drops a request when anyone answers it, and when its run ends', () => {
    let s = approvalsReducer(emptyApprovals(), { type: 'event', event: ask(ID1, 'touch a') });
    s = approvalsReducer(s, { type: 'event', event: ask(ID2, 'touch b', 's2') });
    s = approvalsReducer(s, {
      type: 'event',
      event: {
        ...base,
        session_id: 's1',
        type: 'approval_response',
        request_id: ID1,
        decision: 'allow',
        by: 'terminal',
      } as ApiEvent,
    });
    expect(s.pending.map((p) => p.request_id)).toEqual([ID2]);
    s = approvalsReducer(s, {
      type: 'event',
      event: {
        ...base,
        session_id: 's2',
        type: 'session_end',
        stop_reason: 'cancelled',
        text: '',
        iterations: 0,
        usage: {
          input_tokens: 0,
          output_tokens: 0,
          cache_read_tokens: 0,
          cache_creation_tokens: 0,
          cost_usd: 0,
          requests: 0,
        },
      } as ApiEvent,
    });
    expect(s.pending).toEqual([]);
  });

  it('takes the server list as the truth when loaded, each item with its own input', () => {
    let s = approvalsReducer(emptyApprovals(), { type: 'event', event: ask(ID1, 'touch a') });
    s = approvalsReducer(s, { type: 'loaded', approvals: [listed(ID1, 'touch a'), listed(ID2, 'touch b')] });
    expect(s.pending.map((p) => p.request_id)).toEqual([ID1, ID2]);
    expect(s.pending.map((p) => p.input)).toEqual([{ command: 'touch a' }, { command: 'touch b' }]);
    expect(s.pending[1]).toMatchObject({ agent: 'ops', route: 'agent:ops', risk_explanation: 'creates a file' });
    expect(approvalsReducer(s, { type: 'answered', request_id: ID2 }).pending).toHaveLength(1);
  });
});
