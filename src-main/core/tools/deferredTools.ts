/**
 * Deferred tools: with many tools registered (MCP servers and cloud tools add dozens), sending every
 * JSON schema on every request costs thousands of tokens the model mostly does not need. Past a
 * threshold, MCP and cloud tools are withheld and listed as a one-line catalogue; the model loads
 * the ones it needs with `tool_search`, and they stay loaded for the rest of the session (the
 * session's working set). Local tools are never withheld.
 *
 * Everything here is deterministic: the same registry and working set give the same tool list, in
 * the registry's canonical order (local, MCP, cloud, GUI; by name within each), and the same catalogue
 * bytes, so consecutive requests keep sharing their cached prefix.
 *
 * The working set lives in the tool context's session slot (DEFERRED_TOOLS_SLOT); the loop seeds it
 * with the object kept in the session's context state, so what tool_search loads is saved with the session.
 */
import type { Tool as ApiTool } from '@anthropic-ai/sdk/resources/messages';
import { z } from 'zod';
import { compareTools, toInputSchema } from './registry.js';
import { slotKey } from './sessionSlots.js';
import type { Tool } from './tool.js';

/** More registered tools than this (tool_search not counted) turns deferral on. */
export const DEFER_THRESHOLD = 30;
export const TOOL_SEARCH_NAME = 'tool_search';

/** The session's working set: deferred tools loaded so far. Plain JSON for the session file. */
export interface DeferredToolState {
  /** Sorted, no duplicates. */
  loaded: string[];
}

export const DeferredToolStateShape = z.strictObject({ loaded: z.array(z.string()) });

export const newDeferredToolState = (): DeferredToolState => ({ loaded: [] });

/** The session slot holding the working set. */
export const DEFERRED_TOOLS_SLOT = slotKey<DeferredToolState>('deferred_tools');

/** Adds names to the working set; returns the ones that were not there yet. */
export function addLoadedTools(state: DeferredToolState, names: readonly string[]): string[] {
  const have = new Set(state.loaded);
  const added = [...new Set(names)].filter((n) => !have.has(n));
  if (added.length > 0) state.loaded = [...have, ...added].sort(compareNames);
  return added;
}

export const isDeferrable = (tool: Pick<Tool, 'source'>): boolean => tool.source === 'mcp' || tool.source === 'cloud';

const compareNames = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The registry's order: local, MCP, cloud, GUI; by name within each. */
export function canonicalOrder<T extends Pick<Tool, 'source' | 'name'>>(tools: readonly T[]): T[] {
  return [...tools].sort(compareTools);
}

/** A tool as the Messages API receives it, schema keys sorted (the registry's own serialisation). */
export function toolDefinition(tool: Tool): ApiTool {
  return {
    name: tool.name,
    description: tool.description,
    input_schema: toInputSchema(tool.input) as ApiTool['input_schema'],
  };
}

export interface ExposureOptions {
  /** Default DEFER_THRESHOLD. */
  threshold?: number;
  /** Pass `(t) => registry.definition(t)` to reuse the registry's cached definitions. */
  definition?: (tool: Tool) => ApiTool;
}

export interface ToolExposure {
  /** What goes into the request's `tools`, in canonical order. */
  definitions: ApiTool[];
  /** Tools withheld from this request, in canonical order. */
  deferred: Tool[];
  /** `# Deferred tools` section for the stable prompt part; '' when nothing is withheld. */
  catalogue: string;
  /** True when more than `threshold` tools are registered and some can be deferred. */
  deferring: boolean;
}

/**
 * Decides which tools the next request carries. `tool_search` (when registered) is sent only while
 * deferring; deferral needs it, so without it nothing is withheld.
 */
export function planToolExposure(
  tools: readonly Tool[],
  loadedNames: ReadonlySet<string>,
  opts: ExposureOptions = {},
): ToolExposure {
  const threshold = opts.threshold ?? DEFER_THRESHOLD;
  const definition = opts.definition ?? toolDefinition;
  const search = tools.find((t) => t.name === TOOL_SEARCH_NAME);
  const others = tools.filter((t) => t.name !== TOOL_SEARCH_NAME);
  const deferring = search !== undefined && others.length > threshold && others.some(isDeferrable);
  const withheld = deferring ? others.filter((t) => isDeferrable(t) && !loadedNames.has(t.name)) : [];
  const withheldNames = new Set(withheld.map((t) => t.name));
  const sent = canonicalOrder([...others.filter((t) => !withheldNames.has(t.name)), ...(deferring ? [search] : [])]);
  const deferred = canonicalOrder(withheld);
  return { definitions: sent.map(definition), deferred, catalogue: renderCatalogue(deferred), deferring };
}

