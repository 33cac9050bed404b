/**
 * What a failure means for a person, in one table: every code a run (or a message that could not start
 * one) can end with, as a sentence that says what happened and what to do about it. The page shows this
 * instead of the raw code (`no_api_key`, `llm_failed`…); the code stays a stable value for programs.
 * Pure TypeScript, no Node built-ins: the renderer bundles it, and the CLI may print the same words.
 *
 * `text` is the sentence; `detail` is the daemon's own message when it adds something the sentence does
 * not say (the file and line of a config error, the server's answer). Backticks mark commands and
 * names, for a face that shows them as code.
 */

export interface ErrorContext {
  /** The base URL the model calls go to (config `base_url`); null or absent: Anthropic's API. */
  baseUrl?: string | null;
}

export interface ExplainedError {
  text: string;
  detail?: string;
}

type Explainer = (message: string, ctx: ErrorContext) => ExplainedError;

const where = (ctx: ErrorContext): string =>
  ctx.baseUrl
    ? `the model server at ${ctx.baseUrl}`
    : "Anthropic's API (or the server ANTHROPIC_BASE_URL names where Rein runs)";

/** The message as detail, unless the sentence already says all of it. */
const withDetail = (text: string, message: string): ExplainedError =>
  message.trim() && message.trim() !== text ? { text, detail: message.trim() } : { text };

/** llm_failed: what failed, read from the client's message (its HTTP status, the retry reason), and where. */
function modelFailure(message: string, ctx: ErrorContext): ExplainedError {
  const m = message;
  const status = /\bHTTP (\d{3})\b/.exec(m)?.[1];
  const at = where(ctx);
  if (status === '401' || /authentication_error|invalid x-api-key|invalid api key/i.test(m)) {
    return withDetail(
      `The API key was refused by ${at}: check the key in Settings (or ANTHROPIC_API_KEY, or \`rein auth set-key\`).`,
      m,
    );
  }
  if (status === '403' || /permission_error/i.test(m)) {
    return withDetail(
      `${capitalise(at)} refused the request (HTTP 403): this key may not use that model or feature. Check the key and the model in Settings.`,
      m,
    );
  }
  if (status === '404' || /not_found_error/i.test(m)) {
    return withDetail(
      `${capitalise(at)} does not know that model or address (HTTP 404): check the model name and the base URL in Settings.`,
      m,
    );
  }
  if (status === '429' || /rate limited|rate_limit/i.test(m)) {
    return withDetail(`Rate limited by ${at}: too many requests for now. Wait a minute and send the message again.`, m);
  }
  if (status === '529' || /overloaded/i.test(m)) {
    return withDetail(`${capitalise(at)} is overloaded right now. Wait a little and send the message again.`, m);
  }
  if (status === '400' || /invalid_request_error/i.test(m)) {
    return withDetail(
      `${capitalise(at)} refused the request as invalid (HTTP 400): often a model name it does not offer, or a conversation too long for it.`,
      m,
    );
  }
  if (
    /connection error|ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNRESET|EHOSTUNREACH|ENETUNREACH|stream interrupted|fetch failed/i.test(
      m,
    )
  ) {
    return withDetail(
      `Could not reach ${at}: is it running, and is the address right? Check the base URL in Settings, then send again.`,
      m,
    );
  }
  if (status !== undefined && status.startsWith('5')) {
    return withDetail(
      `${capitalise(at)} had an error of its own (HTTP ${status}). Send the message again in a moment.`,
      m,
    );
  }
  if (/cut off at \d+ tokens/i.test(m))
    return withDetail("The model's answer was cut off at its token limit. Ask for a shorter answer, or in parts.", m);
  return withDetail(`The call to ${at} failed.`, m);
}

