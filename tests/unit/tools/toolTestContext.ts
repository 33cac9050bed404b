/**
 * A real ToolContext over temp folders, and a way to call a tool the way the harness does (schema first).
 * Like the runtime's (runtime/loopParts.ts), the context carries the permission engine's command classifier
 * (the bash tool's hints), here for a temp home folder.
 */
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commandClassifier } from '../../../src-main/core/permissions/commandRules.js';
import type { Tool, ToolContext, ToolResult } from '../../../src-main/core/tools/tool.js';
import { SessionReadTracker } from '../../../src-main/core/tools/readTracker.js';

export interface TempToolContext {
  ctx: ToolContext;
  /** The run's working folder (symlink-free, so paths in results compare exactly). */
  dir: string;
  tracker: SessionReadTracker;
  cleanup(): Promise<void>;
}

export async function makeToolContext(overrides: Partial<ToolContext> = {}): Promise<TempToolContext> {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'rein-tools-')));
  const dir = join(root, 'work');
  await mkdir(dir);
  await mkdir(join(root, 'home'));
  await mkdir(join(root, 'user'));
  const tracker = new SessionReadTracker();
  const ctx: ToolContext = {
    cwd: dir,
    sessionId: 'test-session',
    sessionDir: join(root, 'session'),
    reinHome: join(root, 'home'),
    agent: 'default',
    readTracker: tracker,
    egress: async () => ({ allowed: true }),
    classifyCommand: commandClassifier(join(root, 'user')),
    ...overrides,
  };
  return { ctx, dir, tracker, cleanup: () => rm(root, { recursive: true, force: true }) };
}

/** Parses the raw input with the tool's strict schema (as the harness would) and calls it. */
export async function callTool<I>(
  tool: Tool<I>,
  raw: unknown,
  ctx: ToolContext,
  signal: AbortSignal = new AbortController().signal,
): Promise<ToolResult> {
  const input = tool.input.parse(raw);
  return tool.call(input, ctx, signal);
}

/** True while the process exists and is not a zombie (zombies linger where PID 1 does not reap). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  if (process.platform === 'linux') {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
    } catch {
      return false;
    }
  }
  return true;
}
