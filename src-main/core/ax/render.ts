/**
 * Text for the model and for people: a snapshot as an indented outline with refs, find results, and one
 * line saying what an action acted on. The model's snapshot is at most 8,000 characters; a longer one is
 * cut at a line with a note that suggests `filter: interactive`.
 */
import type { ActedOn, Effect } from './protocol.js';
import type { RefElement, SnapshotView } from './refs.js';
import { groupDigits } from '../util/groupDigits.js';

export const SNAPSHOT_MAX_CHARS = 8_000;

const quote = (s: string, max = 80): string => JSON.stringify(s.length > max ? `${s.slice(0, max - 1)}…` : s);

export function elementLine(el: RefElement): string {
  const parts = [el.name ? `${el.role} ${quote(el.name)}` : el.role, `[${el.ref}]`];
  if (el.secure) parts.push('= (secure, not shown)');
  else if (el.value !== undefined && el.value !== el.name) parts.push(`= ${quote(el.value)}`);
  if (el.states?.length) parts.push(`(${el.states.join(', ')})`);
  if (el.description) parts.push(`— ${quote(el.description, 60)}`);
  return parts.join(' ');
}

export function renderSnapshot(view: SnapshotView, maxChars = SNAPSHOT_MAX_CHARS): string {
  const head = `App: ${view.app.name} (pid ${view.app.pid}) · snapshot ${view.id} · ${view.elements.length} element${view.elements.length === 1 ? '' : 's'}${view.truncated ? ' (node budget reached)' : ''}`;
  const lines = view.elements.map((el) => `${'  '.repeat(Math.min(el.depth ?? 0, 30))}${elementLine(el)}`);
  const full = [head, ...lines].join('\n');
  if (full.length <= maxChars) return full;
  const note = (shown: number) =>
    `… cut: ${shown} of ${view.elements.length} elements shown (a snapshot is at most ${groupDigits(maxChars)} characters). ` +
    'Call snapshot again with filter: "interactive" to list only the controls, or name a window (window: "…").';
  const budget = maxChars - note(view.elements.length).length - 1;
  const kept: string[] = [head];
  let size = head.length;
  for (const line of lines) {
    if (size + 1 + line.length > budget) break;
    kept.push(line);
    size += 1 + line.length;
  }
  kept.push(note(kept.length - 1));
  return kept.join('\n');
}

export function renderFound(
  app: { name: string; pid: number },
  found: readonly RefElement[],
  truncated: boolean,
): string {
  if (found.length === 0) return `No element matched in ${app.name} (pid ${app.pid}).`;
  const lines = found.map((el) => {
    const where = el.ancestry
      .filter((a) => a.name)
      .map((a) => a.name)
      .join(' › ');
    return `${elementLine(el)}${where ? ` in ${quote(where, 100)}` : ''}`;
  });
  return [
    `${found.length} match${found.length === 1 ? '' : 'es'} in ${app.name} (pid ${app.pid})${truncated ? ' (more exist; narrow the query)' : ''}:`,
    ...lines,
  ].join('\n');
}

export function describeActedOn(acted: ActedOn | undefined, ref?: string): string {
  if (!acted) return '';
  const b = acted.bounds ? ` at (${acted.bounds[0]}, ${acted.bounds[1]}, ${acted.bounds[2]}×${acted.bounds[3]})` : '';
  const how =
    acted.resolved_by === 'rematch' ? ' — it had been recreated, so it was re-matched by role, name and place' : '';
  return `${acted.role}${acted.name ? ` ${quote(acted.name)}` : ''}${ref ? ` [${ref}]` : ''}${b}${how}`;
}

export function describeEffect(effect: Effect | undefined): string {
  if (!effect) return '';
  if (!effect.observed)
    return `no reaction from the app within ${Math.round(effect.waited_ms)} ms (check with a snapshot if it mattered)`;
  return effect.events.length ? `the app reacted (${effect.events.slice(0, 4).join(', ')})` : 'done';
}
