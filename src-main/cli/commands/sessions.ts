/**
 * `rein sessions list | show ID | search QUERY | reindex`: the session history of every agent.
 * The JSON files are the truth; `<REIN_HOME>/rein.db` is an index rebuilt from them when missing.
 */
import { readdir } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import type { ContentBlockParam } from '@anthropic-ai/sdk/resources/messages';
import { AGENT_NAME_RE, DEFAULT_AGENT, paths, reinHome } from '../../core/config/paths.js';
import { isReinError } from '../../core/errors.js';
import { cacheHitRatio } from '../../core/llm/pricing.js';
import { searchHits } from '../../core/service/sessions.js';
import { SessionIndex } from '../../core/search/sessionIndex.js';
import { isSessionId } from '../../core/sessions/id.js';
import { SessionStore } from '../../core/sessions/store.js';
import type { SessionFile } from '../../core/sessions/types.js';
import { UsageError, type CliIo } from '../io.js';

export const SESSIONS_HELP = `Usage:
  rein sessions list [--agent NAME] [--source SRC] [--limit N] [--json]
  rein sessions show ID [--agent NAME] [--json]
  rein sessions search QUERY [--agent NAME] [--source SRC] [--limit N] [--json]
  rein sessions reindex

search looks only at one agent's sessions (default: the default agent). English words match their
other forms; Chinese and Japanese match as substrings; matches are shown between >>> and <<<.
`;

export async function sessionsCommand(argv: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '--help' || sub === '-h') {
    io.stdout.write(SESSIONS_HELP);
    return sub === undefined ? 2 : 0;
  }
  let parsed;
  try {
    parsed = parseArgs({
      args: rest,
      allowPositionals: true,
      options: {
        agent: { type: 'string' },
        source: { type: 'string' },
        limit: { type: 'string' },
        json: { type: 'boolean' },
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.agent !== undefined && !AGENT_NAME_RE.test(values.agent)) throw new UsageError(`--agent: "${values.agent}" is not a valid agent name`);
  const limit = values.limit === undefined ? undefined : Number(values.limit);
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) throw new UsageError('--limit must be a positive whole number');
  const home = reinHome(io.env);
  const out = (s: string) => io.stdout.write(s.endsWith('\n') ? s : `${s}\n`);

  try {
    switch (sub) {
      case 'list': {
        const index = await SessionIndex.open(home);
        try {
          const rows = index.list({ ...(values.agent ? { agent: values.agent } : {}), ...(values.source ? { source: values.source } : {}), limit: limit ?? 50 });
          if (values.json) out(JSON.stringify(rows));
          else if (rows.length === 0) out('No sessions.');
          else for (const r of rows) out(`${r.id}  ${r.updated_at.slice(0, 16).replace('T', ' ')}  ${r.agent.padEnd(12)} ${r.source.padEnd(10)} ${r.title}`);
        } finally {
          index.close();
        }
        return 0;
      }
      case 'search': {
        const query = positionals.join(' ').trim();
        if (!query) throw new UsageError('search needs a QUERY');
        const index = await SessionIndex.open(home);
        try {
          const hits = searchHits(index, { q: query, agent: values.agent ?? DEFAULT_AGENT, ...(values.source ? { source: values.source } : {}), ...(limit ? { limit } : {}) });
          if (values.json) out(JSON.stringify(hits));
          else if (hits.length === 0) out('No matching sessions found.');
          else for (const h of hits) out(`${h.session_id}  ${(h.updated_at ?? '').slice(0, 10)}  [${h.source}] ${h.title}\n    ${h.snippet}`);
        } finally {
          index.close();
        }
        return 0;
      }
      case 'reindex': {
        const index = await SessionIndex.open(home, { rebuild: 'never' });
        try {
          const report = await index.reindex();
          out(`Indexed ${report.sessions} session(s) of ${report.agents.length} agent(s); removed ${report.removed} stale entr${report.removed === 1 ? 'y' : 'ies'}.`);
          for (const p of report.problems) io.stderr.write(`skipped ${p.file}: ${p.error.message}\n`);
        } finally {
          index.close();
        }
        return 0;
      }
      case 'show': {
        const id = positionals[0];
        if (!id || !isSessionId(id)) throw new UsageError('show needs a session ID (YYYY-MM-DD-<12 hex>)');
        const session = await findSession(home, id, values.agent);
        if (values.json) out(JSON.stringify(session, null, 2));
        else out(renderSession(session));
        return 0;
      }
      default:
        throw new UsageError(`unknown sessions command "${sub}"`);
    }
  } catch (err) {
    if (isReinError(err)) {
      io.stderr.write(`rein: ${err.message}\n`);
      return err.code === 'invalid_input' ? 2 : 1;
    }
    throw err;
  }
}

async function findSession(home: string, id: string, agent?: string): Promise<SessionFile> {
  const agents = agent ? [agent] : [DEFAULT_AGENT, ...(await readdir(paths.agentDir(home, '')).catch(() => [] as string[]))];
  let lastErr: unknown;
  for (const a of agents) {
    try {
      return await new SessionStore(paths.sessionsDir(home, a)).load(id);
    } catch (err) {
      lastErr = err;
      if (!isReinError(err, 'session_not_found')) throw err;
    }
  }
  throw lastErr;
}

/** The full transcript, compaction or not: what was said, which tools ran, and what it cost. */
export function renderSession(s: SessionFile): string {
  const lines = [
    `${s.title}`,
    `id ${s.id} · agent ${s.agent} · source ${s.source}${s.channel ? ` (${s.channel})` : ''} · ${s.created_at} → ${s.updated_at}`,
    `usage: ${s.usage.requests} request(s), ${s.usage.input_tokens + s.usage.cache_read_tokens + s.usage.cache_creation_tokens} input tokens ` +
      `(${Math.round(cacheHitRatio(s.usage) * 100)}% from cache), ${s.usage.output_tokens} output tokens, $${s.usage.cost_usd.toFixed(4)}`,
    '',
  ];
  s.messages.forEach((m, i) => {
    const meta = s.message_meta[i];
    const who = m.role === 'user' ? (meta?.injected ? 'rein' : 'user') : 'assistant';
    const blocks: ContentBlockParam[] = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    for (const b of blocks) {
      if (b.type === 'text') {
        if (b.text.startsWith('<!-- cache_break -->') || b.text.startsWith('<context>')) continue;
        lines.push(`[${who}] ${b.text}`);
      } else if (b.type === 'tool_use') lines.push(`[tool call] ${b.name} ${JSON.stringify(b.input).slice(0, 300)}`);
      else if (b.type === 'tool_result') {
        const text = typeof b.content === 'string' ? b.content : (b.content ?? []).map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join(' ');
        lines.push(`[tool result${b.is_error ? ', error' : ''}] ${text.slice(0, 300).replace(/\n/g, ' ')}${text.length > 300 ? '…' : ''}`);
      } else lines.push(`[${b.type}]`);
    }
  });
  if (s.checkpoint) lines.push('', '(the history was compacted; the full transcript is above, and runs continue from the checkpoint)');
  return lines.join('\n');
}
