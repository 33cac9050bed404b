/**
 * `rein mcp add | remove | import`: edits `mcp_servers` in the global `config.yaml` or in an agent's
 * `agents/<name>/config.yaml`. The files belong to the person, so they are edited the way the settings
 * view edits config.yaml (core/service/globalConfigEdit.ts): as YAML documents, comments and layout
 * kept; the file as it is must load, and the whole result is validated with the loader's own rules
 * (parseLayer for the global file, parseAgentConfigText for an agent's) before anything is written;
 * the write is atomic and the read-modify-write holds the file's lock (the one "always allow" takes).
 *
 * An existing entry is never overwritten unless asked (`replace`): a name already there is reported
 * as the same settings or as a clash, and kept.
 */
import { access, mkdir, readFile, realpath } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { isMap, isScalar, isSeq, parseDocument, type Document, type YAMLMap } from 'yaml';
import { agentLayout, isAgentName, isDefaultAgent, NAME_RULE } from '../agents/layout.js';
import { parseAgentConfigText } from '../agents/agentFiles.js';
import { parseLayer, type ConfigProblem } from '../config/load.js';
import { DEFAULT_AGENT, paths } from '../config/paths.js';
import { McpServerConfig } from '../config/schema.js';
import { ReinError, fieldError } from '../errors.js';
import { atomicWriteFile } from '../util/atomicWrite.js';
import { canonicalJson } from '../util/canonicalJson.js';
import { withFileLock } from '../util/fileLock.js';

/** Names people type and tool names can carry (`mcp__<server>__<tool>`): letters, digits, `_`, `-`, `.`. */
export const SERVER_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
export const SERVER_NAME_RULE = 'letters, digits, _, - and ., starting with a letter or digit, at most 64 characters';

/** One server as `rein mcp add` and the import write it. */
export interface McpServerSpec {
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  url?: string;
  /** HTTP headers for a url server (`${NAME}` stands for the environment variable NAME). */
  headers?: Record<string, string>;
  /** A url server that only speaks the legacy HTTP+SSE transport (`type: sse`); else `type: http`. */
  transport?: 'sse';
  disabled?: boolean;
  context?: string;
}

export interface ConfigTarget {
  /** The real file (a symlinked config is followed to its target). */
  file: string;
  agent: string;
  scope: 'global' | 'agent';
}

/** The file an agent's servers live in: the global config.yaml for `default`, else the agent's own (it must exist). */
export async function configTarget(home: string, agent: string = DEFAULT_AGENT): Promise<ConfigTarget> {
  if (isDefaultAgent(agent)) {
    const file = paths.globalConfig(home);
    return { file: await realpath(file).catch(() => resolve(file)), agent, scope: 'global' };
  }
  if (!isAgentName(agent))
    throw new ReinError('invalid_input', `agent: "${agent}" is not an agent name (${NAME_RULE})`, { field: 'agent' });
  const layout = agentLayout(home, agent);
  try {
    await access(layout.persona);
  } catch {
    throw new ReinError('agent_not_found', `no agent named "${agent}" (${layout.persona} does not exist)`, {
      field: 'agent',
    });
  }
  return { file: await realpath(layout.config).catch(() => resolve(layout.config)), agent, scope: 'agent' };
}

/** The YAML value of an entry, keys in the order people read them; `type: http` only for a URL. */
export function entryValue(spec: McpServerSpec): Record<string, unknown> {
  const v: Record<string, unknown> = {};
  if (spec.url !== undefined) {
    v.type = spec.transport ?? 'http';
    v.url = spec.url;
  }
  if (spec.command !== undefined) v.command = spec.command;
  if (spec.args && spec.args.length > 0) v.args = [...spec.args];
  if (spec.env && Object.keys(spec.env).length > 0) v.env = { ...spec.env };
  if (spec.headers && Object.keys(spec.headers).length > 0) v.headers = { ...spec.headers };
  if (spec.disabled) v.disabled = true;
  if (spec.context !== undefined) v.context = spec.context;
  return v;
}

