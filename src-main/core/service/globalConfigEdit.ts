/**
 * The settings view's edits to the global `config.yaml`: model, small model, permission mode and base
 * URL. The file belongs to the person: it is edited as a YAML document so comments and layout survive,
 * the whole result is validated with the same rules the loader uses before anything is written, the
 * write is atomic, and the read-modify-write holds the same inter-process lock as "always allow" (which
 * edits this file too). A file that is already broken is refused and left exactly as it was.
 */
import { mkdir, readFile, realpath, rm } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { isMap, isScalar, parseDocument, type Document } from 'yaml';
import { parseLayer } from '../config/load.js';
import { paths } from '../config/paths.js';
import type { PermissionMode } from '../config/schema.js';
import { atomicWriteFile } from '../util/atomicWrite.js';
import { withFileLock } from '../util/fileLock.js';
import { ReinError, fieldError } from '../errors.js';

export interface GlobalSettingsPatch {
  model?: string;
  small_model?: string;
  permission_mode?: PermissionMode;
  /** null removes `base_url` (back to ANTHROPIC_BASE_URL or Anthropic's own). */
  base_url?: string | null;
}

/** Where each settings field lives in config.yaml, and back (to name the request field in errors). */
const LOCATION: Record<keyof GlobalSettingsPatch, string[]> = {
  model: ['model'],
  small_model: ['small_model'],
  permission_mode: ['permissions', 'mode'],
  base_url: ['base_url'],
};
const FIELD_OF_PATH = new Map(Object.entries(LOCATION).map(([field, path]) => [path.join('.'), field]));

export interface PreparedEdit {
  /** The real file (a symlinked config is followed to its target). */
  file: string;
  /** Runs the checked edit under the lock; returns the text that was there before (null: no file). */
  commit(): Promise<{ previous: string | null }>;
  /** Puts the previous text back (when a later part of the same request fails). */
  restore(previous: string | null): Promise<void>;
}

/**
 * Checks the edit against the file as it is now (400 naming the request field, 409 when the file
 * itself is broken) and returns a commit that re-reads, re-checks and writes under the lock.
 */
export async function prepareGlobalSettingsEdit(home: string, patch: GlobalSettingsPatch): Promise<PreparedEdit> {
  const file = await realpath(paths.globalConfig(home)).catch(() => resolve(paths.globalConfig(home)));
  edited(file, await readOrEmpty(file), patch); // throws before anything is locked or written
  return {
    file,
    commit: async () => {
      await mkdir(dirname(file), { recursive: true, mode: 0o700 });
      return withFileLock(file, async () => {
        const before = await readOrNull(file);
        const next = edited(file, before ?? '', patch);
        if (next !== (before ?? '')) await atomicWriteFile(file, next);
        return { previous: before };
      });
    },
    restore: async (previous) => {
      await withFileLock(file, async () => {
        if (previous === null) await rm(file, { force: true });
        else await atomicWriteFile(file, previous);
      });
    },
  };
}

/** The new file text, validated as a whole; throws HttpError when the edit cannot be made. */
export function edited(file: string, text: string, patch: GlobalSettingsPatch): string {
  const before = parseLayer(file, text);
  if (!before.ok) {
    const list = before.problems.map(
      (p) => `${p.line !== undefined ? `line ${p.line}: ` : ''}${p.field ? `${p.field}: ` : ''}${p.message}`,
    );
    throw new ReinError(
      'config_invalid',
      `${file} has problems to fix first (nothing was written): ${list.join('; ')}`,
    );
  }
  const doc = parseDocument(text);
  if (!isEmptyNode(doc.contents) && !isMap(doc.contents)) {
    throw new ReinError('config_invalid', `${file}: the top level must be a mapping (nothing was written)`);
  }
  let changed = false;
  for (const [field, value] of Object.entries(patch) as [keyof GlobalSettingsPatch, unknown][]) {
    if (value === undefined) continue;
    const path = LOCATION[field];
    if (value === null) {
      if (doc.hasIn(path)) {
        deleteKeepingComments(doc, path);
        changed = true;
      }
      continue;
    }
    if (doc.getIn(path) === value) continue;
    setIn(doc, path, value);
    changed = true;
  }
  // Nothing to change: the file stays byte for byte as it is (an empty one is not turned into `null`).
  if (!changed) return text;
  // A document left with no keys is written as its comments alone (the library would write `null`).
  const next = doc.contents === null ? commentLines(doc.commentBefore) : doc.toString();
  const after = parseLayer(file, next);
  if (!after.ok) {
    const p = after.problems[0]!;
    const field = (p.field && FIELD_OF_PATH.get(p.field)) ?? p.field ?? 'config';
    throw fieldError('invalid_request', `${field}: ${p.message}`, field);
  }
  return next;
}

function setIn(doc: Document, path: string[], value: unknown): void {
  if (isEmptyNode(doc.contents)) {
    const old = doc.contents;
    const map = doc.createNode({});
    // A file of only comments keeps them above the new keys.
    if (isScalar(old)) map.commentBefore = old.commentBefore ?? old.comment;
    doc.contents = map;
  }
  // A parent that is empty (`permissions:` with nothing under it) becomes a mapping in place.
  for (let i = 1; i < path.length; i++) {
    const parent = path.slice(0, i);
    const node = doc.getIn(parent, true);
    if (isEmptyNode(node)) doc.setIn(parent, doc.createNode({}));
  }
  doc.setIn(path, value);
}

/**
 * Removes a key without losing the person's comments around it: a comment above the key moves to the
 * next key (or below the mapping when it was the last one), and a mapping left empty becomes nothing,
 * so the file does not end up as `{}`.
 */
function deleteKeepingComments(doc: Document, path: string[]): void {
  const parentPath = path.slice(0, -1);
  const parent = parentPath.length === 0 ? doc.contents : doc.getIn(parentPath, true);
  if (!isMap(parent)) {
    doc.deleteIn(path);
    return;
  }
  const index = parent.items.findIndex((p) => isScalar(p.key) && String(p.key.value) === path.at(-1));
  if (index < 0) return;
  const [pair] = parent.items.splice(index, 1);
  const key = pair!.key as { commentBefore?: string | null; comment?: string | null } | null;
  const value = pair!.value as { comment?: string | null } | null;
  const notes = [key?.commentBefore, key?.comment, value?.comment].filter(
    (c): c is string => typeof c === 'string' && c !== '',
  );
  const next = parent.items[index];
  if (notes.length > 0) {
    if (next && isScalar(next.key))
      next.key.commentBefore = [...notes, next.key.commentBefore].filter(Boolean).join('\n');
    else parent.comment = [parent.comment, ...notes].filter(Boolean).join('\n');
  }
  if (parent.items.length === 0) {
    const leftover = [parent.commentBefore, parent.comment].filter(Boolean).join('\n');
    if (parentPath.length === 0) {
      doc.contents = null;
      if (leftover) doc.commentBefore = [doc.commentBefore, leftover].filter(Boolean).join('\n');
    } else {
      deleteKeepingComments(doc, parentPath);
    }
  }
}

function commentLines(comment: string | null | undefined): string {
  return comment
    ? `${comment
        .split('\n')
        .map((l) => `#${l}`)
        .join('\n')}\n`
    : '';
}

function isEmptyNode(node: unknown): boolean {
  return node === undefined || node === null || (isScalar(node) && (node.value === null || node.value === undefined));
}

async function readOrNull(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new ReinError('config_io', `cannot read ${file}: ${(e as Error).message}`);
  }
}

async function readOrEmpty(file: string): Promise<string> {
  return (await readOrNull(file)) ?? '';
}
