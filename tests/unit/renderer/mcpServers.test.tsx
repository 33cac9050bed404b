// The MCP servers panel: each server's state as a person reads it, its tools in a list that opens, the
// last error, the one action that helps, and an empty list that says how to add a server.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it, vi } from 'vitest';
import type { McpServerStatus } from '../../../src-main/core/api/index.js';
import { McpServerList, actionOf, stateLabel } from '../../../src-renderer/src/views/mcp/McpServersPanel.js';

const server = (over: Partial<McpServerStatus>): McpServerStatus => ({
  name: 'everything',
  type: 'stdio',
  state: 'healthy',
  since: '2026-01-05T09:00:00.000Z',
  tools: 0,
  sign_in_required: false,
  signed_in: false,
  ...over,
});

const render = (servers: McpServerStatus[], scope: 'agent' | 'global' = 'agent', busy: Record<string, string> = {}) =>
  renderToStaticMarkup(
    <McpServerList agent="ops" scope={scope} servers={servers} busy={busy} onConnect={vi.fn()} onSignIn={vi.fn()} />,
  );

describe('the MCP servers panel', () => {
  it('says how to add a server when there is none, for an agent and for the global config', () => {
    expect(render([])).toContain(
      'ops has no MCP servers. Add one with <code>rein mcp add NAME --agent ops --command … | --url …</code>',
    );
    const global = render([], 'global');
    expect(global).toContain('No MCP servers in the global config.');
    expect(global).toContain('<code>mcp_servers:</code> in <code>~/.rein/config.yaml</code>');
  });

  it('shows a healthy server with its transport, tool count and tool names in a list that opens', () => {
    const html = render([
      server({
        tools: 2,
        tool_names: ['echo', 'get-sum'],
        server: { name: 'mcp-servers/everything', version: '2.0.0' },
      }),
    ]);
    expect(html).toContain('data-server="everything"');
    expect(html).toContain('<span class="badge mcp-state ok">healthy</span>');
    expect(html).toContain('stdio · 2 tools · mcp-servers/everything 2.0.0');
    expect(html).toMatch(
      /<details class="mcp-tools"><summary>2 tools<\/summary><ul class="mcp-tool-list"><li><code>echo<\/code><\/li><li><code>get-sum<\/code><\/li><\/ul><\/details>/,
    );
    expect(html).not.toContain('<button');
  });

  it('shows why a server is down, with Reconnect; Connect for one not started; nothing for a disabled one', () => {
    const html = render([
      server({
        name: 'broken',
        state: 'disconnected',
        last_error: 'MCP server exited with code 3',
        next_attempt_at: '2026-01-05T09:00:05.000Z',
      }),
      server({ name: 'fresh', state: 'idle' }),
      server({ name: 'off', state: 'disabled' }),
      server({ name: 'tired', state: 'dormant', last_error: 'spawn ENOENT', tools: 1, tool_names: ['x'] }),
    ]);
    expect(html).toContain('<span class="mcp-error-label">Last error:</span> MCP server exited with code 3');
    expect(html).toContain('aria-label="Reconnect broken"');
    expect(html).toContain('aria-label="Connect fresh"');
    expect(html).toContain('<span class="badge mcp-state">not started</span>');
    expect(html).not.toContain('Connect off');
    expect(html).toContain('disabled: true in the config');
    expect(html).toContain('aria-label="Reconnect tired"');
    expect(html).toContain('1 tool (as last listed)');
  });

  it('offers Sign in to an http server that asks for it, and the page’s link while the browser is at it', () => {
    const needs = server({
      name: 'wiki',
      type: 'http',
      state: 'disconnected',
      sign_in_required: true,
      last_error: 'the server asks for a sign-in',
    });
    expect(stateLabel(needs)).toBe('needs sign-in');
    expect(actionOf(needs)).toEqual({ kind: 'signIn', label: 'Sign in' });
    expect(render([needs])).toContain('aria-label="Sign in wiki"');

    const waiting = render(
      [
        {
          ...needs,
          sign_in: {
            state: 'waiting',
            started_at: '2026-01-05T09:00:00.000Z',
            authorization_url: 'https://auth.example.com/authorize?x=1',
          },
        },
      ],
      'agent',
      { wiki: 'Opening the sign-in…' },
    );
    expect(waiting).toContain('role="status">Waiting for the sign-in in your browser.');
    expect(waiting).toContain(
      'href="https://auth.example.com/authorize?x=1" target="_blank" rel="noreferrer noopener"',
    );
    expect(waiting).toMatch(/<button[^>]*disabled=""[^>]*>Opening the sign-in…<\/button>/);

    const failed = render([
      {
        ...needs,
        sign_in: {
          state: 'failed',
          started_at: '2026-01-05T09:00:00.000Z',
          error: 'the authorization server refused: access_denied',
        },
      },
    ]);
    expect(failed).toContain('role="alert">Sign-in failed: the authorization server refused: access_denied');
    expect(actionOf({ ...needs, type: 'stdio' })?.kind).toBe('reconnect');
  });

  it('treats an sse server (the legacy HTTP+SSE transport) as the remote server it is: Sign in, "signed in"', () => {
    const legacy = server({
      name: 'old',
      type: 'sse',
      state: 'disconnected',
      sign_in_required: true,
      last_error: 'the server asks for a sign-in',
    });
    expect(actionOf(legacy)).toEqual({ kind: 'signIn', label: 'Sign in' });
    const html = render([legacy]);
    expect(html).toContain('aria-label="Sign in old"');
    expect(html).toContain('HTTP+SSE');
    expect(
      actionOf({ ...legacy, sign_in_required: false, sign_in: { state: 'failed', started_at: legacy.since } }),
    ).toEqual({ kind: 'signIn', label: 'Sign in' });
    const signedIn = render([server({ name: 'old', type: 'sse', tools: 1, signed_in: true })]);
    expect(signedIn).toContain('HTTP+SSE · 1 tool · signed in');
    expect(signedIn).not.toContain('<button');
  });
});