/** An entry checked on its own (the name rule, the server schema), with the problem when it is not valid. */
export function checkEntry(
  name: string,
  spec: McpServerSpec,
): { ok: true } | { ok: false; field: string; message: string } {
  if (!SERVER_NAME_RE.test(name))
    return { ok: false, field: 'name', message: `"${name}" is not a server name (${SERVER_NAME_RULE})` };
  if ((spec.command === undefined) === (spec.url === undefined))
    return { ok: false, field: 'command', message: 'give either a command (stdio) or a url (http)' };
  if (spec.url !== undefined) {
    let u: URL;
    try {
      u = new URL(spec.url);
    } catch {
      return { ok: false, field: 'url', message: `"${spec.url}" is not a URL` };
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:')
      return { ok: false, field: 'url', message: `only http and https URLs are supported, not ${u.protocol}` };
  }
  if (spec.command !== undefined && spec.command.trim() === '')
    return { ok: false, field: 'command', message: 'must not be empty' };
  for (const key of Object.keys(spec.env ?? {})) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key))
      return { ok: false, field: 'env', message: `"${key}" is not an environment variable name` };
  }
  if (spec.headers && Object.keys(spec.headers).length > 0 && spec.url === undefined)
    return { ok: false, field: 'headers', message: 'only a url server sends headers' };
  for (const [key, value] of Object.entries(spec.headers ?? {})) {
    if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(key))
      return { ok: false, field: 'headers', message: `"${key}" is not a header name` };
    if (/[\r\n]/.test(value)) return { ok: false, field: 'headers', message: `the value of ${key} has a line break` };
  }
  const parsed = McpServerConfig.safeParse(entryValue(spec));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { ok: false, field: String(issue.path[0] ?? 'server'), message: issue.message };
  }
  return { ok: true };
}

export interface AddReport {
  file: string;
  added: string[];
  /** Replaced on request (`replace`). */
  replaced: string[];
  /** Already there with the same settings: nothing to do. */
  same: string[];
  /** Already there with other settings: kept as they were. */
  clashes: string[];
  /** Whether the file was (or, for a dry run, would be) written. */
  written: boolean;
  /**
   * An agent that had no `mcp_servers` of its own used every global server; with a list of its own it
   * keeps only the global ones marked `_inherit: true`. These are the ones it no longer gets.
   */
  droppedGlobal?: string[];
}

/** Adds servers to the target file in one checked, atomic edit. */
export async function addMcpServers(
  home: string,
  target: ConfigTarget,
  entries: ReadonlyArray<readonly [string, McpServerSpec]>,
  opts: { replace?: boolean; dryRun?: boolean } = {},
): Promise<AddReport> {
  for (const [name, spec] of entries) {
    const c = checkEntry(name, spec);
    if (!c.ok) throw fieldError('invalid_request', `${c.field}: ${c.message}`, c.field);
  }
  const run = async () => {
    const text = (await readOrNull(target.file)) ?? '';
    const plan = planAdd(target, text, entries, opts.replace ?? false);
    const written = plan.next !== text;
    if (written && !opts.dryRun) await atomicWriteFile(target.file, plan.next);
    const report: AddReport = {
      file: target.file,
      added: plan.added,
      replaced: plan.replaced,
      same: plan.same,
      clashes: plan.clashes,
      written,
    };
    if (plan.startsOwnList && plan.added.length > 0) report.droppedGlobal = await globalServersNotInherited(home);
    return report;
  };
  if (opts.dryRun) return run();
  await ensureFolder(target.file);
  return withFileLock(target.file, run);
}

export interface RemoveReport {
  file: string;
  removed: string;
}

/** Removes one server from the target file, keeping the comments around it. */
export async function removeMcpServer(target: ConfigTarget, name: string): Promise<RemoveReport> {
  await ensureFolder(target.file);
  return withFileLock(target.file, async () => {
    const text = await readOrNull(target.file);
    if (text === null)
      throw new ReinError('not_found', `no MCP server "${name}" in ${target.file} (the file does not exist)`, {
        field: 'name',
      });
    const next = planRemove(target, text, name);
    await atomicWriteFile(target.file, next);
    return { file: target.file, removed: name };
  });
}

/** The servers configured in the target file, by name (after validation). */
export async function configuredServers(
  target: ConfigTarget,
): Promise<Record<string, ReturnType<typeof McpServerConfig.parse>>> {
  const text = (await readOrNull(target.file)) ?? '';
  const { doc } = loadChecked(target, text);
  return normalisedServers(doc);
}

// ---- the edits, pure over the text ------------------------------------------------------------------

interface AddPlan {
  next: string;
  added: string[];
  replaced: string[];
  same: string[];
  clashes: string[];
  /** The agent file had no `mcp_servers` key before. */
  startsOwnList: boolean;
}

