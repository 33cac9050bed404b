/**
 * The terminal face of the approval broker: a y/n/a question on the controlling terminal. Without a
 * terminal nobody can answer, so the request is denied at once.
 */
import { createInterface } from 'node:readline/promises';
import type { Readable, Writable } from 'node:stream';
import type { ApprovalAnswer, ApprovalFace, ApprovalRequest } from '../core/permissions/types.js';

export function ttyFace(io: { input: Readable & { isTTY?: boolean }; output: Writable & { isTTY?: boolean } }): ApprovalFace {
  return {
    name: 'terminal',
    async ask(req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
      if (!io.input.isTTY) return { decision: 'deny', by: 'no-terminal' };
      const rl = createInterface({ input: io.input, output: io.output, terminal: true });
      try {
        io.output.write(
          `\n[approval] ${req.tool}: ${req.summary}\n  why asked: ${req.reason} (${req.layer})\n  risk: ${req.risk} — ${req.risk_explanation}\n`,
        );
        for (;;) {
          const answer = (await rl.question('  Allow? [y]es once / [a]lways / [N]o: ', { signal })).trim().toLowerCase();
          if (answer === 'y' || answer === 'yes') return { decision: 'allow', by: 'terminal' };
          if (answer === 'a' || answer === 'always') return { decision: 'always_allow', by: 'terminal' };
          if (answer === '' || answer === 'n' || answer === 'no') return { decision: 'deny', by: 'terminal' };
          io.output.write('  Please answer y, a or n.\n');
        }
      } catch {
        return { decision: 'deny', by: 'terminal' };
      } finally {
        rl.close();
      }
    },
  };
}
