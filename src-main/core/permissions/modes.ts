/**
 * Turns a layer verdict into the final decision for the run's mode, source and flags. Hard blocks and
 * denied_commands are final in every mode; plan mode refuses anything that is not read-only; unattended
 * runs never let a GUI tool through unless the config grants it; then "ask" is resolved by
 * always_allow_tools, acceptEdits, --yes/auto_approve, bypassPermissions or dontAsk, in that order.
 */
import type { PermissionMode, RunOrigin } from '../api/patterns.js';
import { originTraits } from './runPolicy.js';
import type { GrantEntry } from '../config/schema.js';
import type { Risk } from './risk.js';
import type { PermissionDecision, Verdict } from './types.js';

export { UNATTENDED_SOURCES } from '../api/patterns.js';

export interface LayerVerdict extends Risk {
  decision: Verdict;
  layer: string;
  reason: string;
  /** The call only reads (plan mode lets it through). */
  readOnly: boolean;
  /** Deny from a layer that nothing may override (hard block, denied_commands, invalid input). */
  final?: boolean;
  /** A file write inside the working folder or allowed_dirs, to a non-sensitive path (acceptEdits allows it). */
  editInWorkArea?: boolean;
  /** Writes a place that runs code later (shell startup files, launch agents, crontab): only bypassPermissions approves it. */
  persistence?: string;
  /**
   * Changes one of Rein's protected places (its own state, the code cache, launch agents: protectedPlaces.ts):
   * a person decides in every mode — bypassPermissions, acceptEdits, --yes, auto_approve and
   * always_allow_tools do not approve it; dontAsk and plan refuse it.
   */
  protected?: string;
  /** What a grant on this call would cover (grants.ts); null: nothing beyond the one call. */
  grant?: GrantEntry | null;
}

export interface ModeFacts {
  mode: PermissionMode;
  source: string;
  /** Who is behind the run; unattended runs never let a GUI tool through unless gui_unattended lists it. */
  origin: RunOrigin;
  tool: string;
  gui: boolean;
  alwaysAllowTools: readonly string[];
  guiUnattended: readonly string[];
  /** --yes or the agent's auto_approve: asks become allows (never past denies, never past plan mode). */
  autoApprove: boolean;
}

const decide = (v: LayerVerdict, decision: Verdict, layer: string, reason: string): PermissionDecision => ({
  decision,
  layer,
  reason,
  risk: v.risk,
  riskExplanation: v.riskExplanation,
});

export function applyMode(v: LayerVerdict, f: ModeFacts): PermissionDecision {
  if (v.decision === 'deny') return decide(v, 'deny', v.layer, v.reason);

  if (f.gui && originTraits(f.origin).nobodyWatching && !f.guiUnattended.includes(f.tool)) {
    return decide(
      v,
      'deny',
      'unattended_gui',
      `${f.tool} controls the screen and this ${f.source} run has nobody watching; list it in permissions.gui_unattended to allow it in unattended runs`,
    );
  }

  if (f.mode === 'plan' && !v.readOnly) {
    return decide(
      v,
      'deny',
      'mode',
      `plan mode: ${f.tool} would change something (${v.reason}). You are in plan mode — only read and plan; describe this step in your plan instead of doing it.`,
    );
  }

  if (v.decision === 'allow') return decide(v, 'allow', v.layer, v.reason);

  // From here on the layers asked.
  if (v.protected) {
    return f.mode === 'dontAsk'
      ? decide(v, 'deny', 'protected', `dontAsk mode denies what would need approval: ${v.reason}`)
      : decide(
          v,
          'ask',
          'protected',
          `${v.reason}. It changes what later runs may do, so a person decides in every mode`,
        );
  }
  if (v.persistence && f.mode !== 'bypassPermissions') {
    // Persistence needs a person in every mode but bypassPermissions: always_allow_tools, acceptEdits, --yes and auto_approve do not approve it.
    return f.mode === 'dontAsk'
      ? decide(v, 'deny', 'mode', `dontAsk mode denies what would need approval: ${v.reason}`)
      : decide(v, 'ask', v.layer, v.reason);
  }
  if (f.alwaysAllowTools.includes(f.tool)) {
    return decide(
      v,
      'allow',
      'always_allow_tools',
      `${f.tool} is in always_allow_tools (it would otherwise ask: ${v.reason})`,
    );
  }
  if (f.mode === 'acceptEdits' && v.editInWorkArea) {
    return decide(v, 'allow', 'mode', `acceptEdits mode allows edits inside the working folder (${v.reason})`);
  }
  if (f.mode === 'bypassPermissions') {
    return decide(
      v,
      'allow',
      'mode',
      `bypassPermissions mode allows everything but hard blocks (it would otherwise ask: ${v.reason})`,
    );
  }
  if (f.autoApprove) {
    return decide(v, 'allow', 'flag', `approved by --yes / auto_approve (it would otherwise ask: ${v.reason})`);
  }
  if (f.mode === 'dontAsk') {
    return decide(v, 'deny', 'mode', `dontAsk mode denies what would need approval: ${v.reason}`);
  }
  return decide(v, 'ask', v.layer, v.reason);
}
