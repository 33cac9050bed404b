/**
 * Message text on screen. Everything is rendered as React text nodes, never as HTML, so nothing a
 * model (or a web page it read) writes can inject markup or script: `<img onerror=…>` shows up as the
 * characters it is.
 *
 * No Markdown library is installed yet (react-markdown is the intended one: it renders to React
 * elements and ignores raw HTML by default), so for now the text keeps its line breaks, blank lines
 * separate paragraphs, and ``` fences become code blocks, which is what agent answers lean on most.
 */
import { Fragment } from 'react';

export type TextBlock = { kind: 'paragraph'; text: string } | { kind: 'code'; lang: string; text: string };

/** Splits text into paragraphs and fenced code blocks; an unclosed fence (still streaming) runs to the end. */
export function splitBlocks(text: string): TextBlock[] {
  const blocks: TextBlock[] = [];
  const lines = text.split('\n');
  let para: string[] = [];
  const flush = () => {
    const t = para.join('\n').replace(/^\n+|\n+$/g, '');
    if (t.trim()) blocks.push({ kind: 'paragraph', text: t });
    para = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const fence = /^\s*(```|~~~)\s*([\w+.-]*)\s*$/.exec(lines[i]!);
    if (fence) {
      flush();
      const code: string[] = [];
      let j = i + 1;
      while (j < lines.length && !new RegExp(`^\\s*${fence[1]}\\s*$`).test(lines[j]!)) code.push(lines[j++]!);
      blocks.push({ kind: 'code', lang: fence[2] ?? '', text: code.join('\n') });
      i = j;
      continue;
    }
    if (lines[i]!.trim() === '') flush();
    else para.push(lines[i]!);
  }
  flush();
  return blocks;
}

export function MessageText({ text }: { text: string }) {
  return (
    <div className="message-text">
      {splitBlocks(text).map((b, i) =>
        b.kind === 'code' ? (
          <pre key={i} className="code-block" data-lang={b.lang || undefined}>
            <code>{b.text}</code>
          </pre>
        ) : (
          <p key={i}>
            {b.text.split('\n').map((line, j) => (
              <Fragment key={j}>
                {j > 0 && <br />}
                {line}
              </Fragment>
            ))}
          </p>
        ),
      )}
    </div>
  );
}
