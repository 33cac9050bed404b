/**
 * A Stop hook may keep the model working ("you forgot the tests") by blocking the end of a turn. Left
 * unchecked, a hook that always blocks would keep a run alive forever, so a block is honoured at most
 * once per turn (a turn = one user message and the model's work answering it) and a few times per run
 * (the lifetime of the gate: one conversation in the terminal, one run of the daemon).
 */
export interface StopHookLimits {
  perTurn: number;
  perRun: number;
}

export const DEFAULT_STOP_HOOK_LIMITS: StopHookLimits = { perTurn: 1, perRun: 3 };

export class StopHookGate {
  private turnBlocks = 0;
  private runBlocks = 0;

  constructor(private readonly limits: StopHookLimits = DEFAULT_STOP_HOOK_LIMITS) {}

  /** Call when a new user message starts a turn. */
  beginTurn(): void {
    this.turnBlocks = 0;
  }

  /** Whether a Stop hook's block may be honoured now; when it may, the block is counted. */
  allowBlock(): boolean {
    if (this.turnBlocks >= this.limits.perTurn || this.runBlocks >= this.limits.perRun) return false;
    this.turnBlocks++;
    this.runBlocks++;
    return true;
  }

  get blocksThisRun(): number {
    return this.runBlocks;
  }
}
