import { describe, expect, it } from 'vitest';
import { DesktopActivity } from '../../../src-main/core/desktop/activity.js';
import { trayStateFor } from '../../../src-main/core/desktop/trayState.js';
import type { RoutedEvent } from '../../../src-main/core/daemon/protocol.js';

const at = '2026-01-01T00:00:00Z';
const usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0, costUsd: 0, requests: 0 };
const start = (sessionId: string, source = 'desktop'): RoutedEvent => ({ type: 'session_start', sessionId, seq: 0, at, agent: 'default', source, model: 'm', resumed: false, cwd: '/' });
const end = (sessionId: string, stopReason: 'final' | 'error' | 'cancelled' = 'final', text = 'done'): RoutedEvent => ({ type: 'session_end', sessionId, seq: 9, at, stopReason, text, usage, iterations: 1 });
const ask = (sessionId: string, requestId: string): RoutedEvent => ({ type: 'approval_request', sessionId, seq: 1, at, requestId, tool: 'bash', summary: 'rm -rf build', reason: 'writes', layer: 'mode', risk: 'high', riskExplanation: 'deletes files', agent: 'default' });
const answer = (sessionId: string, requestId: string): RoutedEvent => ({ type: 'approval_response', sessionId, seq: 2, at, requestId, decision: 'allow', by: 'desktop' });

describe('trayStateFor', () => {
  it('is idle with nothing going on', () => {
    expect(trayStateFor(0, 0, undefined)).toEqual({ name: 'idle', title: '', tooltip: 'Rein' });
  });

  it('is working while runs are in flight', () => {
    expect(trayStateFor(0, 2, undefined)).toMatchObject({ name: 'working', title: '', tooltip: 'Rein: working (2 runs)' });
  });

  it('shows waiting approvals first, with their count beside the icon, even over an error', () => {
    expect(trayStateFor(1, 3, 'boom')).toEqual({ name: 'approval', title: '1', tooltip: 'Rein: 1 approval waiting for you' });
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

  it('remembers a failed run until the window is opened or a later run succeeds', () => {
    const a = new DesktopActivity();
    a.observe(start('s1'));
    a.observe({ type: 'error', sessionId: 's1', seq: 3, at, code: 'llm_failed', message: 'overloaded' });
    const note = a.observe(end('s1', 'error', ''));
    expect(note).toMatchObject({ kind: 'run_ended', stopReason: 'error', error: 'overloaded', source: 'desktop' });
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
    expect(a.observe(ask('s1', 'apr_9'))).toMatchObject({ kind: 'approval_requested', requestId: 'apr_9', tool: 'bash', risk: 'high' });
    expect(a.observe(end('s1', 'final', 'all good'))).toMatchObject({ kind: 'run_ended', source: 'schedule', text: 'all good' });
  });
});