export function planAdd(
  target: Pick<ConfigTarget, 'file' | 'scope'>,
  text: string,
  entries: ReadonlyArray<readonly [string, McpServerSpec]>,
  replace: boolean,
): AddPlan {
  const { doc } = loadChecked(target, text);
  const existing = normalisedServers(doc);
  const startsOwnList = target.scope === 'agent' && !doc.hasIn(['mcp_servers']);
  const plan: AddPlan = { next: text, added: [], replaced: [], same: [], clashes: [], startsOwnList };
  let changed = false;
  for (const [name, spec] of entries) {
    const value = entryValue(spec);
    if (Object.hasOwn(existing, name)) {
      if (canonicalJson(existing[name]) === canonicalJson(McpServerConfig.parse(value))) {
        plan.same.push(name);
        continue;
      }
      if (!replace) {
        plan.clashes.push(name);
        continue;
      }
      plan.replaced.push(name);
    } else {
      plan.added.push(name);
    }
    serversMap(doc).set(name, entryNode(doc, value));
    existing[name] = McpServerConfig.parse(value);
    changed = true;
  }
  if (!changed) return plan;
  plan.next = validated(target, doc.toString());
  return plan;
}

export function planRemove(target: Pick<ConfigTarget, 'file' | 'scope'>, text: string, name: string): string {
  const { doc } = loadChecked(target, text);
  const map = doc.getIn(['mcp_servers'], true);
  const names = isMap(map) ? map.items.map((p) => (isScalar(p.key) ? String(p.key.value) : '')).filter(Boolean) : [];
  if (!isMap(map) || !names.includes(name)) {
    throw new ReinError(
      'not_found',
      `no MCP server "${name}" in ${target.file}${names.length > 0 ? ` (it has: ${names.join(', ')})` : ' (it has none)'}`,
      { field: 'name' },
    );
  }
  // An agent's empty list still means "my own servers: none" (absent would mean "every global one"),
  // so an agent file keeps `mcp_servers: {}`; in the global file an empty table is the same as none.
  removePair(doc, ['mcp_servers'], name, target.scope === 'agent');
  const next = doc.contents === null ? commentLines(doc.commentBefore) : doc.toString();
  return validated(target, next);
}

function loadChecked(target: Pick<ConfigTarget, 'file' | 'scope'>, text: string): { doc: Document } {
  const problems = problemsOf(target, text);
  if (problems) {
    const list = problems.map(
      (p) => `${p.line !== undefined ? `line ${p.line}: ` : ''}${p.field ? `${p.field}: ` : ''}${p.message}`,
    );
    throw new ReinError(
      'config_invalid',
      `${target.file} has problems to fix first (nothing was written): ${list.join('; ')}`,
      { file: target.file },
    );
  }
  const doc = parseDocument(text);
  if (!isEmptyNode(doc.contents) && !isMap(doc.contents)) {
    throw new ReinError('config_invalid', `${target.file}: the top level must be a mapping (nothing was written)`, {
      file: target.file,
    });
  }
  return { doc };
}

/** The edited text when it loads as the loader would load it; a ReinError naming the field when not. */
function validated(target: Pick<ConfigTarget, 'file' | 'scope'>, next: string): string {
  const problems = problemsOf(target, next);
  if (problems) {
    const p = problems[0]!;
    const field = p.field ?? 'config';
    throw fieldError('invalid_request', `${field}: ${p.message} (nothing was written)`, field);
  }
  return next;
}

function problemsOf(target: Pick<ConfigTarget, 'file' | 'scope'>, text: string): ConfigProblem[] | undefined {
  const r = target.scope === 'global' ? parseLayer(target.file, text) : parseAgentConfigText(target.file, text);
  return r.ok ? undefined : r.problems;
}

function normalisedServers(doc: Document): Record<string, ReturnType<typeof McpServerConfig.parse>> {
  const raw = (doc.toJS() as { mcp_servers?: Record<string, unknown> } | null)?.mcp_servers ?? {};
  const out: Record<string, ReturnType<typeof McpServerConfig.parse>> = Object.create(null);
  for (const [name, value] of Object.entries(raw)) {
    const { _inherit: _ignored, ...rest } = (value ?? {}) as Record<string, unknown>;
    const parsed = McpServerConfig.safeParse(rest);
    if (parsed.success) out[name] = parsed.data;
  }
  return out;
}

