/** Sessions shaped the way the harness writes them, saved by the real SessionStore into a temp REIN_HOME. */
import type { ContentBlockParam } from '@anthropic-ai/sdk/resources/messages';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { paths } from '../../../src-main/core/config/paths.js';
import { renderVolatile } from '../../../src-main/core/context/promptAssembly.js';
import { SessionStore } from '../../../src-main/core/sessions/store.js';
import { titleFromPrompt } from '../../../src-main/core/sessions/title.js';
import type { MessageMeta, SessionFile } from '../../../src-main/core/sessions/types.js';

export interface ToolStep {
  name: string;
  input: Record<string, unknown>;
  output: string;
}

export interface Turn {
  user: string;
  /** Assistant text written before its tool calls ("Let me check…"). */
  narration?: string;
  tools?: ToolStep[];
  answer?: string;
}

export interface SessionSpec {
  agent?: string;
  source?: string;
  channel?: string;
  turns: Turn[];
}

export interface TempHome {
  home: string;
  /** Saves a new session for `spec.agent` (default `default`); each call is one second later than the last. */
  save(spec: SessionSpec): Promise<SessionFile>;
  store(agent?: string): SessionStore;
  cleanup(): Promise<void>;
}

/** `root`: the folder to make the home in (default the system's temp folder; a small disk's mount point). */
export async function makeTempHome(root: string = tmpdir()): Promise<TempHome> {
  const home = await realpath(await mkdtemp(join(root, 'rein-search-')));
  let clock = Date.UTC(2026, 2, 8, 9, 0, 0);
  const now = () => new Date(clock);
  const store = (agent = 'default') => new SessionStore(paths.sessionsDir(home, agent), { now });
  return {
    home,
    store,
    async save(spec) {
      clock += 1000;
      const agent = spec.agent ?? 'default';
      const source = spec.source ?? 'cli';
      const st = store(agent);
      const s = st.create({
        agent,
        cwd: '/Users/me/project',
        source,
        ...(spec.channel !== undefined ? { channel: spec.channel } : {}),
        title: titleFromPrompt(spec.turns[0]?.user ?? ''),
      });
      for (const turn of spec.turns) appendTurn(s, turn, source, now().toISOString());
      await st.save(s);
      return s;
    },
    cleanup: () => rm(home, { recursive: true, force: true }),
  };
}

let toolIds = 0;

export function appendTurn(s: SessionFile, turn: Turn, source: string, at: string): void {
  const meta = (): MessageMeta => ({ source, timestamp: at });
  s.messages.push({
    role: 'user',
    content: [
      // The per-turn block exactly as the harness writes it (marker, <context>, <memory>): never indexed.
      {
        type: 'text',
        text: renderVolatile({
          now: new Date(at),
          timeZone: 'Europe/Zurich',
          cwd: s.cwd,
          model: 'claude-sonnet-5-5',
          contextWindow: 200_000,
          memory: 'The user prefers metric units.',
        }),
      },
      { type: 'text', text: turn.user },
    ],
  });
  s.message_meta.push(meta());
  if (turn.tools && turn.tools.length > 0) {
    const uses = turn.tools.map((t) => ({ id: `toolu_${++toolIds}`, ...t }));
    const assistant: ContentBlockParam[] = [];
    if (turn.narration) assistant.push({ type: 'text', text: turn.narration });
    for (const u of uses) assistant.push({ type: 'tool_use', id: u.id, name: u.name, input: u.input });
    s.messages.push({ role: 'assistant', content: assistant });
    s.message_meta.push(meta());
    s.messages.push({
      role: 'user',
      content: uses.map((u) => ({ type: 'tool_result' as const, tool_use_id: u.id, content: u.output })),
    });
    s.message_meta.push(meta());
  }
  if (turn.answer !== undefined) {
    s.messages.push({ role: 'assistant', content: [{ type: 'text', text: turn.answer }] });
    s.message_meta.push(meta());
  }
}
