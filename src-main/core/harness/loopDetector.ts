/**
 * Notices when the model is going round in circles and tells it so. The loop records every finished
 * tool call, then asks for a verdict: `none`, `nudge` (send the message as a corrective user message and
 * carry on) or `force_stop` (make one last model call without tools, with the message).
 *
 * Every detector looks at the last LOOP_THRESHOLDS.window calls. A nudge about one subject (this call,
 * this tool, this topic) is not repeated within a window of calls — otherwise one lingering condition
 * would burn the whole nudge budget in three calls — but a stronger level of the same problem fires
 * anew. The third nudge of a run escalates to a force stop.
 *
 * Deliberate differences from the reference (shanclaw §2, with its successor's loosening):
 * - the windowed duplicate counts a call only when its result was also the same, so a test-fix loop
 *   that re-runs `npm test` and sees different output is progress, not a loop;
 * - search escalation counts only searches that came back empty (broadening a search that finds
 *   nothing), because a coding agent legitimately greps many times in a row;
 * - count-based checks skip a tool whose calls are mostly distinct (a batch of reads is not a loop).
 *
 * What kind of tool a call used comes from the tool's traits (family, repeatable, looks at the screen,
 * reports its own success), never from its name, so a GUI or MCP tool is judged by what it declares.
 * What a call's input says is read through traits too: a `command: shell` tool's line (`sleep N`), a
 * `thinksAloud` tool's thought. The detectors are one per file in loopDetectors/, composed by its index.
 */
import { makeRecord } from './loopDetectors/callRecord.js';
import { DETECTORS } from './loopDetectors/index.js';
import { NudgeCounter } from './loopDetectors/nudgeCounter.js';
import { LOOP_THRESHOLDS } from './loopDetectors/thresholds.js';
import type { CallRecord, Finding, LoopCall, LoopVerdict } from './loopDetectors/types.js';

export type { LoopCall, LoopVerdict } from './loopDetectors/types.js';
export { LOOP_THRESHOLDS } from './loopDetectors/thresholds.js';
export { NudgeCounter } from './loopDetectors/nudgeCounter.js';
export { callKey } from './loopDetectors/callRecord.js';
export { resultUrls, webTopic } from './loopDetectors/webTopic.js';
export { canonicalJson } from '../util/canonicalJson.js';

/** One per run. Not shared between runs: it holds the run's nudge count. */
export class LoopDetector {
  private readonly records: CallRecord[] = [];
  private seq = 0;
  /** Nudge fingerprint → seq of the call it fired at. */
  private readonly fired = new Map<string, number>();
  private readonly counter: NudgeCounter;
  private cached: { seq: number; verdict: LoopVerdict } | undefined;

  constructor(opts: { nudgesPerRun?: number } = {}) {
    this.counter = new NudgeCounter(opts.nudgesPerRun ?? LOOP_THRESHOLDS.nudgesPerRun);
  }

  record(call: LoopCall): void {
    this.records.push(makeRecord(++this.seq, call));
    if (this.records.length > LOOP_THRESHOLDS.window) this.records.shift();
  }

  /**
   * The verdict for the calls recorded so far. Asking twice without a new record returns the same
   * verdict and does not count the nudge twice.
   */
  check(): LoopVerdict {
    if (this.cached?.seq === this.seq) return this.cached.verdict;
    const verdict = this.records.length < 2 ? { action: 'none' as const } : this.evaluate();
    this.cached = { seq: this.seq, verdict };
    return verdict;
  }

  private evaluate(): LoopVerdict {
    const findings = DETECTORS.map((d) => d(this.records)).filter((f): f is Finding => f !== undefined);
    const stop = findings.find((f) => f.action === 'force_stop');
    if (stop) return { action: 'force_stop', detector: stop.detector, message: stop.message };
    const isFresh = (f: Finding) => {
      const at = this.fired.get(f.fingerprint);
      return at === undefined || this.seq - at >= LOOP_THRESHOLDS.window;
    };
    const fresh = findings.find(isFresh);
    if (!fresh) return { action: 'none' };
    // Problems noticed together are usually one behaviour: one message covers them all.
    for (const f of findings) if (isFresh(f)) this.fired.set(f.fingerprint, this.seq);
    return this.counter.observe({ action: 'nudge', detector: fresh.detector, message: fresh.message });
  }
}
