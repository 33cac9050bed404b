/**
 * Sampling: an MCP server asking Rein's model for a completion while one of its tools runs
 * (`sampling/createMessage`). As with elicitation, the connection does not know which run made the
 * call, so each call carries the run's Sampler (a ToolContext session slot the runtime seeds): it asks
 * the person first, then runs one model turn without tools. A request that arrives while no call of
 * this server runs, or while calls of more than one run do, is refused; so is anything but text.
 */
import { slotKey } from '../tools/sessionSlots.js';

/** The most tokens a server's request may ask for (a larger one is lowered to this). */
export const MAX_SAMPLING_TOKENS = 4_096;
/** The most sampling requests one run answers (all servers together). */
export const MAX_SAMPLING_PER_RUN = 10;
/** The most characters of conversation a server may send in one request. */
export const MAX_SAMPLING_CHARS = 100_000;

export interface SamplingRequest {
  /** The configured server's name. */
  server: string;
  /** The registry name of the tool whose call is running. */
  tool: string;
  /** The call's input, as the model sent it. */
  input: unknown;
  messages: { role: 'user' | 'assistant'; text: string }[];
  systemPrompt?: string;
  /** Already at most MAX_SAMPLING_TOKENS. */
  maxTokens: number;
  temperature?: number;
  stopSequences?: string[];
  /** The server rates speed or cost above intelligence: the small model answers. */
  preferSmall: boolean;
}

export interface SamplingAnswer {
  text: string;
  model: string;
  stopReason: 'endTurn' | 'maxTokens' | 'stopSequence';
}

/** Answers a server's request, or throws SamplingRefused with the reason the server is told. */
export type Sampler = (request: SamplingRequest, signal: AbortSignal) => Promise<SamplingAnswer>;

export class SamplingRefused extends Error {
  override readonly name = 'SamplingRefused';
}

/** Where a run keeps its Sampler (ToolContext session slots). */
export const SAMPLING_SLOT = slotKey<Sampler>('mcp_sampling');

export const refuseAll: Sampler = async () => {
  throw new SamplingRefused('this run cannot use its model for an MCP server (nobody could be asked)');
};

interface WireParams {
  messages: { role: 'user' | 'assistant'; content: unknown }[];
  systemPrompt?: string;
  maxTokens: number;
  temperature?: number;
  stopSequences?: string[];
  modelPreferences?: { costPriority?: number; speedPriority?: number; intelligencePriority?: number };
}

/** The server's request in Rein's terms, or why it cannot be answered. */
export function samplingRequest(
  server: string,
  call: { tool: string; input: unknown },
  p: WireParams,
): SamplingRequest | { error: string } {
  const messages: SamplingRequest['messages'] = [];
  let chars = p.systemPrompt?.length ?? 0;
  for (const m of p.messages) {
    const blocks = Array.isArray(m.content) ? m.content : [m.content];
    const texts: string[] = [];
    for (const b of blocks as { type?: unknown; text?: unknown }[]) {
      if (b?.type !== 'text' || typeof b.text !== 'string')
        return { error: `Rein answers sampling requests with text only (got ${String(b?.type)})` };
      texts.push(b.text);
    }
    const text = texts.join('\n');
    chars += text.length;
    messages.push({ role: m.role, text });
  }
  if (messages.length === 0 || messages[messages.length - 1]!.role !== 'user')
    return { error: 'a sampling request must end with a user message' };
  if (chars > MAX_SAMPLING_CHARS)
    return { error: `the request is ${chars} characters; Rein takes at most ${MAX_SAMPLING_CHARS}` };
  const prefs = p.modelPreferences ?? {};
  const intelligence = prefs.intelligencePriority ?? 0.5;
  return {
    server,
    tool: call.tool,
    input: call.input,
    messages,
    ...(p.systemPrompt ? { systemPrompt: p.systemPrompt } : {}),
    maxTokens: Math.max(1, Math.min(Math.floor(p.maxTokens), MAX_SAMPLING_TOKENS)),
    ...(p.temperature !== undefined ? { temperature: p.temperature } : {}),
    ...(p.stopSequences?.length ? { stopSequences: p.stopSequences } : {}),
    preferSmall: Math.max(prefs.costPriority ?? 0, prefs.speedPriority ?? 0) > intelligence,
  };
}
