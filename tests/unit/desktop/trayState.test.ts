import { describe, expect, it } from 'vitest';
import { DesktopActivity } from '../../../src-main/core/desktop/activity.js';
import { trayStateFor } from '../../../src-main/core/desktop/trayState.js';
import type { RoutedEvent } from '../../../src-main/core/api/protocol.js';

const at = '2026-01-01T00:00:00Z';
const usage = {
  input_tokens: 0,
  output_tokens: 0,
  cache_read_tokens: 0,
  cache_creation_tokens: 0,
  cost_usd: 0,
  requests: 0,
};
const start = (session_id: string, source = 'desktop'): RoutedEvent => ({
  type: 'session_start',
  session_id,
  seq: 0,
  at,
  agent: 'default',
  source,
  origin: 'attended',
  model: 'm',
  resumed: false,
  cwd: '/',
});
const end = (
  session_id: string,
  stop_reason: 'final' | 'error' | 'cancelled' = 'final',
  text = 'done',
): RoutedEvent => ({ type: 'session_end', session_id, seq: 9, at, stop_reason, text, usage, iterations: 1 });
const ask = (session_id: string, request_id: string): RoutedEvent => ({
  type: 'approval_request',
  session_id,
  seq: 1,
  at,
  request_id,
  tool: 'bash',
  summary: 'rm -rf build',
  reason: 'writes',
  layer: 'mode',
  risk: 'high',
  risk_explanation: 'deletes files',
  agent: 'default',
  route: 'desktop',
  source: 'desktop',
  origin: 'attended',
  input: { command: 'rm -rf build' },
  asked_at: at,
});
const answer = (session_id: string, request_id: string): RoutedEvent => ({
  type: 'approval_response',
  session_id,
  seq: 2,
  at,
  request_id,
  decision: 'allow',
  by: 'desktop',
});

describe('trayStateFor', () => {
  it('is idle with nothing going on', () => {
    expect(trayStateFor(0, 0, undefined)).toEqual({ name: 'idle', title: '', tooltip: 'Rein' });
  });

  it('is working while runs are in flight', () => {
    expect(trayStateFor(0, 2, undefined)).toMatchObject({
      name: 'working',
      title: '',
      tooltip: 'Rein: working (2 runs)',
    });
  });

  it('shows waiting approvals first, with their count beside the icon, even over an error', () => {
    expect(trayStateFor(1, 3, 'boom')).toEqual({
      name: 'approval',
      title: '1',
      tooltip: 'Rein: 1 approval waiting for you',
    });
    expect(trayStateFor(3, 0, undefined)).toMatchObject({ title: '3', tooltip: 'Rein: 3 approvals waiting for you' });
  });

  it('shows an error over work in progress, as one short line', () => {
    const state = trayStateFor(0, 1, `run failed: ${'x'.repeat(300)}\nstack…`);
    expect(state.name).toBe('error');
    expect(state.tooltip.length).toBeLessThanOrEqual('Rein: '.length + 120);
    expect(state.tooltip).not.toContain('\n');
  });
});

describe('DesktopActivity', () => {
  it('counts runs from session_start to session_end', () => {
    const a = new DesktopActivity();
    a.observe(start('s1'));
    a.observe(start('s2'));
    expect(a.trayState().name).toBe('working');
    a.observe(end('s1'));
    expect(a.activeRuns).toBe(1);
    a.observe(end('s2'));
    expect(a.trayState().name).toBe('idle');
  });

  it('counts approvals until answered, and drops those of a run that ended without an answer', () => {
    const a = new DesktopActivity();
    a.observe(start('s1'));
    a.observe(ask('s1', 'apr_1'));
    a.observe(ask('s1', 'apr_2'));
    expect(a.trayState()).toMatchObject({ name: 'approval', title: '2' });
    a.observe(answer('s1', 'apr_1'));
    expect(a.pendingApprovals).toBe(1);
    a.observe(end('s1', 'cancelled'));
    expect(a.pendingApprovals).toBe(0);
  });

  it('counts a permission change waiting for the person like an approval, and notes it once', () => {
    const a = new DesktopActivity();
    const change = {
      change_id: 'chg_0123456789abcdef',
      kind: 'save_agent',
      agent: 'ops',
      summary: 'Change agent "ops": auto_approve turned on',
      raises: [{ field: 'auto_approve', change: 'turned on' }],
      request: {},
      requested_by: 'daemon',
      requested_at: at,
      expires_at: at,
    };
    expect(a.observe({ type: 'change_request', at, change })).toEqual({
      kind: 'change_requested',
      change_id: change.change_id,
      agent: 'ops',
      summary: change.summary,
    });
    expect(a.trayState()).toMatchObject({ name: 'approval', title: '1' });
    a.observe({ type: 'change_response', at, change_id: change.change_id, outcome: 'rejected', by: 'desktop' });
    expect(a.pendingChanges).toBe(0);
    expect(a.trayState().name).toBe('idle');
  });

  it('remembers a failed run until the window is opened or a later run succeeds', () => {
    const a = new DesktopActivity();
    a.observe(start('s1'));
    a.observe({ type: 'error', session_id: 's1', seq: 3, at, code: 'llm_failed', message: 'overloaded' });
    const note = a.observe(end('s1', 'error', ''));
    expect(note).toMatchObject({ kind: 'run_ended', stop_reason: 'error', error: 'overloaded', source: 'desktop' });
    expect(a.trayState()).toMatchObject({ name: 'error', tooltip: 'Rein: run failed: overloaded' });
    a.acknowledgeError();
    expect(a.trayState().name).toBe('idle');

    a.observe(start('s2'));
    a.observe(end('s2', 'error', ''));
    expect(a.lastError).toBe('run failed: unknown error');
    a.observe(start('s3'));
    a.observe(end('s3', 'final'));
    expect(a.lastError).toBeUndefined();
  });

  it('reports an approval request and a finished run as notes, with the run source', () => {
    const a = new DesktopActivity();
    a.observe(start('s1', 'schedule'));
    expect(a.observe(ask('s1', 'apr_9'))).toMatchObject({
      kind: 'approval_requested',
      request_id: 'apr_9',
      tool: 'bash',
      risk: 'high',
    });
    expect(a.observe(end('s1', 'final', 'all good'))).toMatchObject({
      kind: 'run_ended',
      source: 'schedule',
      text: 'all good',
    });
  });
});