const capitalise = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/** Every code a run can end with, and those a message can be refused with before it starts. */
const EXPLAIN: Record<string, Explainer> = {
  no_api_key: (m) => {
    const text =
      'No API key: add one in Settings (or set ANTHROPIC_API_KEY / run `rein auth set-key`), or point the base URL at a local Anthropic-compatible server.';
    // The stored key exists but could not be read: that part of the daemon's message matters.
    const problem = /The stored key could not be read: (.*)$/.exec(m)?.[1];
    return problem ? { text, detail: `The stored key could not be read: ${problem}` } : { text };
  },
  config_invalid: (m) =>
    withDetail(
      "Rein's configuration does not load, so nothing runs until it is fixed. Fix the file, line and field named below and send again: the file is read again by itself.",
      m,
    ),
  config_io: (m) =>
    withDetail('A configuration file could not be read (its permissions, or the disk). Nothing ran.', m),
  llm_failed: modelFailure,
  llm_cancelled: () => ({ text: 'Stopped: the model call was cancelled.' }),
  max_iterations: (m) =>
    withDetail(
      'Stopped: the run reached its limit of model turns (`max_iterations`). Send "continue" to go on, or raise `max_iterations` in the agent\'s config.',
      m,
    ),
  budget: (m) =>
    withDetail(
      "Stopped: the run reached its spending cap (`budget.max_usd_per_run`). Raise the cap in the agent's config to let it go further.",
      m,
    ),
  session_save_failed: (m) =>
    withDetail(
      'The conversation could not be saved (a full disk, or a folder Rein may not write). The answer is shown, but it is not kept.',
      m,
    ),
  disk_full: (m) =>
    withDetail(
      'The disk is full, so Rein could not write the file named below (the conversation stops there). Free some space and send again; nothing saved before was changed.',
      m,
    ),
  io_error: (m) =>
    withDetail(
      'Rein could not write the file named below (the disk failed or is read-only). Nothing saved before was changed.',
      m,
    ),
  session_not_found: (m) =>
    withDetail('That conversation is not there any more (deleted or moved). Start a new chat.', m),
  session_corrupt: (m) =>
    withDetail(
      "That conversation's file is damaged, so it cannot be continued. Start a new chat; the file is left as it is.",
      m,
    ),
  session_busy: (m) =>
    withDetail(
      'Another Rein process is writing this conversation (a `rein run --session` in a terminal, or the app or daemon) and did not finish within the wait. Send again when it is done; nothing was lost.',
      m,
    ),
  agent_not_found: (m) =>
    withDetail('That agent does not exist (any more). Pick another agent, or create it in Agents.', m),
  unknown_command: (m) => withDetail('There is no such command for this agent. Type / to see the commands it has.', m),
  shutting_down: () => ({ text: 'Rein is shutting down: send the message again once it is back.' }),
  unavailable: (m) => withDetail('Rein could not do that right now.', m),
  invalid_request: (m) => withDetail('Rein refused the message as it was sent.', m),
  invalid_input: (m) => withDetail('Rein refused the input.', m),
  tool_failed: (m) => withDetail('A tool failed in a way the run could not recover from.', m),
  internal: (m) => withDetail("Something went wrong inside Rein. The daemon's output (or the app's log) has more.", m),
  not_running: () => ({ text: 'Nothing is running on this conversation.' }),
  not_found: (m) => withDetail('Rein has nothing by that name (any more).', m),
  usage: (m) => withDetail('Rein refused the request as it was written.', m),
  agent_exists: (m) => withDetail('An agent by that name exists already: pick another name.', m),
  agent_write_failed: (m) =>
    withDetail("The agent's files could not be written (permissions, or a full disk). Nothing was changed.", m),
  approval_not_found: () => ({
    text: 'That question is not waiting any more: its run ended, or someone else answered it.',
  }),
  approval_already_decided: () => ({
    text: 'That question was already answered (in another window, or by a timeout).',
  }),
  api_key_not_stored: (m) =>
    withDetail(
      'The key was not stored here: the daemon keeps no keys sent to it. Set ANTHROPIC_API_KEY where it starts, or run `rein auth set-key` on its machine.',
      m,
    ),
  settings_write_failed: (m) =>
    withDetail('The settings could not be saved (permissions, or a full disk). Nothing was changed.', m),
  change_not_found: () => ({ text: 'That change is not waiting any more (answered, expired, or Rein restarted).' }),
  offline: (m) => withDetail('Rein is not reachable: is `rein daemon` (or the desktop app) still running?', m),
  unauthorized: () => ({
    text: "The daemon refused this page's token: open the address `rein daemon` printed again (it carries the token).",
  }),
  confirmation_required: (m) => withDetail('This change raises permissions, so a person must confirm it.', m),
  confirmation_pending: (m) => withDetail('This change raises permissions: it waits for a person to confirm it.', m),
};

/** The sentence for an error code and its message; an unknown code still gets words, never the code alone. */
export function explainError(code: string, message: string, ctx: ErrorContext = {}): ExplainedError {
  const explain = Object.hasOwn(EXPLAIN, code) ? EXPLAIN[code] : undefined;
  if (explain) return explain(message, ctx);
  return message.trim() ? { text: message.trim() } : { text: 'Something went wrong, and Rein did not say what.' };
}

/** The codes the table has words for (tests pin that every code a run ends with is among them). */
export const EXPLAINED_CODES: readonly string[] = Object.keys(EXPLAIN);
