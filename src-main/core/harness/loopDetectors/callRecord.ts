/**
 * The facts the detectors compare, taken once from a finished call: its identity and outcome, its
 * family (from the tool's traits), a web call's topic, whether a search found nothing, whether a shell
 * line sleeps (`command` trait), a thought (`thinksAloud` trait).
 */
import { createHash } from 'node:crypto';
import { shellCommandOf } from '../../tools/traits.js';
import { canonicalJson } from '../../util/canonicalJson.js';
import { comparedFamily, type CallRecord, type LoopCall } from './types.js';
import { resultUrls, webTopic } from './webTopic.js';

/** The identity of a call: tool plus canonical input. */
export const callKey = (tool: string, input: unknown): string => `${tool}\u0000${canonicalJson(input)}`;

export const hash = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 16);

const SLEEP_RE = /\bsleep\s+\d/;
const NOTHING_FOUND_RE =
  /^(?:\[[^\]]*\]\s*)?(?:no (?:matches|match|results|files|entries|paths)\b|0 (?:matches|results|files)\b|nothing found\b|found 0\b)/i;

function stringsIn(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) stringsIn(v, out);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) stringsIn(v, out);
  return out;
}

const normaliseThought = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[\p{P}\p{S}]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();

export function makeRecord(seq: number, call: LoopCall): CallRecord {
  const key = callKey(call.tool, call.input);
  const isValidation = !call.ok && (call.errorKind === 'validation' || call.content.startsWith('[validation error]'));
  const family = comparedFamily(call.traits);
  const record: CallRecord = {
    seq,
    tool: call.tool,
    family,
    repeatable: call.traits?.repeatable === true,
    looksAtScreen: call.traits?.looksAtScreen === true,
    reportsOwnSuccess: call.traits?.reportsOwnSuccess === true,
    key,
    input: call.input,
    ok: call.ok,
    outcomeKey: hash(`${key}\u0000${call.ok ? 'ok' : 'err'}\u0000${call.content}`),
    sleeps: false,
    foundNothing: false,
  };
  if (!call.ok) record.errorSig = [...call.content.trim()].slice(0, 100).join('');
  if (isValidation) record.validationSig = call.content.trim();
  if (family === 'web') record.topic = webTopic(call.input);
  if (family) {
    const sig = resultUrls(call.content);
    if (sig) record.resultSig = sig;
  }
  if (family === 'search') {
    const firstLine = call.content.trim().split('\n', 1)[0] ?? '';
    record.foundNothing = call.ok && (firstLine === '' || NOTHING_FOUND_RE.test(firstLine));
  }
  // A tool that runs shell lines (its `command` trait names the field): `sleep N` is polling.
  const command = shellCommandOf(call.traits, call.input);
  record.sleeps = command !== undefined && SLEEP_RE.test(command);
  if (call.traits?.thinksAloud === true) record.thought = normaliseThought(stringsIn(call.input).join(' '));
  return record;
}
