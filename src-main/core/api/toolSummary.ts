/**
 * The one line a tool call is shown as (`$ touch approved.txt`, `read notes.md`), made from the tool's
 * name and its input alone, so every face says the same thing: the live chat gets it in
 * `tool_call_start.summary` (core/tools/tool.ts's summarizeCall), and the page makes it itself for a call
 * it reads back from a saved session, where only the Messages API's `tool_use` block is left.
 *
 * The built-in tools and the GUI tools take their `summarize` from this table, so the two can never
 * drift. A tool whose line needs more than its input (an MCP tool names its server, cloud_delegate its
 * gateway) keeps its own; a saved call of such a tool shows its input as JSON, as a live call of a tool
 * without `summarize` does. Pure TypeScript + zod: the page bundles it.
 */
import { z } from 'zod';

/** Characters of a summary line in tool cards and the audit log; a longer one ends with `…`. */
export const SUMMARY_CHARS = 200;

/** `raw` cut to `max` characters, the last one an ellipsis when anything was cut. */
export function summaryLine(raw: string, max = SUMMARY_CHARS): string {
  return raw.length > max ? `${raw.slice(0, max - 1)}…` : raw;
}

/** Lines file_read reads when the call gives no limit (its input schema's default). */
export const FILE_READ_DEFAULT_LIMIT = 2_000;

interface SummaryRule<S extends z.ZodType> {
  /** What the line needs of the input; a saved call whose input does not have it is shown as JSON. */
  readonly input: S;
  readonly line: (input: z.infer<S>) => string;
}
const rule = <S extends z.ZodType>(input: S, line: (input: z.infer<S>) => string): SummaryRule<S> => ({ input, line });

const str = z.string();
const opt = str.optional();
const utf8 = new TextEncoder();

/** Each tool's line, by the name the model calls it. */
export const CALL_SUMMARIES = {
  bash: rule(z.looseObject({ command: str }), (i) => `$ ${i.command.replace(/\s*\n\s*/g, ' ⏎ ')}`),
  directory_list: rule(z.looseObject({ path: opt }), (i) => `list ${i.path ?? '.'}`),
  file_edit: rule(
    z.looseObject({ path: str, replace_all: z.boolean().optional() }),
    (i) => `edit ${i.path}${i.replace_all ? ' (all occurrences)' : ''}`,
  ),
  file_read: rule(z.looseObject({ path: str, offset: z.number().optional(), limit: z.number().optional() }), (i) =>
    i.offset !== undefined || i.limit !== undefined
      ? `read ${i.path} (lines ${(i.offset ?? 0) + 1}–${(i.offset ?? 0) + (i.limit ?? FILE_READ_DEFAULT_LIMIT)})`
      : `read ${i.path}`,
  ),
  file_write: rule(
    z.looseObject({ path: str, content: str }),
    (i) => `write ${i.path} (${utf8.encode(i.content).length} bytes)`,
  ),
  glob: rule(z.looseObject({ pattern: str, path: opt }), (i) => `glob ${i.pattern}${i.path ? ` in ${i.path}` : ''}`),
  grep: rule(
    z.looseObject({ pattern: str, path: opt, glob: opt }),
    (i) => `grep ${JSON.stringify(i.pattern)}${i.path ? ` in ${i.path}` : ''}${i.glob ? ` (${i.glob})` : ''}`,
  ),
  http: rule(z.looseObject({ url: str, method: opt }), (i) => `${i.method ?? 'GET'} ${i.url}`),
  memory_append: rule(
    z.looseObject({ content: str }),
    (i) => `memory_append: ${i.content.trim().split('\n')[0] ?? ''}`,
  ),
  schedule_create: rule(
    z.looseObject({ cron: str, prompt: str, agent: opt, catch_up: opt }),
    (i) => `${i.cron} → ${i.agent ?? 'default'}${i.catch_up ? ` (catch up: ${i.catch_up})` : ''}: ${i.prompt}`,
  ),
  schedule_update: rule(z.looseObject({ id: str }), (i) => `${i.id}: ${JSON.stringify({ ...i, id: undefined })}`),
  session_search: rule(
    z.looseObject({ query: str, source: opt }),
    (i) => `session_search ${JSON.stringify(i.query)}${i.source ? ` (source ${i.source})` : ''}`,
  ),
  system_info: rule(z.unknown(), () => 'system info'),
  think: rule(z.looseObject({ thought: str }), (i) => `think: ${i.thought.replace(/\s+/g, ' ')}`),
  tool_search: rule(z.looseObject({ query: str }), (i) => `tool search: ${i.query}`),
  use_skill: rule(z.looseObject({ skill_name: str }), (i) => `use skill ${i.skill_name}`),
  // The GUI tools (core/ax/guiTools.ts).
  accessibility: rule(
    z.looseObject({
      action: str,
      ref: opt,
      app: opt,
      value: z.unknown().optional(),
      text: z.unknown().optional(),
      keys: opt,
    }),
    (i) =>
      [
        i.action,
        i.ref,
        i.app && `app ${i.app}`,
        i.value !== undefined && `value ${JSON.stringify(i.value)}`,
        i.text !== undefined && `text ${JSON.stringify(i.text)}`,
        i.keys,
      ]
        .filter(Boolean)
        .join(' '),
  ),
  wait_for: rule(
    z.looseObject({ condition: str, ref: opt, role: opt, name: opt, value: z.unknown().optional() }),
    (i) =>
      [i.condition, i.ref, i.role, i.name && JSON.stringify(i.name), i.value !== undefined && JSON.stringify(i.value)]
        .filter(Boolean)
        .join(' '),
  ),
  screenshot: rule(z.looseObject({ app: opt }), (i) => (i.app ? `window of ${i.app}` : 'whole screen')),
  computer: rule(
    z.looseObject({ action: str, coordinate: z.array(z.number()).optional(), text: z.unknown().optional() }),
    (i) =>
      [i.action, i.coordinate && `at ${i.coordinate.join(',')}`, i.text !== undefined && JSON.stringify(i.text)]
        .filter(Boolean)
        .join(' '),
  ),
  applescript: rule(z.looseObject({ script: str }), (i) => i.script),
} as const satisfies Record<string, SummaryRule<z.ZodType>>;

export type SummarizedTool = keyof typeof CALL_SUMMARIES;

/** The whole line of a call of one of the tools above (uncut: approvals show all of it). */
export function callSummaryOf<T extends SummarizedTool>(
  tool: T,
  input: z.infer<(typeof CALL_SUMMARIES)[T]['input']>,
): string {
  return (CALL_SUMMARIES[tool].line as (i: unknown) => string)(input);
}

/**
 * The card line of a call read back from a saved session (`tool_use` block: name and input): the
 * tool's own line when the table knows the tool and the input has what the line needs, else the input as
 * JSON, the line a live call of a tool without `summarize` gets.
 */
export function savedCallSummary(tool: string, input: unknown, max = SUMMARY_CHARS): string {
  const known = Object.hasOwn(CALL_SUMMARIES, tool) ? CALL_SUMMARIES[tool as SummarizedTool] : undefined;
  if (known) {
    // The check only says the line can be made; the line reads the input as saved (its keys in their order).
    if (known.input.safeParse(input).success) return summaryLine((known.line as (i: unknown) => string)(input), max);
  }
  return summaryLine(JSON.stringify(input) ?? '', max);
}
