import { describe, expect, it } from 'vitest';
import type { ReinEventBody } from '../../../src-main/core/api/events.js';
import { TOOL_EVENT_SINK } from '../../../src-main/core/harness/executor.js';
import type { ElicitationRequest } from '../../../src-main/core/mcpClient/elicitation.js';
import { oneLine, refusal, runElicitor } from '../../../src-main/core/runtime/serverQuestions.js';
import type { Runtime } from '../../../src-main/core/runtime/types.js';
import { sessionSlots } from '../../../src-main/core/tools/sessionSlots.js';
import type { ToolContext } from '../../../src-main/core/tools/tool.js';

const form: ElicitationRequest = {
  server: 'everything',
  tool: 'mcp__everything__ask',
  input: { token: 'sk-ant-secret-value-1234567890' },
  message: 'Your\n  name?',
  schema: { type: 'object', properties: { name: { type: 'string', default: 'Ada' } } },
};

function setup(o: {
  yes?: boolean;
  mayAsk?: boolean;
  answer?: { decision: 'allow' | 'deny'; by: string; values?: Record<string, unknown> };
  openUrl?: (u: URL) => void;
}) {
  const asked: unknown[] = [];
  const rt = {
    agent: 'main',
    route: 'cli',
    source: 'cli',
    origin: 'attended',
    broker: {
      request: async (req: unknown) => {
        asked.push(req);
        return o.answer ?? { decision: 'deny', by: 'timeout' };
      },
    },
    elicitation: {
      yes: o.yes ?? false,
      mayAsk: () => (o.mayAsk === false ? { ok: false } : { ok: true }),
      ...(o.openUrl ? { openUrl: o.openUrl } : {}),
    },
  } as unknown as Runtime;
  const ctx = { sessionId: 's1' } as ToolContext;
  const events: ReinEventBody[] = [];
  sessionSlots(ctx).seed(TOOL_EVENT_SINK, (e) => events.push(e));
  return { elicitor: runElicitor(rt, ctx), asked, events };
}

const signal = new AbortController().signal;

describe("an MCP server's question during a call", () => {
  it('takes the form defaults with --yes, asking nobody', async () => {
    const { elicitor, asked } = setup({ yes: true });
    await expect(elicitor(form, signal)).resolves.toEqual({ action: 'accept', content: { name: 'Ada' } });
    expect(asked).toEqual([]);
  });

  it('declines in a run nobody may be asked in', async () => {
    const { elicitor, asked } = setup({ mayAsk: false });
    await expect(elicitor(form, signal)).resolves.toEqual({ action: 'decline' });
    expect(asked).toEqual([]);
  });

  it("asks the run's faces with the input masked, announced as approval events, and returns the person's values", async () => {
    const { elicitor, asked, events } = setup({
      answer: { decision: 'allow', by: 'terminal', values: { name: 'Grace' } },
    });
    await expect(elicitor(form, signal)).resolves.toEqual({ action: 'accept', content: { name: 'Grace' } });
    expect(asked).toHaveLength(1);
    const request = asked[0] as { summary: string; layer: string; input: unknown; session_id: string };
    expect(request.summary).toBe('everything asks: Your name?');
    expect(request.layer).toBe('elicitation');
    expect(request.session_id).toBe('s1');
    expect(JSON.stringify(request.input)).not.toContain('sk-ant-secret-value-1234567890');
    expect(events.map((e) => e.type)).toEqual(['approval_request', 'approval_response']);
  });

  it('cancels when nobody answers, declines when the person says no', async () => {
    await expect(setup({ answer: { decision: 'deny', by: 'timeout' } }).elicitor(form, signal)).resolves.toEqual({
      action: 'cancel',
    });
    await expect(setup({ answer: { decision: 'deny', by: 'terminal' } }).elicitor(form, signal)).resolves.toEqual({
      action: 'decline',
    });
  });

  it('declines a page that is not http(s), or with nowhere to open it; opens an allowed one', async () => {
    const opened: string[] = [];
    const allow = { decision: 'allow' as const, by: 'terminal' };
    const page = { ...form, schema: {}, url: 'https://example.com/sign-in' };
    await expect(setup({ answer: allow }).elicitor(page, signal)).resolves.toEqual({ action: 'decline' });
    await expect(
      setup({ answer: allow, openUrl: (u) => void opened.push(u.href) }).elicitor(
        { ...page, url: 'file:///etc/passwd' },
        signal,
      ),
    ).resolves.toEqual({ action: 'decline' });
    await expect(
      setup({ answer: allow, openUrl: (u) => void opened.push(u.href) }).elicitor(page, signal),
    ).resolves.toEqual({ action: 'accept', content: {} });
    expect(opened).toEqual(['https://example.com/sign-in']);
  });
});

describe('oneLine and refusal', () => {
  it('flattens whitespace and cuts at 300 characters', () => {
    expect(oneLine('  a\n\tb  ')).toBe('a b');
    const long = oneLine('x'.repeat(400));
    expect(long).toHaveLength(300);
    expect(long.endsWith('…')).toBe(true);
  });

  it('a deny by nobody cancels, a person’s declines', () => {
    for (const by of ['timeout', 'cancelled', 'withdrawn', 'error']) expect(refusal(by)).toEqual({ action: 'cancel' });
    expect(refusal('desktop')).toEqual({ action: 'decline' });
  });
});
