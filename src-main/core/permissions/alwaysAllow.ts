/**
 * "Always allow" from an approval prompt, written into a config.yaml so it holds for the next run too:
 * the grant the person saw (grants.ts: one command in one folder, one path, one app…) goes to
 * `permissions.grants`. (Older callers may still save an exact command line to `allowed_commands` or a
 * tool name to `always_allow_tools`.)
 *
 * The file is the user's: their comments and layout survive (edited as a YAML document, not re-dumped),
 * the write is atomic, and the read-modify-write runs under an inter-process lock so two processes
 * approving at the same moment both keep their entry. A file that does not parse is refused and left
 * exactly as it was.
 */
import { mkdir, readFile, realpath } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { isMap, isScalar, isSeq, parseDocument, type Document } from 'yaml';
import { z } from 'zod';
import { ReinError } from '../errors.js';
import { atomicWriteFile } from '../util/atomicWrite.js';
import { withFileLock } from '../util/fileLock.js';
import { describeIssues } from '../util/zodIssues.js';
import { canonicalJson } from '../util/canonicalJson.js';
import { GrantEntry } from '../config/schema.js';

const PersistAlwaysAllowOptions = z
  .strictObject({
    file: z.string().min(1),
    /** The exact bash command line that was approved. */
    command: z.string().trim().min(1).optional(),
    /** A tool name (for every tool but bash). */
    tool: z.string().trim().min(1).optional(),
    /** A grant (permissions.grants). */
    grant: GrantEntry.optional(),
  })
  .refine((o) => [o.command, o.tool, o.grant].filter((x) => x !== undefined).length === 1, {
    message: 'give exactly one of command, tool or grant',
    path: ['command'],
  });
export type PersistAlwaysAllowOptions = z.input<typeof PersistAlwaysAllowOptions>;

export type AlwaysAllowKey = 'allowed_commands' | 'always_allow_tools' | 'grants';

export interface PersistAlwaysAllowResult {
  /** The file written (a symlinked config is followed to its target). */
  file: string;
  key: AlwaysAllowKey;
  value: string | GrantEntry;
  /** False when the entry was already there (the file is then not rewritten). */
  added: boolean;
}

export async function persistAlwaysAllow(opts: PersistAlwaysAllowOptions): Promise<PersistAlwaysAllowResult> {
  const parsed = PersistAlwaysAllowOptions.safeParse(opts);
  if (!parsed.success) {
    const problems = describeIssues(parsed.error.issues, opts).map((p) => `${p.field}: ${p.message}`);
    throw new ReinError('invalid_input', `persistAlwaysAllow: ${problems.join('; ')}`, { problems });
  }
  const { command, tool, grant } = parsed.data;
  const key: AlwaysAllowKey =
    grant !== undefined ? 'grants' : command !== undefined ? 'allowed_commands' : 'always_allow_tools';
  const value: string | GrantEntry = grant ?? (command ?? tool)!;
  const same = (item: unknown): boolean => {
    const v = isScalar(item) ? item.value : isMap(item) ? (item as { toJSON(): unknown }).toJSON() : item;
    return typeof value === 'string' ? v === value : canonicalJson(v) === canonicalJson(value);
  };
  // Edit the real file behind a symlinked config (dotfile setups), not replace the link with a copy.
  const file = await realpath(parsed.data.file).catch(() => resolve(parsed.data.file));
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });

  return withFileLock(file, async () => {
    const text = await readFile(file, 'utf8').catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') return '';
      throw new ReinError('config_io', `could not read ${file}: ${e.message}`, { file }, { cause: e });
    });
    const doc = parseDocument(text);
    if (doc.errors.length > 0) {
      const first = doc.errors[0]!;
      throw new ReinError(
        'config_invalid',
        `${file}: not valid YAML (${first.message.split('\n')[0]}); "always allow" was not saved and the file was left untouched`,
        { file },
      );
    }
    const list = listNode(doc, file, key);
    if (list && list.items.some(same)) {
      return { file, key, value, added: false };
    }
    if (list) doc.addIn(['permissions', key], value);
    else if (isMap(doc.getIn(['permissions'], true))) doc.setIn(['permissions', key], doc.createNode([value]));
    else if (isMap(doc.contents)) doc.setIn(['permissions'], doc.createNode({ [key]: [value] }));
    else replaceEmptyContents(doc, { permissions: { [key]: [value] } });
    await atomicWriteFile(file, doc.toString());
    return { file, key, value, added: true };
  });
}

/**
 * The existing list, if any. Refuses a file whose shape would make the edit a guess: a top level, a
 * `permissions` or a list that is something other than a mapping / mapping / list.
 */
function listNode(doc: Document, file: string, key: AlwaysAllowKey) {
  const invalid = (field: string, expected: string) =>
    new ReinError('config_invalid', `${file}: ${field} must be ${expected}; "always allow" was not saved`, {
      file,
      field,
    });
  const isEmpty = (node: unknown) => node === undefined || node === null || (isScalar(node) && node.value === null);

  if (!isEmpty(doc.contents) && !isMap(doc.contents)) throw invalid('the top level', 'a mapping');
  const permissions = doc.getIn(['permissions'], true);
  if (isEmpty(permissions)) return undefined;
  if (!isMap(permissions)) throw invalid('permissions', 'a mapping');
  const list = doc.getIn(['permissions', key], true);
  // `allowed_commands:` with no value is replaced by a list in place.
  if (isEmpty(list)) return undefined;
  if (!isSeq(list)) throw invalid(`permissions.${key}`, 'a list');
  return list;
}

/** An empty file, or one holding only `---` and comments: the new mapping takes the place of nothing. */
function replaceEmptyContents(doc: Document, value: Record<string, unknown>): void {
  const old = doc.contents;
  const map = doc.createNode(value);
  if (isScalar(old)) {
    map.commentBefore = old.commentBefore;
    map.comment = old.comment;
  }
  doc.contents = map;
}
