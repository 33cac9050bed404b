/**
 * The traits of the built-in tools, in one leaf module: each tool sets its own from here, and the
 * permission engine's stand-ins (`rein permissions check --tool NAME` for a tool that is not registered)
 * take them by name, so a stand-in is judged exactly as the real tool is.
 */
import type { PathsTrait, ToolTraits } from '../traits.js';

/** The file tools take their path from `path` (or `file_path`, which models sometimes write). */
const PATH_FIELDS = ['path', 'file_path'] as const;
const paths = (access: PathsTrait['access'], more: Omit<PathsTrait, 'fields' | 'access'> = {}): PathsTrait => ({
  fields: PATH_FIELDS,
  access,
  ...more,
});

/** The built-in shell tool: the stand-in that judges command lines other tools run (GUI typing, AppleScript). */
export const SHELL_STAND_IN = 'bash';

export const BASH_TRAITS: ToolTraits = { command: { language: 'shell', field: 'command' } };
export const HTTP_TRAITS: ToolTraits = { egress: { urlField: 'url', methodField: 'method' } };
export const FILE_READ_TRAITS: ToolTraits = { family: 'read', readsOnly: true, paths: paths('read') };
export const DIRECTORY_LIST_TRAITS: ToolTraits = {
  family: 'read',
  readsOnly: true,
  paths: paths('list', { default: '.' }),
};
export const GLOB_TRAITS: ToolTraits = {
  family: 'search',
  readsOnly: true,
  paths: paths('list', { default: '.', globField: 'pattern' }),
};
export const GREP_TRAITS: ToolTraits = {
  family: 'search',
  readsOnly: true,
  paths: paths('read', { default: '.', searchField: 'pattern' }),
};
export const FILE_WRITE_TRAITS: ToolTraits = { paths: paths('write', { textFields: ['content'] }) };
export const FILE_EDIT_TRAITS: ToolTraits = { paths: paths('write', { textFields: ['new_string'] }) };
export const MEMORY_APPEND_TRAITS: ToolTraits = { approval: 'never' };
export const THINK_TRAITS: ToolTraits = { readsOnly: true, thinksAloud: true };
export const SCHEDULE_CHANGE_TRAITS: ToolTraits = { changesReinState: true };

/**
 * By tool name, for stand-ins only: a registered tool is judged by the traits it carries. The tools whose
 * traits the engine's own rules read; the others' stand-ins stay plain, as they always were.
 */
export const BUILTIN_TRAITS: ReadonlyMap<string, ToolTraits> = new Map<string, ToolTraits>([
  ['bash', BASH_TRAITS],
  ['http', HTTP_TRAITS],
  ['file_read', FILE_READ_TRAITS],
  ['directory_list', DIRECTORY_LIST_TRAITS],
  ['glob', GLOB_TRAITS],
  ['grep', GREP_TRAITS],
  ['file_write', FILE_WRITE_TRAITS],
  ['file_edit', FILE_EDIT_TRAITS],
]);
