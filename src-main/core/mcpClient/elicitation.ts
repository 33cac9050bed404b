/**
 * Elicitation: an MCP server asking for input while one of its tools runs (`elicitation/create`, form
 * mode). The server's connection does not know which run made the call, so each call carries the
 * run's Elicitor, found in the tool context's session slot (the runtime seeds it: the run's approval
 * broker, whose faces show the form — see runtime.ts). A question that arrives while no call of this
 * server is running, or while calls of more than one run are (it cannot be told whose it is), is
 * declined.
 *
 * URL mode: the server asks the person to open a page (to connect an account, to pay…). The same
 * Elicitor is asked, with `url` set and no fields; accepting means the page was opened for the person.
 */
import { formFields, completeForm, type FormValues } from '../api/approvalForm.js';
import { slotKey } from '../tools/sessionSlots.js';

export interface ElicitationRequest {
  /** The configured server's name. */
  server: string;
  /** The registry name of the tool whose call is running (`mcp__everything__trigger-elicitation-request`). */
  tool: string;
  /** The call's input, as the model sent it. */
  input: unknown;
  message: string;
  /** The requested fields (a flat JSON Schema object); empty in URL mode. */
  schema: Record<string, unknown>;
  /** URL mode: the page the server wants the person to open (http or https; anything else is declined). */
  url?: string;
}

export type ElicitationAnswer =
  { action: 'accept'; content: FormValues } | { action: 'decline' } | { action: 'cancel' };

export type Elicitor = (request: ElicitationRequest, signal: AbortSignal) => Promise<ElicitationAnswer>;

/** Where a run keeps its Elicitor (ToolContext session slots). */
export const ELICITATION_SLOT = slotKey<Elicitor>('mcp_elicitation');

/** Declines everything: what a call gets when its run gave no Elicitor. */
export const declineAll: Elicitor = async () => ({ action: 'decline' });

/**
 * Accepts with the schema's defaults when they fill every required field (the CLI's `--yes`);
 * otherwise undefined, and the caller asks someone or declines.
 */
export function acceptDefaults(request: Pick<ElicitationRequest, 'schema' | 'url'>): ElicitationAnswer | undefined {
  // A page to open needs a person, whatever --yes says.
  if (request.url !== undefined) return undefined;
  const { values, problems } = completeForm(formFields(request.schema));
  return problems.length === 0 ? { action: 'accept', content: values } : undefined;
}

/** The values a person gave, completed with defaults and checked; a decline when they do not fit. */
export function acceptValues(
  request: Pick<ElicitationRequest, 'schema'>,
  given: FormValues | undefined,
): { answer: ElicitationAnswer; problems: string[] } {
  const { values, problems } = completeForm(formFields(request.schema), given ?? {});
  return problems.length === 0
    ? { answer: { action: 'accept', content: values }, problems }
    : { answer: { action: 'decline' }, problems };
}
