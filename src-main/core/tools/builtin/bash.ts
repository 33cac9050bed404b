/** `bash`: run a shell command in the run's working folder. */
import { callSummaryOf } from '../../api/toolSummary.js';
import { existsSync } from 'node:fs';
import { z } from 'zod';
import { childEnvironment } from '../../process/childEnv.js';
import { errorResult, okResult, type Tool } from '../tool.js';
import { isConcurrencySafeCommand, isDestructiveCommand, isReadOnlyCommand } from './support/commandSafety.js';
import { findOnPath } from './support/executables.js';
import { runShell } from './support/shellRun.js';
import { groupDigits } from '../../util/groupDigits.js';
import { BASH_TRAITS } from './builtinTraits.js';

export const BASH_DEFAULT_TIMEOUT_S = 120;
export const BASH_MAX_TIMEOUT_S = 600;
export const BASH_OUTPUT_LIMIT = 30_000;

const input = z.strictObject({
  command: z.string().min(1).describe('The shell command to run (bash -c). Runs in the working folder.'),
  timeout: z
    .number()
    .positive()
    .optional()
    .describe(`Seconds before the command is killed (default ${BASH_DEFAULT_TIMEOUT_S}, max ${BASH_MAX_TIMEOUT_S}).`),
});
export type BashInput = z.infer<typeof input>;

let cachedShell: string | undefined;
/** bash where there is one; POSIX sh otherwise (minimal containers). */
function shellPath(): string {
  cachedShell ??= findOnPath('bash') ?? (existsSync('/bin/bash') ? '/bin/bash' : (findOnPath('sh') ?? '/bin/sh'));
  return cachedShell;
}

export const bashTool: Tool<BashInput> = {
  name: 'bash',
  traits: BASH_TRAITS,
  source: 'local',
  description: [
    'Run a shell command with bash -c in the working folder and return its combined stdout and stderr.',
    `Output over ${groupDigits(BASH_OUTPUT_LIMIT)} characters keeps its start and end with the middle cut.`,
    `The command is killed with everything it started after \`timeout\` seconds (default ${BASH_DEFAULT_TIMEOUT_S}, max ${BASH_MAX_TIMEOUT_S}).`,
    'A non-zero exit status is reported as an error together with the output.',
    'There is no terminal: do not start interactive programs (editors, pagers, prompts); pass flags such as --yes or --no-pager instead.',
    'Prefer file_read, file_edit, glob and grep over cat, sed, find and grep in the shell.',
  ].join(' '),
  input,
  // 30,000 chars of capped output plus the status line must not be spilled to a file again.
  resultBudget: BASH_OUTPUT_LIMIT + 1_000,
  isReadOnly: (i, ctx) => isReadOnlyCommand(i.command, ctx),
  isConcurrencySafe: (i, ctx) => isConcurrencySafeCommand(i.command, ctx),
  isDestructive: (i, ctx) => isDestructiveCommand(i.command, ctx),
  summarize: (i) => callSummaryOf('bash', i),

  async call(i, ctx, signal) {
    if (signal.aborted) return errorResult('transient', 'the command was cancelled before it started');
    if (!existsSync(ctx.cwd)) return errorResult('validation', `the working folder ${ctx.cwd} does not exist`);
    const notes: string[] = [];
    let timeoutS = i.timeout ?? BASH_DEFAULT_TIMEOUT_S;
    if (timeoutS > BASH_MAX_TIMEOUT_S) {
      notes.push(`(timeout ${timeoutS} s is above the ${BASH_MAX_TIMEOUT_S} s maximum; used ${BASH_MAX_TIMEOUT_S} s)`);
      timeoutS = BASH_MAX_TIMEOUT_S;
    }
    const run = await runShell({
      shell: shellPath(),
      command: i.command,
      cwd: ctx.cwd,
      // Rein's environment without its credentials and secret-looking names, plus tools.env_passthrough.
      env: childEnvironment(process.env, { passthrough: ctx.envPassthrough ?? [] }),
      timeoutMs: Math.round(timeoutS * 1000),
      signal,
      outputLimit: BASH_OUTPUT_LIMIT,
    });
    if (run.kind === 'spawn_failed') return errorResult('transient', `could not start the shell: ${run.error.message}`);

    const body = run.output.length > 0 ? run.output : '(no output)';
    const withNotes = (head: string) => [...notes, head, body].filter(Boolean).join('\n');
    switch (run.kind) {
      case 'timed_out':
        return errorResult(
          'transient',
          withNotes(`command timed out after ${timeoutS} s and was killed; output so far:`),
        );
      case 'cancelled':
        return errorResult('transient', withNotes('command was cancelled and killed; output so far:'));
      case 'exited':
        if (run.exitCode === 0) return okResult(notes.length ? withNotes('') : body);
        if (run.exitSignal)
          return errorResult('business', withNotes(`command was terminated by ${run.exitSignal}; output:`));
        return errorResult('business', withNotes(`command failed with exit status ${run.exitCode}; output:`));
    }
  },
};
