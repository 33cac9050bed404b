// The settings view edits the person's config.yaml: comments and layout survive, removed keys take
// their comments along to a neighbour instead of deleting them, a no-op leaves the bytes alone, and the
// result is checked with the loader's own rules, naming the settings field when it is wrong.
import { describe, expect, it } from 'vitest';
import { edited } from '../../../src-main/core/service/globalConfigEdit.js';
import { HttpError, toHttpError } from '../../../src-main/core/daemon/httpError.js';

const FILE = '/home/me/.rein/config.yaml';

/** The refusal as the daemon answers it (the service throws ReinErrors; HTTP maps their codes to statuses). */
function refusal(fn: () => unknown): HttpError {
  try {
    fn();
  } catch (e) {
    return toHttpError(e);
  }
  throw new Error('expected a refusal');
}

describe('editing the global config.yaml for the settings view', () => {
  it('changes values in place, keeping comments, order and other keys', () => {
    const text = '# mine\nmodel: a # main one\nmax_iterations: 9\npermissions:\n  # careful\n  mode: default\n';
    expect(edited(FILE, text, { model: 'b', permission_mode: 'plan' })).toBe(
      '# mine\nmodel: b # main one\nmax_iterations: 9\npermissions:\n  # careful\n  mode: plan\n',
    );
  });

  it('adds keys to an empty or comment-only file, and under an existing mapping', () => {
    expect(edited(FILE, '', { small_model: 's' })).toBe('small_model: s\n');
    expect(edited(FILE, '# only words\n', { model: 'm' })).toBe('# only words\n\nmodel: m\n');
    expect(edited(FILE, 'permissions:\n  allowed_commands: [ls]\n', { permission_mode: 'acceptEdits' })).toBe(
      'permissions:\n  allowed_commands: [ ls ]\n  mode: acceptEdits\n',
    );
  });

  it('removes base_url with its comments moved, not lost, and never writes `null` or `{}`', () => {
    expect(edited(FILE, '# keep\nbase_url: http://x.example/ # why\nmodel: a\n', { base_url: null })).toBe(
      '# keep\n# why\nmodel: a\n',
    );
    expect(edited(FILE, 'model: a\n# tail\nbase_url: http://x.example/\n', { base_url: null })).toBe(
      'model: a\n# tail\n',
    );
    expect(edited(FILE, '# keep\nbase_url: http://x.example/\n', { base_url: null })).toBe('# keep\n');
    expect(edited(FILE, 'base_url: http://x.example/\n', { base_url: null })).toBe('');
  });

  it('leaves the text exactly as it was when nothing changes', () => {
    const text = 'model:   a   # odd spacing\n';
    expect(edited(FILE, text, { model: 'a', base_url: null })).toBe(text);
    expect(edited(FILE, '', { base_url: null })).toBe('');
  });

  it('refuses a value the loader would refuse, naming the settings field', () => {
    const e = refusal(() => edited(FILE, '', { permission_mode: 'yolo' as never }));
    expect(e.status).toBe(400);
    expect(e.field).toBe('permission_mode');
    expect(refusal(() => edited(FILE, '', { model: '' })).field).toBe('model');
  });

  it('refuses to touch a file that is already broken, listing its problems', () => {
    for (const text of ['model: [oops\n', '- a list\n', 'model: a\nbogus: 1\n']) {
      const e = refusal(() => edited(FILE, text, { model: 'b' }));
      expect(e.status, text).toBe(409);
      expect(e.code).toBe('config_invalid');
      expect(e.message).toContain(FILE);
    }
  });
});
