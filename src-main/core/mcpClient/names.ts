/**
 * How an MCP tool is named and described in the registry. The Messages API takes tool names matching
 * `^[a-zA-Z0-9_-]{1,64}$`; MCP tool and server names may hold dots, slashes, spaces or anything else.
 * A tool is `mcp__<server>__<tool>` with every other character turned into `_`. A name longer than 64
 * characters is cut and ends with 8 hex digits of a hash of the server's and the tool's own names, so
 * two long names that share their first 55 characters stay apart. Two tools (or servers) whose names
 * only differ in characters that became `_` are kept apart the same way: a name that needed no change
 * keeps the plain form (else the first in code-unit order), the others get the hash. Everything here is a pure function of the names, so
 * the same server gives the same names on every machine and every connection.
 */
import { createHash } from 'node:crypto';

export const MAX_TOOL_NAME = 64;
/** Characters of a tool description the model sees (the rest is cut with an ellipsis). */
export const MAX_DESCRIPTION = 1_024;

const NAME_RE = /^[a-zA-Z0-9_-]{1,64}$/;

export const sanitizeNamePart = (s: string): string => s.replace(/[^a-zA-Z0-9_-]/g, '_') || '_';

const hash8 = (...parts: string[]): string => createHash('sha256').update(parts.join('\0')).digest('hex').slice(0, 8);

/** `mcp__<server>__<tool>` within 64 characters, `server` being the server's slug (see serverSlugs). */
export function mcpToolName(serverSlug: string, tool: string, forceHash = false): string {
  const base = `mcp__${serverSlug}__${sanitizeNamePart(tool)}`;
  if (!forceHash && base.length <= MAX_TOOL_NAME) return base;
  const suffix = `_${hash8(serverSlug, tool)}`;
  return `${base.slice(0, MAX_TOOL_NAME - suffix.length)}${suffix}`;
}

export const isRegistryName = (name: string): boolean => NAME_RE.test(name);

/**
 * Registry names for one server's tools, by the tool's own name. Distinct own names always get
 * distinct registry names; the same list gives the same names whatever order it came in.
 */
export function toolNames(serverSlug: string, tools: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  const taken = new Set<string>();
  for (const tool of [...new Set(tools)].sort(plainFirst)) {
    let name = mcpToolName(serverSlug, tool);
    if (taken.has(name)) name = mcpToolName(serverSlug, tool, true);
    // A hash clash of 32 bits among one server's tools: lengthen it with a counter until it is free.
    for (let i = 2; taken.has(name); i++) name = mcpToolName(serverSlug, `${tool}\0${i}`, true);
    taken.add(name);
    out.set(tool, name);
  }
  return out;
}

/**
 * Slugs for server names: sanitised, at most 24 characters (so the tool's own name keeps room), and
 * distinct — a server whose slug another already has gets a hash of its own name.
 */
export function serverSlugs(names: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  const taken = new Set<string>();
  for (const name of [...new Set(names)].sort(plainFirst)) {
    const plain = sanitizeNamePart(name);
    let slug = plain.length <= 24 ? plain : `${plain.slice(0, 15)}_${hash8(name)}`;
    if (taken.has(slug)) slug = `${plain.slice(0, 15)}_${hash8(name)}`;
    for (let i = 2; taken.has(slug); i++) slug = `${plain.slice(0, 15)}_${hash8(name, String(i))}`;
    taken.add(slug);
    out.set(name, slug);
  }
  return out;
}

/** The tool's description (or title) trimmed and capped; a stand-in when the server gave none. */
export function toolDescription(
  server: string,
  tool: { name: string; title?: string | undefined; description?: string | undefined },
): string {
  const text =
    (tool.description ?? '').trim() || (tool.title ?? '').trim() || `Tool ${tool.name} of the MCP server ${server}.`;
  return text.length <= MAX_DESCRIPTION ? text : `${text.slice(0, MAX_DESCRIPTION - 1)}…`;
}

const compareUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
/** Names that need no change claim their plain form before names that were changed into it. */
const plainFirst = (a: string, b: string): number =>
  Number(sanitizeNamePart(a) !== a) - Number(sanitizeNamePart(b) !== b) || compareUnits(a, b);
