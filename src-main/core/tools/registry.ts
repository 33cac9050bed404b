/**
 * Holds the tools of one runtime. Order is deterministic (local, then MCP, cloud and GUI; by name within
 * each) so the tool list the model sees is byte-identical from request to request (prompt cache), and a
 * source whose tools arrive late (a GUI bridge, an MCP server) only adds to the end of what came first.
 */
import type { Tool as ApiTool } from '@anthropic-ai/sdk/resources/messages';
import { z } from 'zod';
import type { Tool, ToolSource } from './tool.js';
import { sortKeys } from '../util/canonicalJson.js';

/**
 * Definitions by tool object. A tool's schema never changes, and building the JSON Schema costs
 * milliseconds; runtimes are made per run (daemon), so the cache outlives any one registry.
 */
const DEFINITIONS = new WeakMap<Tool, ToolDefinition>();
/** Input schemas by schema object: tools made per run by a factory (use_skill, memory_append) share theirs. */
const INPUT_SCHEMAS = new WeakMap<z.ZodType, Record<string, unknown>>();

export const SOURCE_ORDER: Readonly<Record<ToolSource, number>> = { local: 0, mcp: 1, cloud: 2, gui: 3 };

/** The registry's order: by source, then by name (code-unit order, the same on every machine). */
export function compareTools(a: Pick<Tool, 'source' | 'name'>, b: Pick<Tool, 'source' | 'name'>): number {
  return SOURCE_ORDER[a.source] - SOURCE_ORDER[b.source] || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}

/** The names the Messages API accepts. */
export const isValidToolName = (name: string): boolean => /^[a-zA-Z0-9_-]{1,64}$/.test(name);

/** A tool as the Messages API receives it. */
export type ToolDefinition = ApiTool;

export class ToolRegistry {
  readonly #tools = new Map<string, Tool>();
  #sorted: Tool[] | undefined;

  constructor(tools: Iterable<Tool> = []) {
    for (const t of tools) this.register(t);
  }

  /** Adds a tool. A name already taken keeps its first owner (local beats MCP beats cloud when registered in that order). */
  register(tool: Tool): boolean {
    if (!isValidToolName(tool.name)) throw new Error(`invalid tool name: ${JSON.stringify(tool.name)}`);
    if (this.#tools.has(tool.name)) return false;
    this.#tools.set(tool.name, tool);
    this.#sorted = undefined;
    return true;
  }

  get(name: string): Tool | undefined {
    return this.#tools.get(name);
  }

  has(name: string): boolean {
    return this.#tools.has(name);
  }

  get size(): number {
    return this.#tools.size;
  }

  list(): readonly Tool[] {
    this.#sorted ??= [...this.#tools.values()].sort(compareTools);
    return this.#sorted;
  }

  names(): string[] {
    return this.list().map((t) => t.name);
  }

  /** A new registry with only the allowed tools (all when `allowed` is empty) minus the denied ones (denied wins). */
  filter(allowed: readonly string[] = [], denied: readonly string[] = []): ToolRegistry {
    const allow = new Set(allowed);
    const deny = new Set(denied);
    return new ToolRegistry(this.list().filter((t) => (allow.size === 0 || allow.has(t.name)) && !deny.has(t.name)));
  }

  /** Tool definitions for the Messages API, cached per tool: serialisation is stable across requests. */
  definitions(): ToolDefinition[] {
    return this.list().map((t) => this.definition(t));
  }

  definition(tool: Tool): ToolDefinition {
    let def = DEFINITIONS.get(tool);
    if (!def) {
      let schema = INPUT_SCHEMAS.get(tool.input);
      if (!schema) INPUT_SCHEMAS.set(tool.input, (schema = toInputSchema(tool.input)));
      def = { name: tool.name, description: tool.description, input_schema: schema as ApiTool['input_schema'] };
      DEFINITIONS.set(tool, def);
    }
    return def;
  }
}

/** JSON Schema of a tool's input with keys in a stable (sorted) order and without the `$schema` noise. */
export function toInputSchema(schema: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  delete json.$schema;
  if (json.type !== 'object') return { type: 'object', properties: {} };
  return sortKeys(json) as Record<string, unknown>;
}

export { sortKeys };
