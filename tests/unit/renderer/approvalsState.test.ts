// The approvals queue: filled from GET /approvals, kept current by the event stream, emptied by answers
// from any client.
import { describe, expect, it } from 'vitest';
import type { ApiEvent, PendingApproval } from '../../../src-main/core/api/index.js';
import { approvalsReducer, emptyApprovals } from '../../../src-renderer/src/state/approvals.js';

const ID1 = 'apr_0000000000000001';
const ID2 = 'apr_0000000000000002';
const base = { seq: 1, at: '2026-01-02T10:00:00.000Z' };
const ask = (requestId: string, sessionId = 's1', extra: object = {}): ApiEvent =>
  ({ ...base, sessionId, type: 'approval_request', requestId, tool: 'bash', summary: 'touch a', reason: 'writes', layer: 'ask', risk: 'medium', riskExplanation: 'creates a file', route: 'slack:C1', agent: 'default', ...extra }) as ApiEvent;

const listed = (request_id: string): PendingApproval => ({
  request_id,
  session_id: 's1',
  agent: 'ops',
  route: 'agent:ops',
  source: 'chat',
  tool: 'file_write',
  summary: 'note.txt',
  reason: 'writes a file',
  risk: 'medium',
  risk_explanation: 'creates a file',
  asked_at: base.at,
});

describe('approvals queue', () => {
  it('adds each request once, from any route, with the arguments of the call that asked', () => {
    let s = approvalsReducer(emptyApprovals(), { type: 'event', event: { ...base, sessionId: 's1', type: 'tool_call_start', callId: 'c', tool: 'bash', input: { command: 'touch a' }, summary: 'touch a' } as ApiEvent });
    s = approvalsReducer(s, { type: 'event', event: ask(ID1) });
    s = approvalsReducer(s, { type: 'event', event: ask(ID1) });
    expect(s.pending).toHaveLength(1);
    expect(s.pending[0]).toMatchObject({ requestId: ID1, route: 'slack:C1', agent: 'default', input: { command: 'touch a' }, risk: 'medium' });
  });

  it('drops a request when anyone answers it, and when its run ends', () => {
    let s = approvalsReducer(emptyApprovals(), { type: 'event', event: ask(ID1) });
    s = approvalsReducer(s, { type: 'event', event: ask(ID2, 's2') });
    s = approvalsReducer(s, { type: 'event', event: { ...base, sessionId: 's1', type: 'approval_response', requestId: ID1, decision: 'allow', by: 'terminal' } as ApiEvent });
    expect(s.pending.map((p) => p.requestId)).toEqual([ID2]);
    s = approvalsReducer(s, {
      type: 'event',
      event: { ...base, sessionId: 's2', type: 'session_end', stopReason: 'cancelled', text: '', iterations: 0, usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0, costUsd: 0, requests: 0 } } as ApiEvent,
    });
    expect(s.pending).toEqual([]);
  });

  it('takes the server list as the truth when loaded, keeping arguments it already knew', () => {
    let s = approvalsReducer(emptyApprovals(), { type: 'event', event: { ...base, sessionId: 's1', type: 'tool_call_start', callId: 'c', tool: 'bash', input: { command: 'touch a' }, summary: 'touch a' } as ApiEvent });
    s = approvalsReducer(s, { type: 'event', event: ask(ID1) });
    s = approvalsReducer(s, { type: 'loaded', approvals: [listed(ID1), listed(ID2)] });
    expect(s.pending.map((p) => p.requestId)).toEqual([ID1, ID2]);
    expect(s.pending[0]!.input).toEqual({ command: 'touch a' });
    expect(s.pending[1]).toMatchObject({ agent: 'ops', route: 'agent:ops', riskExplanation: 'creates a file' });
    expect(approvalsReducer(s, { type: 'answered', requestId: ID2 }).pending).toHaveLength(1);
  });
});
