/**
 * The terminal face of the approval broker: a y/s/a/n question on the controlling terminal. Without a
 * terminal nobody can answer, so the request is denied at once. A request with a form (an MCP server
 * asking for input) is asked field by field: Enter takes the default, a required field without one is
 * asked again, and declining at the first question sends nothing.
 *
 * Everything shown comes from the call, the policy or an MCP server, so it goes through visibleText
 * first: an ESC, a CR or a bidi override in a command must be seen, never obeyed by the terminal.
 */
import { createInterface, type Interface } from 'node:readline/promises';
import type { Readable, Writable } from 'node:stream';
import { formFields, parseFieldInput, type FormField, type FormValues } from '../core/api/approvalForm.js';
import { visibleText } from '../core/api/visibleText.js';
import type { ApprovalAnswer, ApprovalFace, ApprovalRequest } from '../core/permissions/types.js';

/** One line of text for the terminal. */
const v = (s: string | number | boolean): string => visibleText(String(s));
/** Text of several lines, each after the first indented by `indent`. */
const lines = (s: string, indent: string): string =>
  visibleText(s, { keepNewlines: true }).replace(/\n/g, `\n${indent}`);

export function ttyFace(io: {
  input: Readable & { isTTY?: boolean };
  output: Writable & { isTTY?: boolean };
}): ApprovalFace {
  return {
    name: 'terminal',
    async ask(req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
      if (!io.input.isTTY) return { decision: 'deny', by: 'no-terminal' };
      const rl = createInterface({ input: io.input, output: io.output, terminal: true });
      try {
        if (req.form) return await askForm(rl, io.output, req, signal);
        io.output.write(
          `\n[approval] ${v(req.tool)}: ${lines(req.summary, '    ')}\n  why asked: ${v(req.reason)} (${v(req.layer)})\n  risk: ${v(req.risk)} — ${v(req.risk_explanation)}\n`,
        );
        // What a wider answer covers is the engine's word (permissions/grants.ts); none: only this call.
        const wider = req.grant !== null;
        if (req.grant) io.output.write(`  [s]ession and [a]lways cover: ${v(req.grant.covers)}\n`);
        else if (req.grant === null)
          io.output.write('  only this call can be allowed: it changes a place that decides what later runs may do\n');
        for (;;) {
          const prompt = wider
            ? '  Allow? [y]es once / [s]ession (this conversation) / [a]lways / [N]o: '
            : '  Allow? [y]es / [N]o: ';
          const answer = (await rl.question(prompt, { signal })).trim().toLowerCase();
          if (answer === 'y' || answer === 'yes') return { decision: 'allow', by: 'terminal' };
          if (wider && (answer === 's' || answer === 'session')) return { decision: 'allow_session', by: 'terminal' };
          if (wider && (answer === 'a' || answer === 'always')) return { decision: 'always_allow', by: 'terminal' };
          if (answer === '' || answer === 'n' || answer === 'no') return { decision: 'deny', by: 'terminal' };
          io.output.write(wider ? '  Please answer y, s, a or n.\n' : '  Please answer y or n.\n');
        }
      } catch {
        return { decision: 'deny', by: 'terminal' };
      } finally {
        rl.close();
      }
    },
  };
}

/** One line describing a field for its prompt: label, kind, choices, default. */
function fieldPrompt(f: FormField): string {
  const facts: string[] = [];
  if (f.kind === 'boolean') facts.push('y/n');
  if (f.kind === 'number' || f.kind === 'integer') facts.push(f.kind === 'integer' ? 'whole number' : 'number');
  if (f.minimum !== undefined || f.maximum !== undefined) facts.push(`${f.minimum ?? '…'}–${f.maximum ?? '…'}`);
  if (f.format) facts.push(v(f.format));
  if (f.kind === 'choices') facts.push('comma-separated');
  if (f.default !== undefined)
    facts.push(`Enter for ${v(Array.isArray(f.default) ? f.default.join(', ') : String(f.default))}`);
  else if (!f.required) facts.push('Enter to leave out');
  return `  ${v(f.label)}${f.required ? ' *' : ''}${facts.length > 0 ? ` (${facts.join('; ')})` : ''}: `;
}

async function askForm(
  rl: Interface,
  out: Writable,
  req: ApprovalRequest,
  signal: AbortSignal,
): Promise<ApprovalAnswer> {
  const form = req.form!;
  const fields = formFields(form.schema);
  out.write(`\n[input requested] ${v(req.summary)}\n  ${lines(form.message, '  ')}\n  ${v(req.risk_explanation)}\n`);
  for (;;) {
    const a = (await rl.question('  Fill it in? [y]es / [N]o (decline): ', { signal })).trim().toLowerCase();
    if (a === '' || a === 'n' || a === 'no') return { decision: 'deny', by: 'terminal' };
    if (a === 'y' || a === 'yes') break;
    out.write('  Please answer y or n.\n');
  }
  const values: FormValues = {};
  for (const f of fields) {
    if (f.description) out.write(`  ${lines(f.description, '  ')}\n`);
    if (f.choices && f.choices.length > 0)
      out.write(
        f.choices
          .map((c, i) => `    ${i + 1}. ${v(c.label)}${c.label !== c.value ? ` (${v(c.value)})` : ''}`)
          .join('\n') + '\n',
      );
    for (;;) {
      const text = await rl.question(fieldPrompt(f), { signal });
      if (text.trim() === '') {
        if (f.default !== undefined) values[f.name] = f.default;
        else if (f.required) {
          out.write('  This one is required.\n');
          continue;
        }
        break;
      }
      const parsed = parseFieldInput(f, text);
      if (parsed.ok) {
        values[f.name] = parsed.value;
        break;
      }
      out.write(`  ${v(parsed.error)}\n`);
    }
  }
  return { decision: 'allow', by: 'terminal', values };
}
