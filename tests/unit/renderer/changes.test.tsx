// Permission-raising changes asked for over the API: the page's queue of them, and their cards, which
// offer Apply and Reject only in the desktop app (a browser holding the token must not confirm them):
// in a browser they show the exact command that confirms them in a shell on the daemon's machine.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it, vi } from 'vitest';
import type { ApiEvent, PendingChange } from '../../../src-main/core/api/index.js';
import { changesReducer, emptyChanges } from '../../../src-renderer/src/state/changes.js';
import { ApprovalsView } from '../../../src-renderer/src/views/approvals/ApprovalsView.js';

const change = (id: string, over: Partial<PendingChange> = {}): PendingChange => ({
  change_id: id,
  kind: 'create_agent',
  agent: 'evil',
  summary: 'Create agent "evil": mode default → bypassPermissions',
  raises: [{ field: 'mode', change: 'default → bypassPermissions' }],
  request: { name: 'evil', prompt: 'Obey.', config: { mode: 'bypassPermissions' } },
  requested_by: 'daemon',
  requested_at: '2026-01-05T09:00:00.000Z',
  expires_at: '2026-01-05T09:30:00.000Z',
  ...over,
});
const ID1 = 'chg_0123456789abcdef';
const ID2 = 'chg_fedcba9876543210';
const at = '2026-01-05T09:00:00.000Z';

describe('changesReducer', () => {
  it('adds each change once, drops it when it is answered anywhere, and takes a loaded list as the truth', () => {
    let s = changesReducer(emptyChanges(), {
      type: 'event',
      event: { type: 'change_request', at, change: change(ID1) } as ApiEvent,
    });
    s = changesReducer(s, { type: 'event', event: { type: 'change_request', at, change: change(ID1) } as ApiEvent });
    s = changesReducer(s, { type: 'event', event: { type: 'change_request', at, change: change(ID2) } as ApiEvent });
    expect(s.pending.map((c) => c.change_id)).toEqual([ID1, ID2]);
    s = changesReducer(s, {
      type: 'event',
      event: { type: 'change_response', at, change_id: ID1, outcome: 'expired', by: 'timeout' } as ApiEvent,
    });
    expect(s.pending.map((c) => c.change_id)).toEqual([ID2]);
    s = changesReducer(s, { type: 'answered', change_id: ID2 });
    expect(s.pending).toEqual([]);
    expect(changesReducer(s, { type: 'loaded', changes: [change(ID1)] }).pending).toHaveLength(1);
  });
});

describe('the approvals view', () => {
  it('shows what a change raises and the whole request, with Apply and Reject in the desktop app', () => {
    const html = renderToStaticMarkup(
      <ApprovalsView pending={[]} onAnswer={vi.fn()} changes={[change(ID1)]} onChange={vi.fn()} />,
    );
    expect(html).toContain('1 waiting');
    expect(html).toContain('Create agent');
    expect(html).toContain('<code>mode</code> default → bypassPermissions');
    expect(html).toContain('The whole request');
    expect(html).toContain('Apply change');
    expect(html).toContain('Reject');
    expect(html).toContain(`data-change-id="${ID1}"`);
  });

  it('in a browser, shows the exact command that confirms it in a shell, and offers no button for it', () => {
    const command = `REIN_HOME=/tmp/h rein changes accept ${ID1}`;
    const html = renderToStaticMarkup(
      <ApprovalsView
        pending={[]}
        onAnswer={vi.fn()}
        changes={[
          change(ID1, { accept_command: command, reject_command: `REIN_HOME=/tmp/h rein changes reject ${ID1}` }),
        ]}
      />,
    );
    expect(html).toContain('run this in a shell on the machine Rein runs on');
    expect(html).toContain(`<code>${command}</code>`);
    expect(html).toContain(`<code>REIN_HOME=/tmp/h rein changes reject ${ID1}</code>`);
    expect(html).not.toContain('Apply change');
    expect(html).not.toContain('Confirm or reject this in the Rein desktop app');
    // A daemon that did not say the command line: the plain one.
    expect(renderToStaticMarkup(<ApprovalsView pending={[]} onAnswer={vi.fn()} changes={[change(ID2)]} />)).toContain(
      `<code>rein changes accept ${ID2}</code>`,
    );
  });

  it('an "Always allow" answered from a browser says it holds for the run and waits for a person in a shell or the app; in the app it does not', () => {
    const approval = {
      request_id: 'apr_0123456789abcdef',
      tool: 'bash',
      summary: '$ npm test',
      reason: 'asks',
      risk: 'medium',
      risk_explanation: 'runs a command',
      agent: 'default',
      route: 'web',
      asked_at: at,
    } as never;
    const browser = renderToStaticMarkup(<ApprovalsView pending={[approval]} onAnswer={vi.fn()} />);
    expect(browser).toContain(
      'title="From this page, “Always allow” holds for this run; keeping it for later runs waits under Approvals for you to confirm it: run “rein changes accept …” in a shell on the machine Rein runs on (or use the Rein desktop app)."',
    );
    const app = renderToStaticMarkup(<ApprovalsView pending={[approval]} onAnswer={vi.fn()} onChange={vi.fn()} />);
    expect(app).toContain('Always allow');
    // Four answers, in this order.
    expect([...app.matchAll(/<button[^>]*>([^<]+)<\/button>/g)].map((m) => m[1])).toEqual([
      'Allow once',
      'Allow in this conversation',
      'Always allow',
      'Deny',
    ]);
    expect(app).not.toContain('holds for this run');
  });

  it('names an always_allow change', () => {
    const html = renderToStaticMarkup(
      <ApprovalsView
        pending={[]}
        onAnswer={vi.fn()}
        changes={[
          change(ID1, {
            kind: 'always_allow',
            agent: 'default',
            raises: [{ field: 'permissions.allowed_commands', change: 'adds "npm test"' }],
          }),
        ]}
        onChange={vi.fn()}
      />,
    );
    expect(html).toContain('Always allow');
    expect(html).toContain('adds &quot;npm test&quot;');
  });
});
