// Shared helpers for the permission tests: a real engine, real tools where they exist, stand-ins where not.
import { z } from 'zod';
import type { PermissionMode } from '../../../src-main/core/config/schema.js';
import { createPermissionEngine, type EngineOptions } from '../../../src-main/core/permissions/engine.js';
import type { PermissionDecision } from '../../../src-main/core/permissions/types.js';
import { bashTool } from '../../../src-main/core/tools/builtin/bash.js';
import type { Tool } from '../../../src-main/core/tools/tool.js';

export const HOME = '/Users/tester';
export const CWD = '/Users/tester/project';

/** A tool double with the given name and read-only answer (the real ones are written elsewhere). */
export function fakeTool(
  name: string,
  opts: { readOnly?: boolean | ((i: unknown) => boolean); gui?: boolean; destructive?: boolean } = {},
): Tool {
  const ro = opts.readOnly ?? false;
  return {
    name,
    description: `${name} double`,
    source: 'local',
    input: z.unknown(),
    isReadOnly: (i: unknown) => (typeof ro === 'function' ? ro(i) : ro),
    isDestructive: () => opts.destructive ?? false,
    ...(opts.gui !== undefined ? { traits: { drivesGui: opts.gui } } : {}),
    call: async () => ({ ok: true, content: '' }),
  };
}

export interface Ask {
  tool?: Tool;
  input: unknown;
  mode?: PermissionMode;
  source?: string;
  cwd?: string;
}

export function engineFor(opts: Partial<EngineOptions> = {}) {
  const engine = createPermissionEngine({ permissions: {}, home: HOME, ...opts });
  return async (a: Ask): Promise<PermissionDecision> =>
    engine.check({
      tool: a.tool ?? bashTool,
      input: a.input,
      cwd: a.cwd ?? CWD,
      mode: a.mode ?? 'default',
      source: a.source ?? 'cli',
      origin: ['schedule', 'heartbeat', 'watcher'].includes(a.source ?? 'cli') ? 'unattended' : 'attended',
      agent: 'default',
    });
}

/** Decision for one bash line with the given engine options. */
export async function bash(
  command: string,
  opts: Partial<EngineOptions> = {},
  mode: PermissionMode = 'default',
  cwd = CWD,
) {
  return engineFor(opts)({ input: { command }, mode, cwd });
}
