/**
 * What Rein knows about each configured MCP server: `GET /mcp/servers`, `rein mcp list --json` and
 * the app's server panels (agent editor, settings) show this one shape; the app's sign-in and
 * reconnect answers are here too. Pure zod: the page bundles it.
 */
import { z } from 'zod';

/**
 * - idle: not started in this process yet (no run of the agent needed it);
 * - connecting, healthy, degraded (connected, the last probe failed), disconnected (retrying with
 *   backoff, or waiting for a sign-in), dormant (gave up after repeated failures; a call retries);
 * - disabled: `disabled: true` in the config.
 */
export const McpServerState = z.enum([
  'idle',
  'connecting',
  'healthy',
  'degraded',
  'disconnected',
  'dormant',
  'disabled',
]);
export type McpServerState = z.infer<typeof McpServerState>;

/** A server's configured transport: `stdio` (a command), `http` (Streamable HTTP) or `sse` (legacy HTTP+SSE). */
export const McpServerType = z.enum(['stdio', 'http', 'sse']);
export type McpServerType = z.infer<typeof McpServerType>;

export const McpServerStatus = z.object({
  name: z.string(),
  /** The transport as configured (`type` in the config); `http` and `sse` are both remote (URL) servers. */
  type: McpServerType,
  state: McpServerState,
  /** ISO time the state was entered. */
  since: z.string(),
  /** Tools known (kept from the last connection while disconnected). */
  tools: z.number().int().nonnegative(),
  /** Their names as the server gives them (not the registry's `mcp__…`), in the server's order. */
  tool_names: z.array(z.string()).optional(),
  last_error: z.string().optional(),
  /** ISO time the server last answered. */
  last_ok_at: z.string().optional(),
  /** ISO time of the next background probe or reconnect attempt. */
  next_attempt_at: z.string().optional(),
  /** A remote (http or sse) server refused without a valid sign-in: `rein mcp login NAME`. */
  sign_in_required: z.boolean(),
  /** Tokens from a sign-in are stored for it. */
  signed_in: z.boolean(),
  /** What the server said it is (`initialize`), once connected. */
  server: z.object({ name: z.string(), version: z.string() }).optional(),
  /** A sign-in started from the app (mcpLogin) that is waiting for the browser, or the last one that failed. */
  sign_in: z
    .object({
      state: z.enum(['waiting', 'failed']),
      started_at: z.string(),
      /** The page to open when no browser window appeared (waiting only). */
      authorization_url: z.string().optional(),
      error: z.string().optional(),
    })
    .optional(),
});
export type McpServerStatus = z.infer<typeof McpServerStatus>;

export const McpAgentServers = z.object({ agent: z.string(), servers: z.array(McpServerStatus) });
export type McpAgentServers = z.infer<typeof McpAgentServers>;

export const McpServersResult = z.object({ agents: z.array(McpAgentServers) });
export type McpServersResult = z.infer<typeof McpServersResult>;

/** A configured server's name as the app sends it (config keys are free text; the service checks it exists). */
export const McpServerName = z
  .string()
  .min(1, 'expected an MCP server name')
  .max(200, 'expected an MCP server name (at most 200 characters)')
  .refine(
    (s) => ![...s].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f),
    'expected an MCP server name without control characters',
  );

/**
 * The answer to mcpLogin: `waiting` once the authorization page was handed to the browser (the rest
 * happens there; the server's status follows), `signed_in` when the authorization server granted at
 * once.
 */
export const McpLoginResult = z.looseObject({
  agent: z.string(),
  name: z.string(),
  state: z.enum(['waiting', 'signed_in']),
  authorization_url: z.string().optional(),
  message: z.string(),
});
export type McpLoginResult = z.infer<typeof McpLoginResult>;

/** The answer to mcpReconnect: the server's status after the attempt (a failed attempt is a state, not an error). */
export const McpReconnectResult = z.looseObject({ agent: z.string(), server: McpServerStatus });
export type McpReconnectResult = z.infer<typeof McpReconnectResult>;
