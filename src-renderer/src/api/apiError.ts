/**
 * Every failure the page gets from Rein, whichever client it came through: a message for people, a
 * stable code for the code (`invalid_request`, `agent_not_found`, `approval_already_decided`,
 * `offline`, `unauthorized`, `unsupported`…), the HTTP status when there was one, and the offending
 * field when the server named it.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    message: string,
    readonly code: string,
    readonly status?: number,
    readonly field?: string,
    /** `confirmation_pending`: the change that waits for a person, and the command that confirms it in a shell. */
    readonly pending?: { change_id: string; accept_command?: string },
  ) {
    super(message);
  }
}

export function toApiError(e: unknown): ApiError {
  if (e instanceof ApiError) return e;
  if (e instanceof Error) return new ApiError(e.message, 'internal');
  return new ApiError(String(e), 'internal');
}

export const errorText = (e: unknown): string => toApiError(e).message;

/** True when the server does not offer the operation at all (an older daemon, or the browser for a desktop-only call). */
export const isUnsupported = (e: unknown): boolean => {
  const err = toApiError(e);
  return err.code === 'unsupported' || err.code === 'not_found' || err.status === 404 || err.status === 405;
};

const PATH_TAIL = String.raw`(?:\.[A-Za-z_$][\w$-]*|\[[^\]]*\])*`;

/**
 * The field problems in an error message, keyed by field path below `prefix`. Servers join problems as
 * `config.max_iterations: Too big…; config.tools.allowed[0]: not a tool name…` (often behind a prefix
 * such as `body.` or `rein:saveAgent: `); this finds each `<prefix><path>: ` and takes the text up to
 * the next one. With prefix `config`, the key of `config.tools.allowed[0]` is `tools.allowed[0]` and
 * a problem with the whole config has the key ``.
 */
export function fieldProblems(message: string, prefix: string): Record<string, string> {
  const escaped = prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const re = new RegExp(String.raw`(?:^|[\s;:])(?:body\.)?${escaped}(${PATH_TAIL}): `, 'g');
  const hits: { key: string; start: number; textStart: number }[] = [];
  for (let m = re.exec(message); m; m = re.exec(message)) {
    const key = m[1]!.replace(/^\./, '');
    hits.push({ key, start: m.index, textStart: m.index + m[0].length });
  }
  const out: Record<string, string> = {};
  hits.forEach((h, i) => {
    const end = i + 1 < hits.length ? hits[i + 1]!.start : message.length;
    const text = message.slice(h.textStart, end).replace(/[;\s]+$/, '');
    out[h.key] = out[h.key] ? `${out[h.key]}; ${text}` : text;
  });
  return out;
}
