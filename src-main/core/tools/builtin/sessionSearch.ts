/**
 * `session_search`: find earlier conversations of the current agent (and only that agent) in the
 * session index `<REIN_HOME>/rein.db`. Read-only for the user's data; opening the index may build it
 * from the session files the first time.
 */
import { callSummaryOf } from '../../api/toolSummary.js';
import { z } from 'zod';
import { errorMessage } from '../../errors.js';
import { SessionIndex, type SearchHit } from '../../search/sessionIndex.js';
import { MATCH_CLOSE, MATCH_OPEN } from '../../search/snippet.js';
import { errorResult, okResult, type Tool } from '../tool.js';

export const SESSION_SEARCH_DEFAULT_LIMIT = 20;
export const SESSION_SEARCH_MAX_LIMIT = 100;
export const NO_SESSIONS_FOUND = 'No matching sessions found.';

const input = z.strictObject({
  query: z
    .string()
    .refine((q) => q.trim() !== '', 'must not be empty')
    .describe('Words or text to look for (plain text, not a query language). Put "exact phrases" in double quotes.'),
  limit: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe(
      `Most sessions to return, best first (default ${SESSION_SEARCH_DEFAULT_LIMIT}, max ${SESSION_SEARCH_MAX_LIMIT}).`,
    ),
  source: z
    .string()
    .min(1)
    .optional()
    .describe('Only sessions that started from this source, e.g. "cli", "schedule", "heartbeat", "slack".'),
});
export type SessionSearchInput = z.infer<typeof input>;

export interface SessionSearchToolOptions {
  /** How to get the index for a REIN_HOME (default: open it for the call and close it after). */
  openIndex?: (home: string) => Promise<{ index: SessionIndex; release: () => void }>;
}

const openForCall = async (home: string) => {
  const index = await SessionIndex.open(home);
  return { index, release: () => index.dispose() };
};

export function createSessionSearchTool(options: SessionSearchToolOptions = {}): Tool<SessionSearchInput> {
  const open = options.openIndex ?? openForCall;
  return {
    name: 'session_search',
    source: 'local',
    description: [
      "Search this agent's earlier sessions (conversations, scheduled and heartbeat runs): what the user asked, the final answers,",
      'the tools that ran (e.g. "bash: git status") and the start of their output. All terms must occur in one message;',
      'English words match other forms ("running" finds "runs"); Chinese and Japanese match as substrings, and so does',
      'part of a word when no whole word matches.',
      `Each result shows the session title, last activity, source, session id and a snippet with matches between ${MATCH_OPEN} and ${MATCH_CLOSE}.`,
      'The current session is not included.',
    ].join(' '),
    input,
    isReadOnly: () => true,
    isConcurrencySafe: () => true,
    isDestructive: () => false,
    summarize: (i) => callSummaryOf('session_search', i),

    async call(i, ctx) {
      const notes: string[] = [];
      let limit = i.limit ?? SESSION_SEARCH_DEFAULT_LIMIT;
      if (limit > SESSION_SEARCH_MAX_LIMIT) {
        notes.push(`(limit ${limit} is above the maximum; used ${SESSION_SEARCH_MAX_LIMIT})`);
        limit = SESSION_SEARCH_MAX_LIMIT;
      }
      let handle: Awaited<ReturnType<typeof open>>;
      try {
        handle = await open(ctx.reinHome);
      } catch (e) {
        return errorResult('transient', `could not open the session index: ${errorMessage(e)}`);
      }
      try {
        // One extra, in case the current session (which often holds the query itself) is among them.
        const search = () =>
          handle.index
            .search(i.query, {
              agent: ctx.agent,
              limit: limit + 1,
              ...(i.source !== undefined ? { source: i.source } : {}),
            })
            .filter((h) => h.sessionId !== ctx.sessionId)
            .slice(0, limit);
        // The index is only a cache of the session files: a damaged one is moved aside, rebuilt, and
        // searched again.
        const hits: SearchHit[] = await handle.index.withRepair(search);
        if (handle.index.opened.notUpdated) notes.push(`(${handle.index.opened.notUpdated})`);
        if (hits.length === 0) return okResult([...notes, NO_SESSIONS_FOUND].join('\n'));
        return okResult([...notes, formatHits(i.query, hits)].join('\n'));
      } catch (e) {
        return errorResult('transient', `session search failed: ${errorMessage(e)}`);
      } finally {
        handle.release();
      }
    },
  };
}

export const sessionSearchTool: Tool<SessionSearchInput> = createSessionSearchTool();

export function formatHits(query: string, hits: readonly SearchHit[]): string {
  const head = `${hits.length} session${hits.length === 1 ? '' : 's'} matching ${JSON.stringify(query)}, best first:`;
  const blocks = hits.map((h, n) =>
    [
      `${n + 1}. ${h.title}`,
      `   ${localMinute(h.updatedAt)} · ${h.source}${h.channel ? ` (${h.channel})` : ''} · session ${h.sessionId}`,
      `   ${h.role}: ${h.snippet}`,
    ].join('\n'),
  );
  return [head, ...blocks].join('\n\n');
}

/** `YYYY-MM-DD HH:MM` in local time, as the per-turn context tells the model the time. */
function localMinute(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}
