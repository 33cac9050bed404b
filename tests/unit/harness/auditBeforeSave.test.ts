/**
 * A tool call's audit line is on disk before the save that records its result: a run killed right after
 * that save never leaves a call in the session that the audit log does not have. Here the audit log is
 * slow (its appends take a while, as behind another process's lock) and every save checks the lines.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditLog, type AuditEntryInput } from '../../../src-main/core/audit/auditLog.js';
import { SessionStore } from '../../../src-main/core/sessions/store.js';
import type { SessionFile } from '../../../src-main/core/sessions/types.js';
import { startFakeAnthropic, text, toolCall, tools, type FakeAnthropic } from '../../support/fakeAnthropic.js';
import { face, runWith, testTool } from '../../support/harness.js';

let fake: FakeAnthropic;
beforeEach(async () => {
  fake = await startFakeAnthropic();
});
afterEach(async () => {
  await fake.close();
});

/** An audit log whose lines land some milliseconds after they were asked for. */
class SlowAudit extends AuditLog {
  readonly written: AuditEntryInput[] = [];
  override append(entry: AuditEntryInput): Promise<void> {
    return new Promise((resolve) =>
      setTimeout(() => {
        this.written.push(entry);
        resolve();
      }, 40),
    );
  }
}

/** A store that, at every save, lists the saved tool calls the audit log does not have yet. */
class CheckingStore extends SessionStore {
  readonly missing: string[] = [];
  saves = 0;
  constructor(
    dir: string,
    readonly audit: SlowAudit,
  ) {
    super(dir);
  }
  override save(s: SessionFile): Promise<void> {
    this.saves++;
    const audited = new Set(this.audit.written.map((e) => `${e.tool} ${JSON.stringify(e.args)}`));
    for (const m of s.messages) {
      if (!Array.isArray(m.content)) continue;
      for (const b of m.content)
        if (b.type === 'tool_use' && !audited.has(`${b.name} ${JSON.stringify(b.input)}`))
          this.missing.push(`${b.name} ${JSON.stringify(b.input)}`);
    }
    return super.save(s);
  }
}

describe('audit lines and saves', () => {
  it('every call’s line, allowed or denied, is written before the save that holds its result', async () => {
    const reader = testTool('reader');
    const writer = testTool('writer', { readOnly: false });
    fake.enqueue(
      tools([toolCall('reader', { arg: 'a' }), toolCall('reader', { arg: 'b' }), toolCall('writer', { arg: 'c' })]),
      tools([toolCall('reader', { arg: 'd' })]),
      text('done'),
    );
    const audit = new SlowAudit(join(await mkdtemp(join(tmpdir(), 'rein-audit-')), 'audit.jsonl'));
    const store = new CheckingStore(join(await mkdtemp(join(tmpdir(), 'rein-sessions-')), 'sessions'), audit);
    const { outcome } = await runWith(fake, { tools: [reader, writer], faces: [face('deny')], store, deps: { audit } });
    expect(outcome.stopReason).toBe('final');
    expect(audit.written.map((e) => `${e.tool} ${e.decision}`)).toEqual([
      'writer deny',
      'reader allow',
      'reader allow',
      'reader allow',
    ]);
    expect(store.saves).toBeGreaterThanOrEqual(3);
    expect(store.missing).toEqual([]);
  });
});
