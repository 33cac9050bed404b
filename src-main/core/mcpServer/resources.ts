/**
 * The resources `rein mcp serve` offers: the serving agent's own sessions and its MEMORY.md, read-only.
 *
 *   rein://sessions                the agent's recent sessions (Markdown list)
 *   rein://sessions{?query}        template: a search of the agent's sessions (session_search's index)
 *   rein://sessions/{id}           template: one session's transcript (Markdown, transcript.ts)
 *   rein://agents/{agent}/memory   template: the agent's MEMORY.md (only the serving agent's)
 *
 * Who may read what (docs/mcp.md, *Resources*): only the serving agent's own sessions — the folder the
 * agent's session store reads, as `session_search` and the index scope them — and only its own memory.
 * Every URI is parsed strictly (a session id is `YYYY-MM-DD-<12 hex>`, an agent name its pattern) before
 * any path is built, so no URI reaches another folder. A URI that names anything else — another agent,
 * a session that does not exist, a path — answers -32602 with the URI in `data`, the same for each, so
 * a client cannot tell another agent's session from none. And each read is decided by the agent's
 * permission policy as the tool that reads the same thing would be: sessions as `session_search`,
 * memory as `file_read` of MEMORY.md; the tool must be on the agent's lists and allowed without asking
 * (a resource read cannot ask anybody). Each read leaves an audit line (`tool: "resources/read"`).
 */
import { readFile } from 'node:fs/promises';
import {
  ErrorCode,
  McpError,
  type Resource,
  type ResourceTemplate,
  type TextResourceContents,
} from '@modelcontextprotocol/sdk/types.js';
import { AGENT_NAME_RE } from '../config/paths.js';
import { errorMessage, isReinError } from '../errors.js';
import type { Runtime } from '../runtime/runtime.js';
import { SessionIndex } from '../search/sessionIndex.js';
import { MATCH_CLOSE, MATCH_OPEN } from '../search/snippet.js';
import { isSessionId } from '../sessions/id.js';
import type { SessionSummary } from '../sessions/types.js';
import { maskSecrets } from '../audit/maskSecrets.js';
import { renderTranscript } from './transcript.js';
import { exposedTools } from './toolList.js';

export const SESSIONS_URI = 'rein://sessions';
export const SESSION_TEMPLATE = 'rein://sessions/{id}';
export const SEARCH_TEMPLATE = 'rein://sessions{?query}';
export const MEMORY_TEMPLATE = 'rein://agents/{agent}/memory';
export const sessionUri = (id: string): string => `${SESSIONS_URI}/${id}`;
export const memoryUri = (agent: string): string => `rein://agents/${agent}/memory`;

/** Resources per `resources/list` page. */
export const RESOURCE_PAGE_SIZE = 50;
/** Sessions a search or the recent list shows. */
export const SEARCH_LIMIT = 20;
/** Values per completion answer (the spec's maximum). */
export const MAX_COMPLETIONS = 100;
const MARKDOWN = 'text/markdown';

export type ReinUri =
  { kind: 'session'; id: string } | { kind: 'sessions'; query?: string } | { kind: 'memory'; agent: string };