/** The `mcp_servers` mapping, made (in block style) when absent, empty or an empty `{}`. */
function serversMap(doc: Document): YAMLMap {
  if (isEmptyNode(doc.contents)) {
    const old = doc.contents;
    const map = doc.createNode({});
    // A file of only comments keeps them above the new keys.
    if (isScalar(old)) map.commentBefore = old.commentBefore ?? old.comment;
    doc.contents = map;
  }
  let node = doc.getIn(['mcp_servers'], true);
  if (!isMap(node)) {
    doc.setIn(['mcp_servers'], doc.createNode({}));
    node = doc.getIn(['mcp_servers'], true);
  }
  const map = node as YAMLMap;
  if (map.flow && map.items.length === 0) map.flow = false;
  return map;
}

/** The entry as a node: block mapping, `args` as one flow list (`[-y, "@scope/server"]`). */
function entryNode(doc: Document, value: Record<string, unknown>) {
  const node = doc.createNode(value) as YAMLMap;
  const args = node.get('args', true);
  if (isSeq(args)) args.flow = true;
  return node;
}

/**
 * Removes `parent.key` without losing the comments around it: a comment above the key moves to the
 * next key (or below the mapping when it was the last one). A mapping left empty is removed too,
 * unless `keepEmpty`.
 */
function removePair(doc: Document, parentPath: string[], key: string, keepEmpty: boolean): void {
  const parent = doc.getIn(parentPath, true);
  if (!isMap(parent)) return;
  const index = parent.items.findIndex((p) => isScalar(p.key) && String(p.key.value) === key);
  if (index < 0) return;
  const [pair] = parent.items.splice(index, 1);
  const k = pair!.key as { commentBefore?: string | null; comment?: string | null } | null;
  const v = pair!.value as { commentBefore?: string | null; comment?: string | null } | null;
  const notes = [k?.commentBefore, k?.comment, v?.comment].filter(
    (c): c is string => typeof c === 'string' && c !== '',
  );
  const next = parent.items[index];
  if (notes.length > 0) {
    if (next && isScalar(next.key))
      next.key.commentBefore = [...notes, next.key.commentBefore].filter(Boolean).join('\n');
    else parent.comment = [parent.comment, ...notes].filter(Boolean).join('\n');
  }
  if (parent.items.length > 0 || keepEmpty) return;
  // The emptied mapping goes too, its comments kept above whatever follows it.
  const grand = parentPath.length === 1 ? doc.contents : doc.getIn(parentPath.slice(0, -1), true);
  if (!isMap(grand)) return;
  const at = grand.items.findIndex((p) => isScalar(p.key) && String(p.key.value) === parentPath.at(-1));
  if (at < 0) return;
  const [gone] = grand.items.splice(at, 1);
  const goneKey = gone!.key as { commentBefore?: string | null; comment?: string | null } | null;
  const leftover = [goneKey?.commentBefore, goneKey?.comment, parent.commentBefore, parent.comment].filter(
    (c): c is string => typeof c === 'string' && c !== '',
  );
  const after = grand.items[at];
  if (leftover.length > 0) {
    if (after && isScalar(after.key))
      after.key.commentBefore = [...leftover, after.key.commentBefore].filter(Boolean).join('\n');
    else grand.comment = [grand.comment, ...leftover].filter(Boolean).join('\n');
  }
  if (grand.items.length === 0 && parentPath.length === 1) {
    const rest = [grand.commentBefore, grand.comment].filter(Boolean).join('\n');
    doc.contents = null;
    if (rest) doc.commentBefore = [doc.commentBefore, rest].filter(Boolean).join('\n');
  }
}

/** The global servers a named agent stops getting once it has a list of its own (those not marked `_inherit`). */
async function globalServersNotInherited(home: string): Promise<string[]> {
  const file = paths.globalConfig(home);
  const text = await readOrNull(file).catch(() => null);
  if (text === null) return [];
  const layer = parseLayer(file, text);
  if (!layer.ok) return [];
  const servers = ((layer.raw as { mcp_servers?: Record<string, { _inherit?: unknown }> }).mcp_servers ?? {}) as Record<
    string,
    { _inherit?: unknown } | null
  >;
  return Object.entries(servers)
    .filter(([, s]) => s?._inherit !== true)
    .map(([n]) => n);
}

function commentLines(comment: string | null | undefined): string {
  return comment
    ? `${comment
        .split('\n')
        .map((l) => `#${l}`)
        .join('\n')}\n`
    : '';
}

function isEmptyNode(node: unknown): boolean {
  return node === undefined || node === null || (isScalar(node) && (node.value === null || node.value === undefined));
}

async function ensureFolder(file: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
}

async function readOrNull(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new ReinError('config_io', `cannot read ${file}: ${(e as Error).message}`, { file });
  }
}
