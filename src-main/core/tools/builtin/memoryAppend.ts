/**
 * `memory_append`: the model's only way to change the agent's memory. It adds, never rewrites, and goes
 * through BoundedAppend so MEMORY.md stays small and concurrent runs of the same agent cannot clobber
 * each other. Built per agent (the memory folder is the agent's), so it is not in the shared built-in list.
 */
import { callSummaryOf } from '../../api/toolSummary.js';
import { z } from 'zod';
import { errorMessage, isReinError } from '../../errors.js';
import { boundedAppend, memoryFile } from '../../memory/index.js';
import { errorResult, okResult, type Tool } from '../tool.js';
import { MEMORY_APPEND_TRAITS } from './builtinTraits.js';

export const MEMORY_APPEND_TOOL = 'memory_append';

/**
 * Tools that change nothing the user has to review and so never ask for approval, in any mode.
 * memory_append only adds to the agent's own memory, which the user can read and edit at any time.
 * @deprecated The runtime reads the tool's `approval: 'never'` trait (builtinTraits.ts); this list stays for old callers.
 */
export const NO_APPROVAL_TOOLS: ReadonlySet<string> = new Set([MEMORY_APPEND_TOOL]);

const MAX_CONTENT_CHARS = 10_000;

const input = z.strictObject({
  content: z
    .string()
    .max(
      MAX_CONTENT_CHARS,
      `content is longer than ${MAX_CONTENT_CHARS} characters; save the durable facts, not the material`,
    )
    .refine((s) => s.trim() !== '', 'content is empty')
    .describe(
      'What to remember: one short Markdown bullet per fact ("- Prefers pnpm over npm"), several lines allowed.',
    ),
});
export type MemoryAppendInput = z.infer<typeof input>;

export function createMemoryAppendTool(dir: string): Tool<MemoryAppendInput> {
  return {
    name: MEMORY_APPEND_TOOL,
    traits: MEMORY_APPEND_TRAITS,
    source: 'local',
    description:
      "Save durable facts to your long-term memory (this agent's MEMORY.md), which is loaded into future sessions. " +
      "Use it for what will still matter later: decisions, the user's preferences and corrections, facts about their " +
      'projects, people and systems, gotchas, hard-won configuration, useful paths and contacts. Not for task progress, ' +
      'command output or anything temporary, and not for things already in memory. One short bullet per fact (about 100 ' +
      'characters). Memory can only be added to this way; file_write and file_edit cannot change MEMORY.md.',
    input,
    // It writes a file, but only adds to the agent's own memory: nothing to approve, nothing lost.
    isReadOnly: () => false,
    isDestructive: () => false,
    summarize: (i) => callSummaryOf('memory_append', i),
    async call(i) {
      try {
        const r = await boundedAppend(dir, i.content);
        if (!r.overflowed) return okResult(`appended to ${r.path}`);
        return okResult(`${memoryFile(dir)} is full, so this was saved to ${r.path} and linked from MEMORY.md`);
      } catch (e) {
        if (isReinError(e, 'invalid_input')) return errorResult('validation', e.message);
        // The lock was held too long by another process, or the disk refused: worth another try later.
        return errorResult('transient', `could not append to ${memoryFile(dir)}: ${errorMessage(e)}`);
      }
    },
  };
}
