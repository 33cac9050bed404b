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
import { notePendingIndex } from '../../core/search/pendingIndex.js';
import { listAgentSessionFiles } from '../../core/search/sessionFiles.js';
import { SessionIndex } from '../../core/search/sessionIndex.js';
import { isSessionId } from '../../core/sessions/id.js';
import { SessionStore } from '../../core/sessions/store.js';
import { isDamaged, type ListedSession, type SessionFile } from '../../core/sessions/types.js';
import { UsageError, type CliIo } from '../io.js';

export const SESSIONS_HELP = `Usage:
  rein sessions list [--agent NAME] [--source SRC] [--limit N] [--json]
  rein sessions show ID [--agent NAME] [--json]
  rein sessions search QUERY [--agent NAME] [--source SRC] [--limit N] [--json]
  rein sessions reindex

list shows every agent's sessions (or one agent's), newest first. A session file that cannot be read
(cut short, not valid JSON or not a valid session) is listed as DAMAGED with its problem; with
--json it has "damaged": true and "problem".

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
  if (values.agent !== undefined && !AGENT_NAME_RE.test(values.agent))
    throw new UsageError(`--agent: "${values.agent}" is not a valid agent name`);
  const limit = values.limit === undefined ? undefined : Number(values.limit);
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1))
    throw new UsageError('--limit must be a positive whole number');
  const home = reinHome(io.env);
  const out = (s: string) => io.stdout.write(s.endsWith('\n') ? s : `${s}\n`);

  try {
    switch (sub) {
      case 'list': {
        const index = await SessionIndex.open(home);
        let rows: ListedSession[];
        try {
          rows = await listedSessions(home, index, {
            ...(values.agent ? { agent: values.agent } : {}),
            ...(values.source ? { source: values.source } : {}),
            limit: limit ?? 50,
          });
        } finally {
          tellIndexState(index, io);
          index.dispose();
        }
        if (values.json) out(JSON.stringify(rows));
        else if (rows.length === 0) out('No sessions.');
        else for (const r of rows) out(listLine(r));
        return 0;
      }
      case 'search': {
        const query = positionals.join(' ').trim();
        if (!query) throw new UsageError('search needs a QUERY');
        const index = await SessionIndex.open(home);
        try {
          const hits = await index.withRepair(() =>
            searchHits(index, {
              q: query,
              agent: values.agent ?? DEFAULT_AGENT,
              ...(values.source ? { source: values.source } : {}),
              ...(limit ? { limit } : {}),
            }),
          );
          if (values.json) out(JSON.stringify(hits));
          else if (hits.length === 0) out('No matching sessions found.');
          else
            for (const h of hits)
              out(`${h.session_id}  ${(h.updated_at ?? '').slice(0, 10)}  [${h.source}] ${h.title}\n    ${h.snippet}`);
        } finally {
          tellIndexState(index, io);
          index.dispose();
        }
        return 0;
      }
      case 'reindex': {
        const index = await SessionIndex.open(home, { rebuild: 'never' });
        try {
          const report = await index.reindex();
          out(
            `Indexed ${report.sessions} session(s) of ${report.agents.length} agent(s); removed ${report.removed} stale entr${report.removed === 1 ? 'y' : 'ies'}.`,
          );
          for (const p of report.problems) io.stderr.write(`skipped ${p.file}: ${p.error.message}\n`);
        } finally {
          tellIndexState(index, io);
          index.dispose();
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

/**
 * What a listing or a search had to do with the index, said once on stderr: a damaged file moved aside
 * and rebuilt, or an index that could not be updated (a full disk: it was read as it is, or built in
 * memory from the session files).
 */
function tellIndexState(index: SessionIndex, io: CliIo): void {
  if (index.opened.movedAside)
    io.stderr.write(
      `rein: the search index was damaged: kept as ${index.opened.movedAside}, and rebuilt from the session files\n`,
    );
  if (index.opened.notUpdated) io.stderr.write(`rein: warning: ${index.opened.notUpdated}\n`);
}

/**
 * Interrupted saves of killed writers first (sessions/leftovers.ts), said on stderr: one may hold the
 * newest version of a session, or its only copy. A recovered session is noted for the index, which
 * knows an older version of it (the next command that opens the index takes the note).
 */
async function settleLeftovers(home: string, agent: string | undefined): Promise<void> {
  for (const f of await listAgentSessionFiles(home)) {
    if (agent !== undefined && f.agent !== agent) continue;
    for (const n of await new SessionStore(f.dir).settleLeftovers()) {
      if (n.kind === 'recovered') await notePendingIndex(home, { agent: f.agent, id: n.id }).catch(() => undefined);
    }
  }
}

/**
 * The listing: the index says which sessions there are and in what order (fast, every agent at
 * once), and the files, which are the truth, have the last word. Entries whose file is gone are
 * dropped; files the index does not know are read (a session it missed, or a damaged file it skipped);
 * and each listed session's file is read, so a file that has been cut short or broken since it was
 * indexed is shown as damaged, with its problem, instead of as the whole session it once was.
 */
async function listedSessions(
  home: string,
  index: SessionIndex,
  q: { agent?: string; source?: string; limit: number },
): Promise<ListedSession[]> {
  await settleLeftovers(home, q.agent);
  const folders = (await listAgentSessionFiles(home)).filter((f) => q.agent === undefined || f.agent === q.agent);
  const stores = new Map(folders.map((f) => [f.agent, new SessionStore(f.dir)]));
  const onDisk = new Set(folders.flatMap((f) => f.ids.map((id) => `${f.agent}/${id}`)));
  const indexed = await index.withRepair(() =>
    index.list({ ...(q.agent ? { agent: q.agent } : {}), limit: Number.MAX_SAFE_INTEGER }),
  );
  const known = new Set(indexed.map((r) => `${r.agent}/${r.id}`));
  const wanted = (s: ListedSession) => q.source === undefined || s.source === q.source;

  const candidates: Array<{ agent: string; row: ListedSession; checked: boolean }> = indexed
    .filter((r) => onDisk.has(`${r.agent}/${r.id}`) && wanted(r))
    .map((row) => ({ agent: row.agent, row, checked: false }));
  for (const f of folders) {
    for (const id of f.ids) {
      if (known.has(`${f.agent}/${id}`)) continue;
      const row = await stores.get(f.agent)!.inspect(id);
      if (row && wanted(row)) candidates.push({ agent: f.agent, row: withAgent(row, f.agent), checked: true });
    }
  }
  const byTime = (a: { row: ListedSession }, b: { row: ListedSession }) =>
    Date.parse(b.row.updated_at) - Date.parse(a.row.updated_at) ||
    (a.row.id < b.row.id ? 1 : a.row.id > b.row.id ? -1 : 0);
  const shown = candidates.sort(byTime).slice(0, q.limit);
  const rows: Array<{ row: ListedSession }> = [];
  for (const c of shown) {
    if (c.checked) {
      rows.push(c);
      continue;
    }
    const now = await stores.get(c.agent)!.inspect(c.row.id);
    if (!now) continue; // removed meanwhile
    // A damaged file keeps what the index knew of it where the file itself no longer says.
    rows.push({ row: isDamaged(now) ? { ...indexedFields(c.row), ...withAgent(now, c.agent) } : now });
  }
  return rows.sort(byTime).map((r) => r.row);
}

function withAgent(row: ListedSession, agent: string): ListedSession {
  return isDamaged(row) ? { ...row, agent: row.agent ?? agent } : row;
}

function indexedFields(row: ListedSession): Partial<ListedSession> {
  if (isDamaged(row)) return {};
  const { messageCount: _count, ...rest } = row;
  return rest;
}

function listLine(r: ListedSession): string {
  const when = r.updated_at.slice(0, 16).replace('T', ' ');
  if (isDamaged(r)) {
    return `${r.id}  ${when}  ${(r.agent ?? '?').padEnd(12)} ${(r.source ?? '?').padEnd(10)} DAMAGED: ${r.problem}${r.title ? ` (was: ${r.title})` : ''}`;
  }
  return `${r.id}  ${when}  ${r.agent.padEnd(12)} ${r.source.padEnd(10)} ${r.title}`;
}

async function findSession(home: string, id: string, agent?: string): Promise<SessionFile> {
  const agents = agent
    ? [agent]
    : [DEFAULT_AGENT, ...(await readdir(paths.agentDir(home, '')).catch(() => [] as string[]))];
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
        const text =
          typeof b.content === 'string'
            ? b.content
            : (b.content ?? []).map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join(' ');
        lines.push(
          `[tool result${b.is_error ? ', error' : ''}] ${text.slice(0, 300).replace(/\n/g, ' ')}${text.length > 300 ? '…' : ''}`,
        );
      } else lines.push(`[${b.type}]`);
    }
  });
  if (s.checkpoint)
    lines.push('', '(the history was compacted; the full transcript is above, and runs continue from the checkpoint)');
  return lines.join('\n');
}
