/**
 * Reads Claude Desktop's `claude_desktop_config.json` for `rein mcp import claude-desktop`:
 * `mcpServers.<name>` is either a program (`{command, args?, env?}`, optionally `type: "stdio"`) or a
 * remote server (`{url, type?: "http" | "streamable-http" | "sse", headers?}`). What Rein's config
 * cannot hold (an entry that is neither, unknown keys) is skipped with the reason, never half-imported.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ReinError, errorMessage } from '../errors.js';
import { checkEntry, type McpServerSpec } from './configEdit.js';

/** Where Claude Desktop keeps its config: macOS, Linux (`$XDG_CONFIG_HOME` or `~/.config`), Windows. */
export function claudeDesktopConfigPath(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): string {
  const home = env.HOME ?? env.USERPROFILE ?? '';
  if (platform === 'darwin')
    return join(home, 'Library', 'Application Support', 'Claude', 'claude_desktop_config.json');
  if (platform === 'win32')
    return join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), 'Claude', 'claude_desktop_config.json');
  return join(env.XDG_CONFIG_HOME?.trim() || join(home, '.config'), 'Claude', 'claude_desktop_config.json');
}

export interface ImportCandidates {
  file: string;
  servers: Array<[string, McpServerSpec]>;
  skipped: Array<{ name: string; reason: string }>;
  /** Imported, with something the person should know. */
  notes: Array<{ name: string; note: string }>;
}

const STDIO_KEYS = new Set(['command', 'args', 'env', 'type']);
const URL_KEYS = new Set(['url', 'type', 'headers']);

export async function readClaudeDesktopConfig(file: string): Promise<ImportCandidates> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new ReinError(
      code === 'ENOENT' ? 'not_found' : 'config_io',
      code === 'ENOENT'
        ? `${file} does not exist (is Claude Desktop installed? --file names another file)`
        : `cannot read ${file}: ${errorMessage(e)}`,
      { file },
    );
  }
  return parseClaudeDesktopConfig(file, text);
}

export function parseClaudeDesktopConfig(file: string, text: string): ImportCandidates {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new ReinError('config_invalid', `${file}: not valid JSON: ${errorMessage(e)}`, { file });
  }
  if (!isObject(json)) throw new ReinError('config_invalid', `${file}: expected a JSON object`, { file });
  const out: ImportCandidates = { file, servers: [], skipped: [], notes: [] };
  const servers = json.mcpServers;
  if (servers === undefined) return out;
  if (!isObject(servers))
    throw new ReinError('config_invalid', `${file}: mcpServers: expected an object of servers`, {
      file,
      field: 'mcpServers',
    });
  for (const [name, raw] of Object.entries(servers)) {
    const got = toSpec(raw);
    if ('skip' in got) {
      out.skipped.push({ name, reason: got.skip });
      continue;
    }
    const check = checkEntry(name, got.spec);
    if (!check.ok) {
      out.skipped.push({
        name,
        reason:
          check.field === 'name'
            ? `${check.message}; add it by hand with another name (rein mcp add)`
            : `${check.field}: ${check.message}`,
      });
      continue;
    }
    out.servers.push([name, got.spec]);
    if (got.note) out.notes.push({ name, note: got.note });
  }
  return out;
}

function toSpec(raw: unknown): { spec: McpServerSpec; note?: string } | { skip: string } {
  if (!isObject(raw)) return { skip: 'not an object' };
  const type = raw.type;
  if (type !== undefined && typeof type !== 'string') return { skip: 'type: expected a string' };
  if (
    typeof raw.url === 'string' ||
    type === 'http' ||
    type === 'sse' ||
    type === 'streamable-http' ||
    type === 'streamableHttp'
  ) {
    if (typeof raw.url !== 'string') return { skip: `type ${String(type)} without a url` };
    if (
      raw.headers !== undefined &&
      !(isObject(raw.headers) && Object.values(raw.headers).every((v) => typeof v === 'string'))
    )
      return { skip: 'headers: expected an object of strings' };
    const extra = Object.keys(raw).filter((k) => !URL_KEYS.has(k));
    if (extra.length > 0) return { skip: `unknown keys ${extra.join(', ')}` };
    return {
      // An SSE server stays one (`type: sse`): its URL is an event stream, not a Streamable HTTP endpoint.
      spec: {
        url: raw.url,
        ...(raw.headers ? { headers: raw.headers as Record<string, string> } : {}),
        ...(type === 'sse' ? { transport: 'sse' as const } : {}),
      },
    };
  }
  if (type !== undefined && type !== 'stdio') return { skip: `type "${type}" is not one Rein knows (stdio, http)` };
  if (typeof raw.command !== 'string') return { skip: 'neither a command nor a url' };
  if (raw.args !== undefined && !(Array.isArray(raw.args) && raw.args.every((a) => typeof a === 'string')))
    return { skip: 'args: expected a list of strings' };
  if (raw.env !== undefined && !(isObject(raw.env) && Object.values(raw.env).every((v) => typeof v === 'string')))
    return { skip: 'env: expected an object of strings' };
  const extra = Object.keys(raw).filter((k) => !STDIO_KEYS.has(k));
  if (extra.length > 0) return { skip: `unknown keys ${extra.join(', ')}` };
  return {
    spec: {
      command: raw.command,
      ...(raw.args ? { args: raw.args as string[] } : {}),
      ...(raw.env ? { env: raw.env as Record<string, string> } : {}),
    },
  };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
