import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ReinEventBody } from '../../../../src-main/core/api/events.js';
import { admitCall } from '../../../../src-main/core/harness/execution/admission.js';
import { auditTrail } from '../../../../src-main/core/harness/execution/audit.js';
import { partition } from '../../../../src-main/core/harness/execution/batch.js';
import { CallLedger } from '../../../../src-main/core/harness/execution/ledger.js';
import {
  canonicalKey,
  TurnApprovals,
  type Admitted,
  type ExecutorDeps,
  type ToolCallRequest,
} from '../../../../src-main/core/harness/execution/types.js';
import { ApprovalBroker } from '../../../../src-main/core/permissions/approvalBroker.js';
import { basicPolicy } from '../../../../src-main/core/permissions/basicPolicy.js';
import { ToolRegistry } from '../../../../src-main/core/tools/registry.js';
import { SessionReadTracker } from '../../../../src-main/core/tools/readTracker.js';
import type { AuditLog } from '../../../../src-main/core/audit/auditLog.js';
import { testTool } from '../../../support/harness.js';

const probe = testTool('probe', { input: z.object({ n: z.number() }) });
const writer = testTool('writer', { readOnly: false });

function depsWith(over: Partial<ExecutorDeps> = {}): ExecutorDeps {
  return {
    registry: new ToolRegistry([probe, writer]),
    policy: basicPolicy(),
    broker: new ApprovalBroker([{ name: 'test', ask: async () => ({ decision: 'deny', by: 'test' }) }], {
      timeoutMs: 2_000,
    }),
    ctx: {
      cwd: '/tmp',
      sessionId: 's',
      sessionDir: '/tmp/s',
      reinHome: '/tmp/rein-home-unused',
      agent: 'default',
      readTracker: new SessionReadTracker(),
      egress: async () => ({ allowed: true }),
    },
    mode: 'default',
    source: 'test',
    agent: 'default',
    origin: 'attended',
    route: 'test',
    approvals: new TurnApprovals(),
    maxParallel: 4,
    ...over,
  };
}

async function admit(call: ToolCallRequest, deps: ExecutorDeps) {
  const ledger = new CallLedger([call], () => {});
  const gen = admitCall(ledger, 0, deps, new Map(), new AbortController().signal);
  const events: ReinEventBody[] = [];
  for (;;) {
    const step = await gen.next();
    if (step.done) return { admitted: step.value, events, ledger };
    events.push(step.value);
  }
}

describe('admission step', () => {
  it('refuses an unknown tool with the list of available ones, and tells no event', async () => {
    const { admitted, events, ledger } = await admit({ id: 'a', name: 'nope', input: {} }, depsWith());
    expect(admitted).toBeUndefined();
    expect(events).toEqual([]);
    expect(ledger.outcomes[0]!.result.content).toMatch(/unknown tool: nope\. Available tools: .*probe/);
  });

  it('coerces the model\'s "5" where the schema wants a number, and refuses invalid input as a failed call', async () => {
    const ok = await admit({ id: 'a', name: 'probe', input: { n: '5' } }, depsWith());
    expect(ok.admitted).toMatchObject({ input: { n: 5 } });
    expect(ok.ledger.approvedBy.get(0)).toEqual({ layer: expect.any(String), by: 'policy' });
    const bad = await admit({ id: 'b', name: 'probe', input: { n: 'five' } }, depsWith());
    expect(bad.admitted).toBeUndefined();
    expect(bad.events.map((e) => e.type)).toEqual(['tool_call_start', 'tool_call_end']);
  });

  it('asks about a call that writes, and a denied answer refuses it and is remembered for the turn', async () => {
    const deps = depsWith();
    const first = await admit({ id: 'a', name: 'writer', input: { arg: 'x' } }, deps);
    expect(first.admitted).toBeUndefined();
    expect(first.events.map((e) => e.type)).toEqual(['approval_request', 'approval_response', 'tool_call_denied']);
    expect(deps.approvals.denied.has(canonicalKey('writer', { arg: 'x' }))).toBe(true);
    const again = await admit({ id: 'b', name: 'writer', input: { arg: 'x' } }, deps);
    expect(again.events).toMatchObject([{ type: 'tool_call_denied', layer: 'turn_cache' }]);
  });
});

describe('batch partition', () => {
  it('runs consecutive concurrency-safe calls together and every other call alone, in order', () => {
    const a = (index: number, tool: typeof probe): Admitted => ({
      index,
      call: { id: `c${index}`, name: tool.name, input: {} },
      tool,
      input: {},
    });
    const batches = partition([a(0, probe), a(1, probe), a(2, writer), a(3, probe)], depsWith().ctx);
    expect(batches.map((b) => b.map((x) => x.index))).toEqual([[0, 1], [2], [3]]);
  });
});

describe('audit trail', () => {
  it('waits for every line it started, and a failing log is a warning, never a rejection', async () => {
    const warnings: string[] = [];
    const written: unknown[] = [];
    const audit = {
      append: async (line: unknown) => {
        written.push(line);
        if (written.length === 2) throw new Error('disk gone');
      },
    } as unknown as AuditLog;
    const trail = auditTrail(depsWith({ audit, warn: (m) => warnings.push(m) }));
    trail.audit({
      tool: 'probe',
      input: {},
      decision: 'allow',
      layer: 'policy',
      by: 'policy',
      durationMs: 1,
      ok: true,
    });
    trail.audit({ tool: 'writer', input: {}, decision: 'deny', layer: 'ask', by: 'test', durationMs: null });
    await expect(trail.written()).resolves.toBeUndefined();
    expect(written).toHaveLength(2);
    expect(written[1]).toMatchObject({ decision: 'deny', approved_by: null });
    expect(warnings).toEqual(['could not write the audit log: disk gone']);
  });
});
