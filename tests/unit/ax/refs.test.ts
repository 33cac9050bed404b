// Refs: stable across snapshots for the same element, never reused, describing the element as last seen
// (role, name, named ancestors, app), rebound after a re-match, saved and restored.
import { describe, expect, it } from 'vitest';
import { ancestriesOf, RefTable } from '../../../src-main/core/ax/refs.js';
import type { SnapshotResult, WireElement } from '../../../src-main/core/ax/protocol.js';

const app = { name: 'Notes', pid: 42, bus: ':1.5' };
const el = (
  id: string,
  role: WireElement['role'],
  name: string,
  parent: number,
  depth: number,
  extra: Partial<WireElement> = {},
): WireElement => ({ id, role, name, parent, depth, bounds: [0, 0, 10, 10], ...extra });
const snap = (elements: WireElement[]): SnapshotResult => ({
  app,
  windows: [{ id: 'w', name: 'Notes' }],
  elements,
  truncated: false,
});

const tree = () =>
  snap([
    el('w', 'window', 'Notes', -1, 0),
    el('g', 'group', 'Actions', 0, 1),
    el('b1', 'button', 'Save', 1, 2),
    el('u', 'group', '', 0, 1),
    el('b2', 'button', '  Save\n  as ', 3, 2),
  ]);

describe('RefTable', () => {
  it('numbers elements in order and records their named ancestry (unnamed groups left out)', () => {
    const t = new RefTable();
    const v = t.ingestSnapshot(tree());
    expect(v.elements.map((e) => e.ref)).toEqual(['e1', 'e2', 'e3', 'e4', 'e5']);
    expect(t.target('e3')).toEqual({
      id: 'b1',
      role: 'button',
      name: 'Save',
      app: { pid: 42, name: 'Notes' },
      ancestry: [
        { role: 'window', name: 'Notes' },
        { role: 'group', name: 'Actions' },
      ],
    });
    expect(t.target('e5')).toMatchObject({ name: 'Save as', ancestry: [{ role: 'window', name: 'Notes' }] });
  });

  it('keeps an element’s ref across snapshots, updates what it describes, and never reuses a number', () => {
    const t = new RefTable();
    t.ingestSnapshot(tree());
    const next = snap([
      el('w', 'window', 'Notes', -1, 0),
      el('new', 'button', 'Print', 0, 1),
      el('b1', 'button', 'Save all', 0, 1),
    ]);
    const v = t.ingestSnapshot(next);
    expect(v.elements.map((e) => e.ref)).toEqual(['e1', 'e6', 'e3']);
    expect(t.get('e3')).toMatchObject({ name: 'Save all', ancestry: [{ role: 'window', name: 'Notes' }] });
    // Refs the new snapshot did not show still mean what they meant.
    expect(t.get('e5').name).toBe('Save as');
  });

  it('refuses unknown refs and things that are not refs, with a hint', () => {
    const t = new RefTable();
    expect(() => t.get('e9')).toThrow(
      expect.objectContaining({ code: 'NOT_FOUND', message: expect.stringContaining('unknown ref e9') }),
    );
    expect(() => t.get('Save')).toThrow(
      expect.objectContaining({ code: 'NOT_FOUND', message: expect.stringContaining('is not a ref') }),
    );
  });

  it('points a re-matched ref at the new identity, and survives a round trip through JSON', () => {
    const t = new RefTable();
    t.ingestSnapshot(tree());
    t.noteActedOn('e3', { id: 'b1-new', role: 'button', name: 'Save', bounds: [5, 5, 10, 10], resolved_by: 'rematch' });
    expect(t.target('e3').id).toBe('b1-new');
    const back = RefTable.fromJSON(JSON.parse(JSON.stringify(t.toJSON())));
    expect(back.target('e3')).toEqual(t.target('e3'));
    // The new identity keeps the ref in the next snapshot; numbering continues after the saved counter.
    const v = back.ingestSnapshot(snap([el('b1-new', 'button', 'Save', -1, 0), el('z', 'button', 'Zoom', -1, 0)]));
    expect(v.elements.map((e) => e.ref)).toEqual(['e3', 'e6']);
  });

  it('keys refs by app as well as id', () => {
    const t = new RefTable();
    t.ingestSnapshot(snap([el('x', 'button', 'A', -1, 0)]));
    const other = t.ingestSnapshot({ ...snap([el('x', 'button', 'A', -1, 0)]), app: { name: 'Other', pid: 43 } });
    expect(other.elements[0]!.ref).toBe('e2');
  });

  it('takes ancestry from find results as given', () => {
    const t = new RefTable();
    const [found] = t.ingestFound(app, [
      { id: 'q', role: 'link', name: 'Docs', ancestry: [{ role: 'window', name: 'Notes' }] },
    ]);
    expect(found!.ref).toBe('e1');
    expect(t.target('e1').ancestry).toEqual([{ role: 'window', name: 'Notes' }]);
  });
});

describe('ancestriesOf', () => {
  it('counts windows and dialogs even without a name', () => {
    const a = ancestriesOf([el('d', 'dialog', '', -1, 0), el('b', 'button', 'OK', 0, 1)]);
    expect(a[1]).toEqual([{ role: 'dialog', name: '' }]);
  });
});
