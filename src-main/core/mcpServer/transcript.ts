/**
 * A session as the Markdown document `rein mcp serve` hands out for `rein://sessions/<id>`: what a
 * person reading it back in Claude Desktop wants — who said what, which tools ran on what, and the
 * start of their output — and nothing Rein put into the conversation for the model.
 *
 * Left out, as the search index leaves them out (search/extract.ts `withoutReinText`): the per-turn
 * `<context>` block and its `<memory>` copy, SessionStart hooks' `<hook-context>`, Rein's own injected
 * nudges (a person's mid-run follow-up is kept), thinking and redacted thinking, and image bytes.
 * Tool output is cut to its start, and the whole text goes through the audit log's secret masking
 * (audit/maskSecrets.ts), so a key a command printed is not handed on.
 */
import type { ContentBlockParam } from '@anthropic-ai/sdk/resources/messages';
import { maskSecrets } from '../audit/maskSecrets.js';
import { INBOX_PREFIX, toolCallLine, withoutReinText } from '../search/extract.js';
import type { SessionFile, SessionMessage } from '../sessions/types.js';

/** Each tool's output is shown up to this many characters. */
export const TRANSCRIPT_TOOL_OUTPUT_CHARS = 2_000;
/** A transcript longer than this is cut (a very long session is still readable from its start). */
export const TRANSCRIPT_MAX_CHARS = 1_000_000;
/** A tool call line is cut here (a `file_write` body is not a line). */
const TOOL_CALL_CHARS = 300;

export function renderTranscript(session: SessionFile): string {
  const out: string[] = [
    `# ${oneLine(session.title) || 'Untitled session'}`,
    '',
    `- Session: \`${session.id}\` (agent \`${session.agent}\`, started from ${session.source}${session.channel ? ` · ${oneLine(session.channel)}` : ''})`,
    `- Started ${session.created_at}, last activity ${session.updated_at}`,
    `- Working folder: \`${oneLine(session.cwd)}\``,
    `- Messages: ${session.messages.length}`,
  ];
  session.messages.forEach((message, i) => {
    const meta = session.message_meta[i];
    const section =
      message.role === 'user'
        ? userSection(message, meta?.injected === true)
        : meta?.injected === true
          ? []
          : assistantSection(message);
    if (section.length === 0) return;
    const label = message.role === 'user' ? 'User' : 'Assistant';
    out.push('', `## ${label}${meta?.timestamp ? ` · ${meta.timestamp}` : ''}`, '', ...section);
  });
  let text = maskSecrets(out.join('\n')) + '\n';
  if (text.length > TRANSCRIPT_MAX_CHARS) {
    text = `${cut(text, TRANSCRIPT_MAX_CHARS)}\n\n… (the transcript is cut here: ${text.length - TRANSCRIPT_MAX_CHARS} more characters)\n`;
  }
  return text;
}

function blocksOf(message: SessionMessage): ContentBlockParam[] {
  return typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
}

function userSection(message: SessionMessage, injected: boolean): string[] {
  const parts: string[] = [];
  for (const block of blocksOf(message)) {
    if (block.type === 'text') {
      let text = withoutReinText(block.text).trim();
      if (!text) continue;
      if (text.startsWith(INBOX_PREFIX))
        text = `*(sent while the agent was working)* ${text.slice(INBOX_PREFIX.length).trim()}`;
      // Rein's own nudges are injected without the inbox prefix: not anybody's words.
      else if (injected) continue;
      parts.push(text);
    } else if (block.type === 'tool_result') {
      if (injected) continue;
      const output = toolResultText(block.content);
      const label = block.is_error === true ? 'Tool error' : 'Tool output';
      parts.push(
        `**${label}:**`,
        '',
        fence(
          output.length > TRANSCRIPT_TOOL_OUTPUT_CHARS
            ? `${cut(output, TRANSCRIPT_TOOL_OUTPUT_CHARS)}\n… (${output.length - TRANSCRIPT_TOOL_OUTPUT_CHARS} more characters)`
            : output || '(no output)',
        ),
      );
    } else if (block.type === 'image') {
      if (!injected) parts.push('*(image)*');
    } else if (block.type === 'document') {
      if (!injected) parts.push('*(document)*');
    }
  }
  return joinParts(parts);
}

function assistantSection(message: SessionMessage): string[] {
  const parts: string[] = [];
  for (const block of blocksOf(message)) {
    if (block.type === 'text') {
      const text = block.text.trim();
      if (text) parts.push(text);
    } else if (block.type === 'tool_use' || block.type === 'server_tool_use') {
      parts.push(
        `**Tool call:** \`${oneLine(cut(toolCallLine(block.name, block.input), TOOL_CALL_CHARS)).replaceAll('`', "'")}\``,
      );
    }
    // thinking, redacted_thinking, and server tool results are the model's working, not the conversation.
  }
  return joinParts(parts);
}

function joinParts(parts: string[]): string[] {
  const lines: string[] = [];
  for (const p of parts) {
    if (lines.length > 0) lines.push('');
    lines.push(p);
  }
  return lines;
}

function toolResultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .flatMap((b: unknown) => {
      const block = b as { type?: unknown; text?: unknown };
      if (block.type === 'text' && typeof block.text === 'string') return [block.text];
      if (block.type === 'image') return ['(image)'];
      return [];
    })
    .join('\n');
}

/** A fenced block that the text inside cannot close early (a fence longer than any run of backticks in it). */
function fence(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const f = '`'.repeat(longest + 1);
  return `${f}text\n${text}\n${f}`;
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/** Cuts at a code point boundary. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return text.slice(0, end);
}
