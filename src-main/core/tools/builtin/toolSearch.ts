/**
 * `tool_search`: loads deferred tools (MCP and cloud tools withheld when many are registered) into
 * the session's working set and returns their full definitions. Loaded tools are sent with every
 * later request of the session. Built per runtime; the working set is per session: the context's
 * session slot (DEFERRED_TOOLS_SLOT, seeded by the loop from the session file) unless `stateFor` says otherwise.
 */
import { callSummaryOf } from '../../api/toolSummary.js';
import type { Tool as ApiTool } from '@anthropic-ai/sdk/resources/messages';
import { z } from 'zod';
import {
  addLoadedTools,
  DEFERRED_TOOLS_SLOT,
  isDeferrable,
  newDeferredToolState,
  parseToolQuery,
  searchTools,
  toolDefinition,
  TOOL_SEARCH_NAME,
  type DeferredToolState,
} from '../deferredTools.js';
import { sortKeys } from '../registry.js';
import { sessionSlots } from '../sessionSlots.js';
import { okResult, type Tool, type ToolContext } from '../tool.js';

const input = z.strictObject({
  query: z
    .string()
    .trim()
    .min(1)
    .describe(
      'Keywords describing the capability you need (e.g. "calendar events"), or "select:name1,name2" to load tools by exact name.',
    ),
});
export type ToolSearchInput = z.infer<typeof input>;

export interface ToolSearchOptions {
  /** Every tool of the runtime; only MCP and cloud tools are searched. */
  tools: () => readonly Tool[];
  /** The working set of the session a call belongs to (default: the context's session slot). */
  stateFor?: (ctx: ToolContext) => DeferredToolState;
  /** Pass `(t) => registry.definition(t)` to return the exact definitions the requests carry. */
  definition?: (tool: Tool) => ApiTool;
  /** Most tools one keyword search loads (default 5). */
  limit?: number;
}

export function createToolSearchTool(opts: ToolSearchOptions): Tool<ToolSearchInput> {
  const definition = opts.definition ?? toolDefinition;
  const stateFor =
    opts.stateFor ?? ((ctx: ToolContext) => sessionSlots(ctx).slot(DEFERRED_TOOLS_SLOT, newDeferredToolState));
  return {
    name: TOOL_SEARCH_NAME,
    source: 'local',
    description:
      'Load deferred tools (listed under "Deferred tools" in your instructions) so you can call them. ' +
      'Query with keywords for the capability you need, or with "select:name1,name2" for exact names. ' +
      'Returns the definitions of the tools it loaded; they can be called from your next step on and stay loaded for this session.',
    input,
    isReadOnly: () => true,
    isConcurrencySafe: () => true,
    isDestructive: () => false,
    summarize: (i) => callSummaryOf('tool_search', i),

    async call(i, ctx) {
      const all = opts.tools();
      const deferrable = all.filter(isDeferrable);
      const query = parseToolQuery(i.query);
      const found = searchTools(deferrable, i.query, opts.limit ?? 5);
      const notes: string[] = [];
      if (query.kind === 'select') {
        const foundNames = new Set(found.map((t) => t.name.toLowerCase()));
        const byName = new Map(all.map((t) => [t.name.toLowerCase(), t]));
        const direct = query.names.filter((n) => !foundNames.has(n.toLowerCase()) && byName.has(n.toLowerCase()));
        const unknown = query.names.filter((n) => !foundNames.has(n.toLowerCase()) && !byName.has(n.toLowerCase()));
        if (direct.length > 0)
          notes.push(
            `Already available without loading: ${direct.map((n) => byName.get(n.toLowerCase())!.name).join(', ')}.`,
          );
        if (unknown.length > 0) notes.push(`No tool named: ${unknown.join(', ')}.`);
      }
      if (found.length === 0) {
        return okResult(
          [
            `No deferred tool matches "${i.query}".`,
            ...notes,
            'Try other keywords, or pick exact names from the "Deferred tools" list and use "select:name".',
          ].join('\n'),
        );
      }
      const state = stateFor(ctx);
      const names = found.map((t) => t.name);
      addLoadedTools(state, names);
      const schemas = found.map((t) => JSON.stringify(sortKeys(definition(t))));
      return okResult(
        [
          `LOADED: ${names.join(', ')}`,
          ...notes,
          'You can call these tools from your next step on. Their definitions:',
          '',
          ...schemas,
        ].join('\n'),
      );
    },
  };
}
