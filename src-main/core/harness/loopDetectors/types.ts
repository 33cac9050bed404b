/** What the loop detectors are given (a finished call), what they find, and what the run is told. */
import type { ToolFamily, ToolTraits } from '../../tools/traits.js';

export interface LoopCall {
  tool: string;
  /** What the tool declares about itself; an unknown tool has none. */
  traits?: ToolTraits;
  input: unknown;
  ok: boolean;
  content: string;
  errorKind?: string;
}

export interface LoopVerdict {
  action: 'none' | 'nudge' | 'force_stop';
  detector?: string;
  message?: string;
}

/** The families whose calls are compared with each other; reads are left to the generic checks. */
export type Family = Exclude<ToolFamily, 'read'>;
export const comparedFamily = (traits: ToolTraits | undefined): Family | undefined =>
  traits?.family === 'read' ? undefined : traits?.family;

export interface CallRecord {
  seq: number;
  tool: string;
  family: Family | undefined;
  /** Its result follows the world: repeating it is not overuse. */
  repeatable: boolean;
  looksAtScreen: boolean;
  reportsOwnSuccess: boolean;
  key: string;
  input: unknown;
  ok: boolean;
  /** Same call and same outcome. */
  outcomeKey: string;
  errorSig?: string;
  validationSig?: string;
  topic?: string;
  resultSig?: string;
  sleeps: boolean;
  foundNothing: boolean;
  /** For a tool that thinks aloud (think): the thought (all string values), normalised. */
  thought?: string;
}

export interface Finding {
  detector: string;
  action: 'nudge' | 'force_stop';
  /** Identity of the condition: a nudge fires only when its fingerprint was not active at the previous check. */
  fingerprint: string;
  message: string;
}

/** One detector: a finding for the window of recent calls (the latest last), or none. */
export type Detector = (w: readonly CallRecord[]) => Finding | undefined;
