/**
 * The simplest policy: read-only calls run, everything else asks (or runs, with `yes`). Used until a
 * runtime is given the full permission engine.
 */
import type { PermissionDecision, PermissionPolicy } from './types.js';

export function basicPolicy(opts: { yes?: boolean } = {}): PermissionPolicy {
  return {
    check({ tool, input }): PermissionDecision {
      if (tool.isReadOnly(input)) {
        return {
          decision: 'allow',
          layer: 'read_only',
          reason: `${tool.name} only reads`,
          risk: 'low',
          riskExplanation: 'reads without changing anything',
        };
      }
      const destructive = tool.isDestructive(input);
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
