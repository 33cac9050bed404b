// A question from an MCP server (an approval request with a form) in the page: the queue keeps the form
// from the event, and the card shows its fields with their defaults and offers Send and Decline.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it, vi } from 'vitest';
import type { ApiEvent } from '../../../src-main/core/api/index.js';
import { approvalsReducer, emptyApprovals } from '../../../src-renderer/src/state/approvals.js';
import { ApprovalsView } from '../../../src-renderer/src/views/approvals/ApprovalsView.js';

const event = {
  type: 'approval_request',
  session_id: '2026-01-05-0123456789ab',
  seq: 3,
  at: '2026-01-05T09:00:00.000Z',
  request_id: 'apr_0123456789abcdef',
  agent: 'default',
  route: 'agent:default',
  source: 'desktop',
  origin: 'attended',
  tool: 'mcp__everything__trigger-elicitation-request',
  input: {},
  summary: 'everything asks: Who are you?',
  reason: 'the MCP server everything asks for input while mcp__everything__trigger-elicitation-request runs',
  layer: 'elicitation',
  risk: 'medium',
  risk_explanation: 'what you fill in is sent to the MCP server everything',
  asked_at: '2026-01-05T09:00:00.000Z',
  form: {
    message: 'Who are you?',
    schema: {
      type: 'object',
      properties: {
        name: { type: 'string', title: 'Your name' },
        color: { type: 'string', enum: ['red', 'blue'], default: 'blue' },
        ok: { type: 'boolean', title: 'Agree' },
      },
      required: ['name'],
    },
  },
} as unknown as ApiEvent;

describe('approval forms in the page', () => {
  it('the queue keeps the form, and the card shows its fields with Send and Decline', () => {
    const s = approvalsReducer(emptyApprovals(), { type: 'event', event });
    expect(s.pending[0]!.form?.message).toBe('Who are you?');
    const html = renderToStaticMarkup(<ApprovalsView pending={s.pending} onAnswer={vi.fn()} />);
    expect(html).toContain('Who are you?');
    expect(html).toContain('Your name *');
    expect(html).toMatch(/<option value="blue" selected="">blue<\/option>/);
    expect(html).toContain('type="checkbox"');
    expect(html).toContain('>Send<');
    expect(html).toContain('>Decline<');
    expect(html).not.toContain('Always allow');
  });
});
