/**
 * The terminal face of the approval broker: a y/s/a/n question on the controlling terminal. Without a
 * terminal nobody can answer, so the request is denied at once. A request with a form (an MCP server
 * asking for input) is asked field by field: Enter takes the default, a required field without one is
 * asked again, and declining at the first question sends nothing.
 */
import { createInterface, type Interface } from 'node:readline/promises';
import type { Readable, Writable } from 'node:stream';
import { formFields, parseFieldInput, type FormField, type FormValues } from '../core/api/approvalForm.js';
import type { ApprovalAnswer, ApprovalFace, ApprovalRequest } from '../core/permissions/types.js';

export function ttyFace(io: { input: Readable & { isTTY?: boolean }; output: Writable & { isTTY?: boolean } }): ApprovalFace {
  return {
    name: 'terminal',
    async ask(req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
      if (!io.input.isTTY) return { decision: 'deny', by: 'no-terminal' };
      const rl = createInterface({ input: io.input, output: io.output, terminal: true });
      try {
        if (req.form) return await askForm(rl, io.output, req, signal);
        io.output.write(
          `\n[approval] ${req.tool}: ${req.summary}\n  why asked: ${req.reason} (${req.layer})\n  risk: ${req.risk} — ${req.risk_explanation}\n`,
        );
        for (;;) {
          const answer = (await rl.question('  Allow? [y]es once / [s]ession (this conversation) / [a]lways / [N]o: ', { signal })).trim().toLowerCase();
          if (answer === 'y' || answer === 'yes') return { decision: 'allow', by: 'terminal' };
          if (answer === 's' || answer === 'session') return { decision: 'allow_session', by: 'terminal' };
          if (answer === 'a' || answer === 'always') return { decision: 'always_allow', by: 'terminal' };
          if (answer === '' || answer === 'n' || answer === 'no') return { decision: 'deny', by: 'terminal' };
          io.output.write('  Please answer y, s, a or n.\n');
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
  if (f.format) facts.push(f.format);
  if (f.kind === 'choices') facts.push('comma-separated');
  if (f.default !== undefined) facts.push(`Enter for ${Array.isArray(f.default) ? f.default.join(', ') : String(f.default)}`);
  else if (!f.required) facts.push('Enter to leave out');
  return `  ${f.label}${f.required ? ' *' : ''}${facts.length > 0 ? ` (${facts.join('; ')})` : ''}: `;
}

async function askForm(rl: Interface, out: Writable, req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
  const form = req.form!;
  const fields = formFields(form.schema);
  out.write(`\n[input requested] ${req.summary}\n  ${form.message.replace(/\n/g, '\n  ')}\n  ${req.risk_explanation}\n`);
  for (;;) {
    const a = (await rl.question('  Fill it in? [y]es / [N]o (decline): ', { signal })).trim().toLowerCase();
    if (a === '' || a === 'n' || a === 'no') return { decision: 'deny', by: 'terminal' };
    if (a === 'y' || a === 'yes') break;
    out.write('  Please answer y or n.\n');
  }
  const values: FormValues = {};
  for (const f of fields) {
    if (f.description) out.write(`  ${f.description}\n`);
    if (f.choices && f.choices.length > 0) out.write(f.choices.map((c, i) => `    ${i + 1}. ${c.label}${c.label !== c.value ? ` (${c.value})` : ''}`).join('\n') + '\n');
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
      out.write(`  ${parsed.error}\n`);
    }
  }
  return { decision: 'allow', by: 'terminal', values };
}