const SESSION_RE = /^rein:\/\/sessions\/([^/?#]+)$/;
const SESSIONS_RE = /^rein:\/\/sessions(?:\?([^#]*))?$/;
const MEMORY_RE = /^rein:\/\/agents\/([^/?#]+)\/memory$/;

/** What a `rein://` URI names, or undefined for anything that is not one of the shapes above. */
export function parseReinUri(uri: string): ReinUri | undefined {
  let m = SESSION_RE.exec(uri);
  if (m) return isSessionId(m[1]) ? { kind: 'session', id: m[1]! } : undefined;
  m = MEMORY_RE.exec(uri);
  if (m) return AGENT_NAME_RE.test(m[1]!) ? { kind: 'memory', agent: m[1]! } : undefined;
  m = SESSIONS_RE.exec(uri);
  if (m) {
    if (m[1] === undefined || m[1] === '') return { kind: 'sessions' };
    let params: URLSearchParams;
    try {
      params = new URLSearchParams(m[1]);
    } catch {
      return undefined;
    }
    // The template has one variable; a URI with others is not one of ours.
    if ([...params.keys()].some((k) => k !== 'query') || params.getAll('query').length > 1) return undefined;
    const query = params.get('query')?.trim();
    return query ? { kind: 'sessions', query } : { kind: 'sessions' };
  }
  return undefined;
}

/** -32602, with the URI in `data` (SEP-2164): for every URI this server does not serve to this client. */
export function notFound(uri: string, why = 'no such resource'): McpError {
  return new McpError(ErrorCode.InvalidParams, `Resource not found: ${uri} (${why})`, { uri });
}

export interface ResourceDeps {
  home: string;
  /** The tools' working folder when the agent sets none (the policy decides relative to it). */
  cwd: string;
  agent: string;
  /** The serving agent's runtime (its registry, policy, session store, audit log). */
  runtime: () => Promise<Runtime>;
  /** The session id on audit lines (`mcp-<connection>`). */
  auditSession: string;
  warn: (message: string) => void;
}

type Gate = { ok: true; layer: string } | { ok: false; why: string; layer: string };

export class ReinResources {
  readonly #deps: ResourceDeps;

  constructor(deps: ResourceDeps) {
    this.#deps = deps;
  }

  templates(): ResourceTemplate[] {
    const { agent } = this.#deps;
    return [
      {
        uriTemplate: SESSION_TEMPLATE,
        name: 'session',
        title: 'Session transcript',
        description: `One session of agent "${agent}" as a Markdown transcript (user, assistant, tool calls and the start of their output).`,
        mimeType: MARKDOWN,
      },
      {
        uriTemplate: SEARCH_TEMPLATE,
        name: 'session-search',
        title: 'Search sessions',
        description: `Search the sessions of agent "${agent}" (plain words; "exact phrases" in double quotes). Each hit links to rein://sessions/<id>.`,
        mimeType: MARKDOWN,
      },
      {
        uriTemplate: MEMORY_TEMPLATE,
        name: 'memory',
        title: 'Agent memory',
        description: `The MEMORY.md of agent "${agent}" (read-only; only the serving agent's).`,
        mimeType: MARKDOWN,
      },
    ];
  }

  /** One page of `resources/list`: the recent-sessions list and the memory first, then sessions, most recent first. */
  async list(cursor: string | undefined): Promise<{ resources: Resource[]; nextCursor?: string }> {
    const after = cursor === undefined ? undefined : decodeCursor(cursor);
    const rt = await this.#deps.runtime();
    const resources: Resource[] = [];
    const sessionsGate = await this.#gate(rt, 'session_search', { query: SESSIONS_URI });
    if (after === undefined) {
      if (sessionsGate.ok)
        resources.push({
          uri: SESSIONS_URI,
          name: 'sessions',
          title: 'Recent sessions',
          description: `The ${SEARCH_LIMIT} most recent sessions of agent "${rt.agent}", with links.`,
          mimeType: MARKDOWN,
        });
      const memory = await this.#memoryResource(rt);
      if (memory) resources.push(memory);
    }
    if (!sessionsGate.ok) return { resources };
    const sessions = (await rt.store.list()).filter((s) => after === undefined || before(s, after));
    const page = sessions.slice(0, RESOURCE_PAGE_SIZE);
    for (const s of page) resources.push(sessionResource(s));
    const last = page[page.length - 1];
    return sessions.length > page.length && last ? { resources, nextCursor: encodeCursor(last) } : { resources };
  }

  async read(uri: string): Promise<{ contents: TextResourceContents[] }> {
    const parsed = parseReinUri(uri);
    if (!parsed) throw notFound(uri);
    const rt = await this.#deps.runtime();
    if (parsed.kind === 'memory') {
      // Another agent's memory is not this server's to hand out: the same answer as for none.
      if (parsed.agent !== rt.agent) throw notFound(uri);
      const gate = await this.#gate(rt, 'file_read', { path: rt.agentConfig.memoryFile });
      this.#audit(rt, uri, gate);
      if (!gate.ok) throw notFound(uri, gate.why);
      const text = await readText(rt.agentConfig.memoryFile);
      if (text === undefined) throw notFound(uri, `agent "${rt.agent}" has no MEMORY.md yet`);
      return { contents: [{ uri, mimeType: MARKDOWN, text: maskSecrets(text) }] };
    }
    const gate = await this.#gate(rt, 'session_search', {
      query: parsed.kind === 'session' ? parsed.id : (parsed.query ?? SESSIONS_URI),
    });
    this.#audit(rt, uri, gate);
    if (!gate.ok) throw notFound(uri, gate.why);
    if (parsed.kind === 'session') {
      let session;
      try {
        session = await rt.store.load(parsed.id);
      } catch (e) {
        if (isReinError(e, 'session_not_found')) throw notFound(uri);
        throw new McpError(
          ErrorCode.InternalError,
          `session ${parsed.id} cannot be read: ${isReinError(e) ? e.code : errorMessage(e)}`,
          { uri },
        );
      }
      return { contents: [{ uri, mimeType: MARKDOWN, text: renderTranscript(session) }] };
    }
    const text = parsed.query === undefined ? await this.#recent(rt) : await this.#search(rt, parsed.query);
    return { contents: [{ uri, mimeType: MARKDOWN, text }] };
  }

  /**
   * Whether `uri` is one this client may read and so subscribe to: an existing session of the serving
   * agent that the policy lets it read. Throws -32602 otherwise. Returns the session id.
   */
  async subscribable(uri: string): Promise<string> {
    const parsed = parseReinUri(uri);
    if (!parsed || parsed.kind !== 'session') throw notFound(uri, 'only rein://sessions/<id> can be subscribed to');
    const rt = await this.#deps.runtime();
    const gate = await this.#gate(rt, 'session_search', { query: parsed.id });
    if (!gate.ok) throw notFound(uri, gate.why);
    if ((await rt.store.inspect(parsed.id)) === undefined) throw notFound(uri);
    return parsed.id;
  }

  /** The folder the serving agent's sessions are in (watched for subscriptions). */
  async sessionsDir(): Promise<string> {
    return (await this.#deps.runtime()).store.dir;
  }

  /** `completion/complete` for a resource template's variable. */
  async complete(uriTemplate: string, variable: string, value: string): Promise<string[]> {
    const rt = await this.#deps.runtime();
    if (uriTemplate === MEMORY_TEMPLATE && variable === 'agent') return rt.agent.startsWith(value) ? [rt.agent] : [];
    if (uriTemplate === SESSION_TEMPLATE && variable === 'id') {
      if (!(await this.#gate(rt, 'session_search', { query: value || SESSIONS_URI })).ok) return [];
      return (await rt.store.list()).map((s) => s.id).filter((id) => id.startsWith(value));
    }
    if (uriTemplate === SEARCH_TEMPLATE && variable === 'query') {
      if (!(await this.#gate(rt, 'session_search', { query: value || SESSIONS_URI })).ok) return [];
      // Titles of the agent's sessions that hold what was typed so far: a query that finds them.
      const needle = value.trim().toLowerCase();
      const titles = new Set<string>();
      for (const s of await rt.store.list()) if (s.title && s.title.toLowerCase().includes(needle)) titles.add(s.title);
      return [...titles];
    }
    if (uriTemplate === SESSION_TEMPLATE || uriTemplate === SEARCH_TEMPLATE || uriTemplate === MEMORY_TEMPLATE)
      return [];
    throw new McpError(
      ErrorCode.InvalidParams,
      `unknown resource template: ${uriTemplate}. Templates: ${[SESSION_TEMPLATE, SEARCH_TEMPLATE, MEMORY_TEMPLATE].join(', ')}`,
    );
  }

  async #memoryResource(rt: Runtime): Promise<Resource | undefined> {
    if (!(await this.#gate(rt, 'file_read', { path: rt.agentConfig.memoryFile })).ok) return undefined;
    const text = await readText(rt.agentConfig.memoryFile);
    if (text === undefined) return undefined;
    return {
      uri: memoryUri(rt.agent),
      name: 'memory',
      title: `Memory of agent "${rt.agent}"`,
      description: `MEMORY.md of agent "${rt.agent}" (read-only).`,
      mimeType: MARKDOWN,
      size: Buffer.byteLength(text),
    };
  }

  async #recent(rt: Runtime): Promise<string> {
    const sessions = (await rt.store.list()).slice(0, SEARCH_LIMIT);
    if (sessions.length === 0) return `# Sessions of agent "${rt.agent}"\n\nNo sessions yet.\n`;
    const lines = sessions.map(
      (s, n) =>
        `${n + 1}. [${mdText(s.title) || s.id}](${sessionUri(s.id)}) — ${s.updated_at} · ${s.source} · ${s.messageCount} messages`,
    );
    return `# Sessions of agent "${rt.agent}" (most recent first)\n\n${lines.join('\n')}\n`;
  }

  async #search(rt: Runtime, query: string): Promise<string> {
    let index: SessionIndex;
    try {
      index = await SessionIndex.open(this.#deps.home);
    } catch (e) {
      throw new McpError(ErrorCode.InternalError, `could not open the session index: ${errorMessage(e)}`);
    }
    try {
      // Scoped to the serving agent, as session_search is.
      const hits = await index.withRepair(() => index.search(query, { agent: rt.agent, limit: SEARCH_LIMIT }));
      const head = `# Sessions of agent "${rt.agent}" matching ${JSON.stringify(query)}`;
      if (hits.length === 0) return `${head}\n\nNo matching sessions found.\n`;
      const blocks = hits.map((h, n) => {
        const snippet = h.snippet.replaceAll(MATCH_OPEN, '**').replaceAll(MATCH_CLOSE, '**');
        return `${n + 1}. [${mdText(h.title) || h.sessionId}](${sessionUri(h.sessionId)}) — ${h.updatedAt} · ${h.source}\n   ${h.role}: ${mdText(snippet)}`;
      });
      return maskSecrets(`${head}, best first\n\n${blocks.join('\n')}\n`);
    } catch (e) {
      if (e instanceof McpError) throw e;
      throw new McpError(ErrorCode.InternalError, `session search failed: ${errorMessage(e)}`);
    } finally {
      index.dispose();
    }
  }

  /** The agent's policy on the tool that reads the same thing: on its lists, and allowed without asking. */
  async #gate(rt: Runtime, toolName: string, input: unknown): Promise<Gate> {
    const tool = exposedTools(rt.registry).find((t) => t.name === toolName);
    if (!tool)
      return {
        ok: false,
        layer: 'tool',
        why: `agent "${rt.agent}" may not use ${toolName} (its tool lists), which reads this`,
      };
    const d = await rt.policy.check({
      tool,
      input,
      cwd: rt.agentConfig.cwd ?? this.#deps.cwd,
      mode: rt.settings.mode,
      source: rt.source,
      origin: rt.origin,
      agent: rt.agent,
    });
    if (d.decision === 'allow') return { ok: true, layer: d.layer };
    return {
      ok: false,
      layer: d.layer,
      why:
        d.decision === 'ask'
          ? `reading it would need approval (${toolName}: ${d.reason}), and a resource read asks nobody`
          : `denied (${d.layer}): ${d.reason}`,
    };
  }

  #audit(rt: Runtime, uri: string, gate: Gate): void {
    rt.audit
      .append({
        session: this.#deps.auditSession,
        agent: rt.agent,
        source: rt.source,
        tool: 'resources/read',
        args: { uri },
        decision: gate.ok ? 'allow' : 'deny',
        layer: gate.layer,
        approved_by: gate.ok ? 'policy' : null,
        duration_ms: null,
      })
      .catch((e: unknown) =>
        this.#deps.warn(isReinError(e) ? e.message : `could not write the audit log: ${errorMessage(e)}`),
      );
  }
}

function sessionResource(s: SessionSummary): Resource {
  return {
    uri: sessionUri(s.id),
    name: s.id,
    title: s.title || s.id,
    description: `Session of agent "${s.agent}" from ${s.source}, ${s.messageCount} messages, last activity ${s.updated_at}.`,
    mimeType: MARKDOWN,
    annotations: { lastModified: s.updated_at },
  };
}

/** Most recent first: `s` comes after the cursor's session in that order. */
function before(s: SessionSummary, c: Cursor): boolean {
  return s.updated_at < c.u || (s.updated_at === c.u && s.id < c.i);
}

interface Cursor {
  u: string;
  i: string;
}

function encodeCursor(s: SessionSummary): string {
  return Buffer.from(JSON.stringify({ u: s.updated_at, i: s.id })).toString('base64url');
}

function decodeCursor(cursor: string): Cursor {
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Partial<Cursor>;
    if (typeof v.u === 'string' && typeof v.i === 'string' && isSessionId(v.i)) return { u: v.u, i: v.i };
  } catch {
    // below
  }
  throw new McpError(ErrorCode.InvalidParams, 'invalid cursor: pass back a nextCursor from resources/list unchanged');
}

async function readText(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ENOTDIR')
      return undefined;
    throw new McpError(ErrorCode.InternalError, `cannot read: ${(e as NodeJS.ErrnoException).code ?? errorMessage(e)}`);
  }
}

/** A title or snippet inside a Markdown list item: one line, link brackets escaped. */
function mdText(s: string): string {
  return s
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[[\]]/g, (c) => `\\${c}`);
}
