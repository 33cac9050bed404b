// What the model reads: a snapshot outline of at most 8,000 characters (cut at a line, with a note that
// suggests filter: interactive), find results with where they are, and what an action acted on.
import { describe, expect, it } from 'vitest';
import { RefTable } from '../../../src-main/core/ax/refs.js';
import {
  describeActedOn,
  describeEffect,
  renderFound,
  renderSnapshot,
  SNAPSHOT_MAX_CHARS,
} from '../../../src-main/core/ax/render.js';
import type { WireElement } from '../../../src-main/core/ax/protocol.js';

const app = { name: 'Big', pid: 9 };
function view(n: number) {
  const elements: WireElement[] = [{ id: 'w', role: 'window', name: 'Big window', parent: -1, depth: 0 }];
  for (let i = 0; i < n; i++)
    elements.push({
      id: `b${i}`,
      role: 'button',
      name: `Button number ${i} with a longish label`,
      parent: 0,
      depth: 1,
      states: i % 7 === 0 ? ['disabled'] : [],
    });
  return new RefTable().ingestSnapshot({ app, windows: [], elements, truncated: false });
}

describe('renderSnapshot', () => {
  it('shows role, label, ref, value and states, indented by depth, and hides secure values', () => {
    const v = new RefTable().ingestSnapshot({
      app,
      windows: [],
      truncated: false,
      elements: [
        { id: 'w', role: 'window', name: 'W', parent: -1, depth: 0 },
        { id: 't', role: 'textfield', name: 'Email', value: 'a@b.c', parent: 0, depth: 1, states: ['focused'] },
        { id: 'p', role: 'textfield', name: 'Password', secure: true, parent: 0, depth: 1 },
      ],
    });
    expect(renderSnapshot(v)).toBe(
      [
        'App: Big (pid 9) · snapshot s1 · 3 elements',
        'window "W" [e1]',
        '  textfield "Email" [e2] = "a@b.c" (focused)',
        '  textfield "Password" [e3] = (secure, not shown)',
      ].join('\n'),
    );
  });

  it('keeps a big snapshot within 8,000 characters, cut at a line, with a note suggesting filter: interactive', () => {
    const text = renderSnapshot(view(400));
    expect(text.length).toBeLessThanOrEqual(SNAPSHOT_MAX_CHARS);
    const lines = text.split('\n');
    expect(lines.at(-1)).toMatch(/^… cut: \d+ of 401 elements shown .*filter: "interactive"/);
    for (const line of lines.slice(1, -1))
      expect(line).toMatch(/^ {0,2}(window|button) ".*" \[e\d+\]( \(disabled\))?$/);
    expect(renderSnapshot(view(10)).includes('cut:')).toBe(false);
  });
});

describe('renderFound and actions', () => {
  it('lists matches with the named ancestors they are in', () => {
    const t = new RefTable();
    const found = t.ingestFound(app, [
      {
        id: 'x',
        role: 'button',
        name: 'Save',
        ancestry: [
          { role: 'window', name: 'Big' },
          { role: 'group', name: 'Actions' },
        ],
      },
    ]);
    expect(renderFound(app, found, false)).toBe('1 match in Big (pid 9):\nbutton "Save" [e1] in "Big › Actions"');
    expect(renderFound(app, [], false)).toBe('No element matched in Big (pid 9).');
  });

  it('says what was acted on, how it was found and whether the app reacted', () => {
    expect(
      describeActedOn({ id: 'x', role: 'button', name: 'Save', bounds: [1, 2, 30, 40], resolved_by: 'rematch' }, 'e4'),
    ).toBe('button "Save" [e4] at (1, 2, 30×40) — it had been recreated, so it was re-matched by role, name and place');
    expect(describeEffect({ observed: true, events: ['object:state-changed:checked'], waited_ms: 3 })).toBe(
      'the app reacted (object:state-changed:checked)',
    );
    expect(describeEffect({ observed: false, events: [], waited_ms: 800 })).toMatch(
      /^no reaction from the app within 800 ms/,
    );
  });
});