export const CATALOGUE_HEADING = '# Deferred tools';

export function renderCatalogue(deferred: readonly Pick<Tool, 'name' | 'description' | 'source'>[]): string {
  if (deferred.length === 0) return '';
  return [
    CATALOGUE_HEADING,
    `These tools exist but their definitions are not loaded. Before using one, call ${TOOL_SEARCH_NAME} with keywords ` +
      `or with "select:name1,name2"; the tools it loads can be called from your next step on.`,
    ...canonicalOrder(deferred).map((t) => `- ${t.name}: ${oneLine(t.description)}`),
  ].join('\n');
}

/** First sentence of a description, whitespace squashed, at most 120 characters. */
export function oneLine(description: string): string {
  const flat = description.replace(/\s+/g, ' ').trim();
  const sentence = /^(.+?[.!?])(\s|$)/.exec(flat)?.[1] ?? flat;
  return sentence.length <= 120 ? sentence : `${sentence.slice(0, 119)}…`;
}

export type ToolQuery = { kind: 'select'; names: string[] } | { kind: 'keywords'; terms: string[] };

/** `select:a,b` picks exact names; anything else is keywords. */
export function parseToolQuery(query: string): ToolQuery {
  const q = query.trim();
  const select = /^select\s*:(.*)$/is.exec(q);
  if (select) {
    const names = select[1]!
      .split(/[\s,]+/)
      .map((s) => s.trim())
      .filter((s) => s !== '');
    return { kind: 'select', names: [...new Set(names)] };
  }
  return { kind: 'keywords', terms: tokenize(q) };
}

/** Words of a text: lower case, split on anything not a letter or digit and at camelCase humps. */
export function tokenize(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0)
    .map(stem);
}

// Crude plural folding so "calendars" finds "calendar"; enough for tool names and one-line descriptions.
const stem = (w: string): string => (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w);

const K1 = 1.2;
const B = 0.75;
/** Name words count this many times: a word in the name says more than the same word in a description. */
const NAME_WEIGHT = 3;

/**
 * BM25 over each tool's name and description. A query that is exactly a tool's name ranks that tool
 * first. Ties keep canonical order, so the result is deterministic.
 */
export function searchTools<T extends Pick<Tool, 'name' | 'description' | 'source'>>(
  tools: readonly T[],
  query: string,
  limit = 5,
): T[] {
  const parsed = parseToolQuery(query);
  const ordered = canonicalOrder(tools);
  if (parsed.kind === 'select') {
    const wanted = new Set(parsed.names.map((n) => n.toLowerCase()));
    return ordered.filter((t) => wanted.has(t.name.toLowerCase()));
  }
  const terms = [...new Set(parsed.terms)];
  if (terms.length === 0) return [];
  const docs = ordered.map((t) => {
    const words = [...Array<string[]>(NAME_WEIGHT).fill(tokenize(t.name)).flat(), ...tokenize(t.description)];
    const tf = new Map<string, number>();
    for (const w of words) tf.set(w, (tf.get(w) ?? 0) + 1);
    return { tool: t, tf, length: words.length };
  });
  const avg = docs.reduce((n, d) => n + d.length, 0) / Math.max(1, docs.length);
  const df = new Map<string, number>();
  for (const term of terms) df.set(term, docs.filter((d) => d.tf.has(term)).length);
  const exact = query.trim().toLowerCase();
  const scored = docs.map((d, index) => {
    let score = d.tool.name.toLowerCase() === exact ? 1000 : 0;
    for (const term of terms) {
      const f = d.tf.get(term) ?? 0;
      if (f === 0) continue;
      const n = df.get(term) ?? 0;
      const idf = Math.log(1 + (docs.length - n + 0.5) / (n + 0.5));
      score += (idf * f * (K1 + 1)) / (f + K1 * (1 - B + (B * d.length) / avg));
    }
    return { tool: d.tool, score, index };
  });
  return scored
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, limit)
    .map((s) => s.tool);
}
