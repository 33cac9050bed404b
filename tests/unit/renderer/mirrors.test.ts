// The page cannot import most of the core (Node modules, and the layering lint), so a few small rules
// are written again in src-renderer. These tests keep each copy equal to the core's original.
import { describe, expect, it } from 'vitest';
import { reinOperationNames } from '../../../src-main/core/api/index.js';
import { expandSlashCommand, RESERVED_COMMAND_NAMES } from '../../../src-main/core/commands/index.js';
import { routeFor } from '../../../src-main/core/service/routing.js';
import { runRequestFromMessage } from '../../../src-main/core/runtime/runRequest.js';
import { CACHE_BREAK } from '../../../src-main/core/context/promptAssembly.js';
import { INJECTED_PREFIX as CORE_INJECTED_PREFIX } from '../../../src-main/core/harness/inbox.js';
import { MATCH_CLOSE as CORE_CLOSE, MATCH_OPEN as CORE_OPEN } from '../../../src-main/core/search/snippet.js';
import { httpCalls } from '../../../src-main/core/api/daemonCalls.js';
import { chatMessage, chatRoute } from '../../../src-renderer/src/state/routes.js';
import { PAGE_COMMANDS, pageCommand, parseSlash } from '../../../src-renderer/src/views/chat/slash.js';
import { INJECTED_PREFIX, personText, VOLATILE_MARKER } from '../../../src-renderer/src/state/transcript.js';
import { MATCH_CLOSE, MATCH_OPEN } from '../../../src-renderer/src/views/sessions/Highlighted.js';

describe('copies of core rules in the page', () => {
  it('predicts the route the daemon gives a chat message', () => {
    for (const agent of ['default', 'ops']) {
      for (const session of [undefined, '2026-01-02-0123456789ab']) {
        expect(routeFor(runRequestFromMessage(chatMessage(agent, 'hi', session), 'ws', 'ws')).key).toBe(
          chatRoute(agent),
        );
      }
    }
  });

  it("keeps the page's own commands among the names the daemon never expands", () => {
    for (const name of Object.keys(PAGE_COMMANDS)) {
      expect(RESERVED_COMMAND_NAMES).toContain(name);
      expect(expandSlashCommand(`/${name} now`, [])).toBeNull();
    }
    expect(pageCommand('/help')).toBe('help');
    expect(pageCommand('  /new')).toBe('new');
    expect(pageCommand('/review x')).toBeUndefined();
    expect(parseSlash('/usr/bin/env is broken')).toBeNull();
  });

  it('marks snippet matches with the same markers as the search index', () => {
    expect([MATCH_OPEN, MATCH_CLOSE]).toEqual([CORE_OPEN, CORE_CLOSE]);
  });

  it('recognises the harness scaffolding in saved user turns', () => {
    expect(VOLATILE_MARKER).toBe(CACHE_BREAK);
    expect(INJECTED_PREFIX).toBe(CORE_INJECTED_PREFIX);
    expect(personText(`${CACHE_BREAK}\n<context>\nCurrent local time: x\n</context>`).text).toBe('');
    expect(personText('<context>Current local time: x</context>hello')).toEqual({ text: 'hello', injected: false });
    expect(personText(`${INJECTED_PREFIX} also this`)).toEqual({ text: 'also this', injected: true });
  });

  it('maps every operation to a daemon call (sendMessage goes over the WebSocket, openPermissionSettings is desktop-only)', () => {
    const mapped = Object.keys(httpCalls).sort();
    expect([...mapped, 'openPermissionSettings', 'sendMessage'].sort()).toEqual([...reinOperationNames].sort());
    expect(httpCalls.saveAgent({ name: 'ops', prompt: 'p' })).toEqual({
      method: 'PUT',
      path: '/agents/ops',
      body: { prompt: 'p' },
    });
    expect(httpCalls.searchSessions({ q: 'a b&c', agent: 'ops' })).toEqual({
      method: 'GET',
      path: '/sessions/search?q=a+b%26c&agent=ops',
    });
    expect(httpCalls.getSession({ id: '2026-01-02-0123456789ab' })).toEqual({
      method: 'GET',
      path: '/sessions/2026-01-02-0123456789ab',
    });
  });
});
