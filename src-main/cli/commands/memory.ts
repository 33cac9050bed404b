/** `rein memory show|append|consolidate [--agent NAME]`: look at and maintain an agent's memory. */
import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../core/config/load.js';
import { storedTrust } from '../folderTrust.js';
import { AGENT_NAME_RE, DEFAULT_AGENT, paths, reinHome } from '../../core/config/paths.js';
import { isReinError, ReinError } from '../../core/errors.js';
import { AnthropicLlm, type LlmClient } from '../../core/llm/client.js';
import {
  boundedAppend,
  consolidateMemory,
  listAutoFiles,
  loadMemory,
  memoryDir,
  memoryFile,
} from '../../core/memory/index.js';
import { resolveModelAccess, type ModelAccess } from '../../core/runtime/runtime.js';
import { readAll, UsageError, type CliIo } from '../io.js';

export const MEMORY_HELP = `Usage:
  rein memory show [--agent NAME] [--prompt]      print MEMORY.md (--prompt: the text the model gets)
  rein memory append [--agent NAME] TEXT          add TEXT to memory (TEXT may also come on stdin)
  rein memory consolidate [--agent NAME] [--if-due]
                                                  merge automatic entries with the small model
                                                  (--if-due: only when 12+ overflow files and 7+ days)
`;

export interface MemoryCommandDeps {
  /** Tests bring a fake model; otherwise one is built from the config and environment. */
  llm?: LlmClient;
  now?: Date;
}

export async function memoryCommand(argv: string[], io: CliIo, deps: MemoryCommandDeps = {}): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: optionsFirst(argv, new Set(['--agent'])),
      allowPositionals: true,
      options: {
        agent: { type: 'string' },
        prompt: { type: 'boolean' },
        'if-due': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { values, positionals } = parsed;
  const [sub, ...rest] = positionals;
  if (values.help || sub === undefined) {
    io.stdout.write(MEMORY_HELP);
    return values.help ? 0 : 2;
  }
  const agent = values.agent ?? DEFAULT_AGENT;
  if (!AGENT_NAME_RE.test(agent))
    throw new UsageError(`--agent: "${agent}" is not a valid agent name (lowercase letters, digits, - and _)`);
  if (values.prompt && sub !== 'show') throw new UsageError('--prompt only applies to `rein memory show`');
  if (values['if-due'] && sub !== 'consolidate')
    throw new UsageError('--if-due only applies to `rein memory consolidate`');

  const home = reinHome(io.env);
  const fail = (message: string) => {
    io.stderr.write(`rein: ${message}\n`);
    return 1;
  };
  try {
    if (agent !== DEFAULT_AGENT) await requireAgent(home, agent);
    const dir = memoryDir(home, agent);
    switch (sub) {
      case 'show':
        if (rest.length > 0) throw new UsageError('`rein memory show` takes no arguments');
        return await show(dir, agent, values.prompt ?? false, io);
      case 'append':
        return await append(dir, rest, io, deps);
      case 'consolidate': {
        if (rest.length > 0) throw new UsageError('`rein memory consolidate` takes no arguments');
        return await consolidate(dir, home, values['if-due'] ?? false, io, deps);
      }
      default:
        throw new UsageError(`unknown memory command "${sub}" (show, append or consolidate)`);
    }
  } catch (err) {
    if (err instanceof UsageError) throw err;
    if (isReinError(err, 'invalid_input')) {
      io.stderr.write(`rein: ${err.message}\n`);
      return 2;
    }
    if (isReinError(err)) return fail(err.message);
    return fail(err instanceof Error ? (err.stack ?? err.message) : String(err));
  }
}

