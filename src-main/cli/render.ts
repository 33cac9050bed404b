/**
 * How `rein run` shows a run: the answer streams on stdout, tool activity and notices go to stderr
 * (so `rein run … > answer.txt` captures just the answer), or, with --json, one event per line.
 * The stderr lines carry text from tool calls (a command, its output): it goes through visibleText, so
 * an ESC or CR in a command cannot rewrite what the terminal shows. The answer on stdout stays exact.
 */
import type { Writable } from 'node:stream';
import type { ReinEvent } from '../core/api/events.js';
import { visibleText } from '../core/api/visibleText.js';

export interface Renderer {
  event(ev: ReinEvent): void;
}

export function jsonRenderer(out: Writable): Renderer {
  return { event: (ev) => out.write(`${JSON.stringify(ev)}\n`) };
}

export function textRenderer(out: Writable & { isTTY?: boolean }, err: Writable & { isTTY?: boolean }): Renderer {
  let atLineStart = true;
  // What cloud_delegate's gateway reported it cost: part of the run's cost, named in the footer.
  let cloudUsd = 0;
  const color = Boolean(err.isTTY) && !process.env.NO_COLOR;
  const dim = (s: string) => (color ? `\x1b[2m${s}\x1b[0m` : s);
  const red = (s: string) => (color ? `\x1b[31m${s}\x1b[0m` : s);
  const line = (s: string) => {
    if (!atLineStart && out === err) out.write('\n');
    err.write(`${s}\n`);
  };
  const v = (s: string) => visibleText(s);
  const endText = () => {
    if (!atLineStart) {
      out.write('\n');
      atLineStart = true;
    }
  };
  return {
    event(ev) {
      switch (ev.type) {
        case 'text_delta':
          if (ev.text) {
            out.write(ev.text);
            atLineStart = ev.text.endsWith('\n');
          }
          break;
        case 'tool_call_start':
          endText();
          line(dim(`▸ ${v(ev.tool)} ${v(ev.summary)}`));
          break;
        case 'tool_progress':
          cloudUsd += cloudCostOf(ev.data);
          endText();
          line(dim(`  … ${v(ev.tool)}: ${v(firstLine(ev.message))}`));
          break;
        case 'tool_call_end':
          line(
            ev.ok
              ? dim(
                  `  ✓ ${v(ev.tool)} (${(ev.duration_ms / 1000).toFixed(1)} s)${ev.saved_to ? ` — full result in ${v(ev.saved_to)}` : ''}`,
                )
              : red(`  ✗ ${v(ev.tool)}: ${v(firstLine(ev.preview))}`),
          );
          break;
        case 'tool_call_denied':
          // The person who just said no at this terminal knows; a refusal nobody was asked about is shown.
          if (ev.by !== 'terminal') {
            endText();
            line(red(`✗ ${v(ev.tool)} denied (${v(ev.layer)}): ${v(firstLine(ev.reason))}`));
          }
          break;
        case 'approval_response':
          if (ev.by !== 'terminal') line(dim(`  approval: ${ev.decision} (${v(ev.by)})`));
          break;
        case 'retry':
          // A retry can come mid-sentence: break the line only when both streams share one terminal,
          // so a piped answer stays exactly the model's text.
          if (out.isTTY && err.isTTY) endText();
          line(
            dim(
              `… ${ev.reason}; retrying (attempt ${ev.attempt}/${ev.max_attempts}) in ${(ev.delay_ms / 1000).toFixed(1)} s`,
            ),
          );
          break;
        case 'injected':
          line(dim(`… ${ev.texts.length} new message(s) handed to the agent`));
          break;
        case 'loop_nudge':
          line(dim(`… ${ev.detector}: ${ev.action === 'force_stop' ? 'stopping the loop' : 'nudging the model'}`));
          break;
        case 'notice':
          line(
            ev.level === 'warning'
              ? red(`warning: ${visibleText(ev.message, { keepNewlines: true })}`)
              : dim(visibleText(ev.message, { keepNewlines: true })),
          );
          break;
        case 'error':
          endText();
          line(red(`rein: ${ev.message}`));
          break;
        case 'session_end':
          endText();
          if (ev.stop_reason === 'cancelled') line(dim('(cancelled)'));
          line(
            dim(
              `session ${ev.session_id} · ${ev.usage.requests} request(s) · $${ev.usage.cost_usd.toFixed(4)}${cloudUsd > 0 ? ` (cloud $${cloudUsd.toFixed(4)})` : ''}`,
            ),
          );
          break;
        default:
          break;
      }
    },
  };
}

/** The cost in a cloud_delegate `usage` progress report (docs/cloud.md, Progress); 0 for any other report. */
function cloudCostOf(data: unknown): number {
  if (!data || typeof data !== 'object') return 0;
  const d = data as { source?: unknown; kind?: unknown; usage?: { cost_usd?: unknown } };
  const cost = d.source === 'cloud' && d.kind === 'usage' ? d.usage?.cost_usd : undefined;
  return typeof cost === 'number' && Number.isFinite(cost) && cost > 0 ? cost : 0;
}

function firstLine(s: string): string {
  const l = s.split('\n')[0] ?? '';
  return l.length > 200 ? `${l.slice(0, 199)}…` : l;
}
