/**
 * The simplest policy: read-only calls run, everything else asks (or runs, with `yes`). Used until a
 * runtime is given the full permission engine.
 *
 * `classifyCommand` is what the bash tool's hints read (commandRules.ts, commandClassifier). Without it a
 * command line is unclassified — not read-only and destructive — so every bash call asks (or, with `yes`,
 * runs as high risk); it is never allowed as read-only by default.
 */
import type { CommandClassifier } from '../tools/tool.js';
import type { PermissionDecision, PermissionPolicy } from './types.js';

export function basicPolicy(opts: { yes?: boolean; classifyCommand?: CommandClassifier } = {}): PermissionPolicy {
  return {
    check({ tool, input, cwd }): PermissionDecision {
      const hints = { cwd, classifyCommand: opts.classifyCommand };
      if (tool.isReadOnly(input, hints)) {
        return {
          decision: 'allow',
          layer: 'read_only',
          reason: `${tool.name} only reads`,
          risk: 'low',
          riskExplanation: 'reads without changing anything',
        };
      }
      const destructive = tool.isDestructive(input, hints);
      const risk = destructive ? 'high' : 'medium';
      const riskExplanation = destructive ? 'may delete or overwrite data' : 'changes files or runs a command';
      if (opts.yes)
        return { decision: 'allow', layer: 'flag', reason: 'approved in advance with --yes', risk, riskExplanation };
      return {
        decision: 'ask',
        layer: 'tool',
        reason: `${tool.name} changes something on this computer`,
        risk,
        riskExplanation,
      };
    },
  };
}
