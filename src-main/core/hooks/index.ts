export { matchesTool } from './matcher.js';
export {
  DEFAULT_HOOK_TIMEOUT_MS,
  IN_HOOK_ENV,
  runHooks,
  type HookEntry,
  type HookEvent,
  type HookLogEntry,
  type HookOutcome,
  type HookPayload,
  type HookRunReport,
  type RunHooksOptions,
} from './runHooks.js';
export { DEFAULT_STOP_HOOK_LIMITS, StopHookGate, type StopHookLimits } from './stopHookGate.js';