async function show(dir: string, agent: string, asPrompt: boolean, io: CliIo): Promise<number> {
  const text = asPrompt ? await loadMemory(dir) : await readFile(memoryFile(dir), 'utf8').catch(noFile);
  if (!text) {
    io.stderr.write(`No memory yet for agent "${agent}" (${memoryFile(dir)}).\n`);
    return 0;
  }
  io.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  if (!asPrompt) {
    const overflow = (await listAutoFiles(dir)).length;
    if (overflow > 0)
      io.stderr.write(
        `(${overflow} overflow file${overflow === 1 ? '' : 's'} in ${dir}; --prompt shows them inlined)\n`,
      );
  }
  return 0;
}

async function append(dir: string, words: string[], io: CliIo, deps: MemoryCommandDeps): Promise<number> {
  let content = words.join(' ');
  if (content.trim() === '' && !io.stdin.isTTY) content = await readAll(io.stdin);
  if (content.trim() === '') throw new UsageError('nothing to append: pass the text as an argument or on stdin');
  const r = await boundedAppend(dir, content, deps.now ? { now: deps.now } : {});
  io.stdout.write(
    r.overflowed
      ? `MEMORY.md is full; saved to ${r.path} and linked from ${memoryFile(dir)}\n`
      : `appended to ${r.path}\n`,
  );
  return 0;
}

async function consolidate(
  dir: string,
  home: string,
  ifDue: boolean,
  io: CliIo,
  deps: MemoryCommandDeps,
): Promise<number> {
  const { config } = await loadConfig({ home, cwd: io.cwd, ...storedTrust(io) });
  const llm = deps.llm ?? new AnthropicLlm(withoutSource(await resolveModelAccess(io.env, config, home)));
  const controller = new AbortController();
  const onSigint = () => controller.abort(new Error('interrupted'));
  process.on('SIGINT', onSigint);
  try {
    const outcome = await consolidateMemory(dir, {
      llm,
      model: config.small_model,
      signal: controller.signal,
      force: !ifDue,
      ...(deps.now ? { now: deps.now } : {}),
    });
    if (outcome.status === 'skipped') {
      io.stdout.write(outcome.reason === 'not due' ? 'Consolidation is not due yet.\n' : 'Nothing to consolidate.\n');
      return 0;
    }
    const files = outcome.consumedFiles.length;
    io.stdout.write(
      `Consolidated ${files} overflow file${files === 1 ? '' : 's'} and the automatic entries of ${memoryFile(dir)} into ${outcome.lines} line${outcome.lines === 1 ? '' : 's'}.\n`,
    );
    if (outcome.leftover.length > 0)
      io.stderr.write(`rein: could not delete ${outcome.leftover.join(', ')}; they will be merged again next time\n`);
    return 0;
  } finally {
    process.off('SIGINT', onSigint);
  }
}

async function requireAgent(home: string, agent: string): Promise<void> {
  const file = join(paths.agentDir(home, agent), 'AGENT.md');
  try {
    await access(file);
  } catch {
    throw new ReinError('not_found', `agent "${agent}" not found: ${file} does not exist`);
  }
}

/**
 * Memory entries are Markdown bullets, so `rein memory append "- likes tea"` is the normal case; parseArgs
 * would take "- likes tea" for an option. Anything that does not look like `-x`/`--name` is text: move the
 * options first and the text after `--`, keeping the value that follows a string option with it.
 */
function optionsFirst(argv: string[], takesValue: ReadonlySet<string>): string[] {
  const options: string[] = [];
  const text: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      text.push(...argv.slice(i + 1));
      break;
    }
    if (/^--?[A-Za-z]/.test(arg)) {
      options.push(arg);
      if (takesValue.has(arg) && i + 1 < argv.length) options.push(argv[++i]!);
    } else text.push(arg);
  }
  return [...options, '--', ...text];
}

function noFile(e: NodeJS.ErrnoException): string {
  if (e.code === 'ENOENT') return '';
  throw e;
}

/** The model client takes the key and address, not where the key came from. */
function withoutSource(access: ModelAccess): Omit<ModelAccess, 'keySource'> {
  const { keySource: _source, ...rest } = access;
  return rest;
}
