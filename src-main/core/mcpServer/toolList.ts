/**
 * Which of an agent's tools `rein mcp serve` exposes, and how each one looks to an MCP client.
 *
 * Exposed: the agent's local tools as its runtime assembles them (built-ins, memory_append,
 * session_search, use_skill, the schedule tools), after its allowed/denied lists. Never exposed: tools
 * of other MCP servers, cloud and GUI-bridge tools (none are given to the runtime here), and
 * tool_search, which only loads deferred MCP/cloud tools and has nothing to find in this process.
 *
 * Each tool's `inputSchema` is the very JSON Schema the registry gives the model
 * (ToolRegistry.definition): the parameters object itself, never wrapped in another object.
 */
import type { Tool as McpTool, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { Tool } from '../tools/tool.js';
import { reachesNetwork } from '../tools/traits.js';
import { TOOL_SEARCH_NAME } from '../tools/deferredTools.js';

/** The tools a client may list and call, in the registry's (deterministic) order. */
export function exposedTools(registry: ToolRegistry): Tool[] {
  return registry.list().filter((t) => t.source === 'local' && t.name !== TOOL_SEARCH_NAME);
}

/**
 * The answer of a per-call predicate that cannot depend on its input: one declared without
 * parameters (`isReadOnly: () => true`). A predicate that takes the input (`(i) => …`) may answer
 * either way, so it has no constant answer (undefined).
 */
export function constantAnswer(tool: Tool, predicate: 'isReadOnly' | 'isDestructive'): boolean | undefined {
  const fn = tool[predicate] as ((input?: unknown) => unknown) | undefined;
  if (typeof fn !== 'function' || fn.length !== 0) return undefined;
  try {
    const value = fn.call(tool);
    return typeof value === 'boolean' ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * MCP annotations from what the tool says about itself. They are hints for the client (to group or
 * warn), never a permission: every call still goes through Rein's permission engine.
 * - readOnlyHint: true only when the tool is read-only whatever its input (`bash` is read-only for
 *   `ls` and not for `rm`, so it is not);
 * - destructiveHint: false only when the tool is read-only or is never destructive whatever its input;
 * - openWorldHint: tools that may reach beyond this computer by their traits (tools/traits.ts, reachesNetwork):
 *   web-family tools, tools that send requests to a URL they are given (http), tools that run command lines
 *   (bash, which may run `curl`).
 */
export function annotationsOf(tool: Tool): ToolAnnotations {
  const readOnly = tool.traits?.readsOnly === true || constantAnswer(tool, 'isReadOnly') === true;
  const destructive = readOnly ? false : constantAnswer(tool, 'isDestructive') !== false;
  return {
    title: titleOf(tool.name),
    readOnlyHint: readOnly,
    destructiveHint: destructive,
    openWorldHint: reachesNetwork(tool.traits),
  };
}

/** `file_read` → `File read`. */
function titleOf(name: string): string {
  const words = name.replace(/[_-]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The `tools/list` entries of the exposed tools. */
export function mcpToolList(registry: ToolRegistry): McpTool[] {
  return exposedTools(registry).map((tool) => {
    const def = registry.definition(tool);
    return {
      name: tool.name,
      description: tool.description,
      inputSchema: def.input_schema as McpTool['inputSchema'],
      annotations: annotationsOf(tool),
    };
  });
}

/** A fingerprint of the list (names and schemas), to tell a client when it really changed. */
export function listSignature(tools: readonly McpTool[]): string {
  return JSON.stringify(tools.map((t) => [t.name, t.description, t.inputSchema, t.annotations]));
}
