// The change desk: a permission-raising change asked for over the API is kept for a person — in a
// shell on the daemon's machine (`rein changes accept`) or the desktop app — or refused when nobody can
// confirm it, listed with secrets masked, applied exactly as asked when confirmed, and dropped when
// rejected or expired.
import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DaemonEvent } from '../../../src-main/core/api/events.js';
import {
  ChangeDesk,
  CHANGE_TTL_MS,
  MAX_PENDING,
  shellChangeCommand,
  type ProposedChange,
} from '../../../src-main/core/service/changeDesk.js';

function desk(opts: { desktop?: boolean; shell?: boolean } = {}) {
  const events: DaemonEvent[] = [];
  let now = 1_000_000;
  const desktop = opts.desktop ?? true;
  const d = new ChangeDesk({
    home: '/Users/me/.rein',
    publish: (e) => events.push(e),
    desktopAttached: () => desktop,
    ...(opts.shell ? { shellCommand: shellChangeCommand('/Users/me/.rein') } : {}),
    now: () => now,
  });
  return { d, events, advance: (ms: number) => (now += ms) };
}

const change = (applied: unknown[] = [], extra: Partial<ProposedChange> = {}): ProposedChange => ({
  kind: 'create_agent',
  agent: 'evil',
  raises: [{ field: 'mode', change: 'default → bypassPermissions' }],
  request: {
    name: 'evil',
    prompt: 'x',
    config: { mode: 'bypassPermissions', mcp_servers: { gh: { env: { GITHUB_TOKEN: 'ghp_abcdefghijklmnopqrstu' } } } },
  },
  apply: async () => void applied.push('applied'),
  ...extra,
});

describe('ChangeDesk', () => {
  it('refuses, saying how to make the change, when nobody can confirm it (no daemon for a shell, no desktop app)', () => {
    const { d, events } = desk({ desktop: false });
    let error: unknown;
    try {
      d.propose(change());
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ code: 'confirmation_required' });
    expect(String((error as Error).message)).toMatch(
      /rein agents create evil.*\/Users\/me\/\.rein\/agents\/evil\/config\.yaml/,
    );
    expect(events).toEqual([]);
    expect(d.list()).toEqual([]);
  });

  it('keeps the change, announces it with its request masked, and applies it when a person confirms', async () => {
    const { d, events } = desk();
    const applied: unknown[] = [];
    const pending = d.propose(change(applied));
    expect(pending).toMatchObject({
      pending: true,
      kind: 'create_agent',
      agent: 'evil',
      change_id: expect.stringMatching(/^chg_[0-9a-f]{16}$/),
    });
    expect(applied).toEqual([]);
    const [listed] = d.list();
    expect(listed).toMatchObject({
      change_id: pending.change_id,
      summary: 'Create agent "evil": mode default → bypassPermissions',
      requested_by: 'daemon',
    });
    expect(JSON.stringify(listed!.request)).not.toContain('ghp_abcdefghijklmnopqrstu');
    expect(events[0]).toMatchObject({ type: 'change_request', change: { change_id: pending.change_id } });

    expect(await d.answer(pending.change_id, 'apply', 'desktop')).toEqual({
      change_id: pending.change_id,
      outcome: 'applied',
    });
    expect(applied).toEqual(['applied']);
    expect(events.at(-1)).toMatchObject({
      type: 'change_response',
      change_id: pending.change_id,
      outcome: 'applied',
      by: 'desktop',
    });
    await expect(d.answer(pending.change_id, 'apply', 'desktop')).rejects.toMatchObject({ code: 'change_not_found' });
  });

  it('without the desktop app, keeps the change for a shell on this machine and names the exact command', async () => {
    const { d, events } = desk({ desktop: false, shell: true });
    const applied: unknown[] = [];
    const pending = d.propose(change(applied));
    const accept = `REIN_HOME=/Users/me/.rein rein changes accept ${pending.change_id}`;
    expect(pending.accept_command).toBe(accept);
    expect(pending.message).toBe(
      `Create agent "evil": this raises permissions (mode default → bypassPermissions). Nothing is changed until a person confirms it: run \`${accept}\` in a shell on this machine (change ${pending.change_id}, waits 30 minutes).`,
    );
    expect(d.list()[0]).toMatchObject({
      accept_command: accept,
      reject_command: `REIN_HOME=/Users/me/.rein rein changes reject ${pending.change_id}`,
    });
    expect(events[0]).toMatchObject({ type: 'change_request', change: { accept_command: accept } });
    expect(applied).toEqual([]);
    expect(await d.answer(pending.change_id, 'apply', 'shell')).toEqual({
      change_id: pending.change_id,
      outcome: 'applied',
    });
    expect(events.at(-1)).toMatchObject({ type: 'change_response', outcome: 'applied', by: 'shell' });
    // With the app attached too, the message names both places.
    expect(desk({ desktop: true, shell: true }).d.propose(change()).message).toMatch(
      /in a shell on this machine, or confirm it in the Rein desktop app/,
    );
  });

  it('leaves REIN_HOME out of the command when the daemon uses the default home', () => {
    expect(shellChangeCommand(join(homedir(), '.rein'))('accept', 'chg_0123456789abcdef')).toBe(
      'rein changes accept chg_0123456789abcdef',
    );
    expect(shellChangeCommand("/tmp/it's here")('reject', 'chg_0123456789abcdef')).toBe(
      "REIN_HOME='/tmp/it'\\''s here' rein changes reject chg_0123456789abcdef",
    );
  });

  it('drops a rejected change without applying it, and reports a failed apply', async () => {
    const { d, events } = desk();
    const applied: unknown[] = [];
    const one = d.propose(change(applied));
    expect(await d.answer(one.change_id, 'reject', 'desktop')).toEqual({
      change_id: one.change_id,
      outcome: 'rejected',
    });
    expect(applied).toEqual([]);
    const two = d.propose(change([], { apply: async () => Promise.reject(new Error('agent "evil" already exists')) }));
    await expect(d.answer(two.change_id, 'apply', 'desktop')).rejects.toThrow(/already exists/);
    expect(events.at(-1)).toMatchObject({
      type: 'change_response',
      outcome: 'failed',
      error: 'agent "evil" already exists',
    });
    expect(d.size).toBe(0);
  });

  it('expires changes nobody answered, and keeps at most MAX_PENDING', async () => {
    const { d, events, advance } = desk();
    const old = d.propose(change());
    advance(CHANGE_TTL_MS + 1);
    expect(d.list()).toEqual([]);
    expect(events.at(-1)).toMatchObject({
      type: 'change_response',
      change_id: old.change_id,
      outcome: 'expired',
      by: 'timeout',
    });
    await expect(d.answer(old.change_id, 'apply', 'desktop')).rejects.toMatchObject({ code: 'change_not_found' });

    const ids = Array.from({ length: MAX_PENDING + 2 }, () => d.propose(change()).change_id);
    expect(d.list().map((c) => c.change_id)).toEqual(ids.slice(2));
  });
});
