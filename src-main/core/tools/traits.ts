/**
 * What a tool is like, declared by the tool itself, so the loop detector, the permission engine, the MCP
 * server's tool list and the iteration cap never need a list of tool names: a tool from an MCP server or
 * the GUI bridge that says `family: 'gui'` is treated like every other GUI tool, and a tool that says
 * `command: { language: 'shell', field: 'command' }` gets the shell analysis bash gets, whatever it is called.
 * docs/tools.md, *Traits*, lists them.
 */

/**
 * Tools whose calls are compared with each other. `search` and `web` calls are judged by what they
 * found (nothing, the same topic, the same sources); `gui` calls by how often the same step repeats;
 * `read` calls only read local state and are left to the generic checks (a batch of reads is work).
 */
export type ToolFamily = 'read' | 'search' | 'web' | 'gui';

/** The input field that holds a command line the tool runs, and its language. */
export interface CommandTrait {
  /** `shell`: a POSIX shell line, judged by the shell analysis (permissions/commandRules.ts). */
  readonly language: 'shell';
  readonly field: string;
}

/**
 * The input fields that name a file or folder the tool works on, judged by the file rules
 * (permissions/fileRules.ts): Rein's secrets, sensitive files, protected places, the work area.
 */
export interface PathsTrait {
  /** The fields that may hold the path; the first one given wins. */
  readonly fields: readonly string[];
  /**
   * `read`: reads what is in it; `list`: shows only names (a listing, a glob), so Rein's secret files may be
   * named but not read; `write`: changes it.
   */
  readonly access: 'read' | 'list' | 'write';
  /** The path the tool works on when no field gives one (`.`: the working folder); absent: a path is required. */
  readonly default?: string;
  /** Fields with the text a `write` puts there: judged as commands when the place runs what is written later. */
  readonly textFields?: readonly string[];
  /** A field with a glob pattern under the path: its fixed part (`../x/*`, `/etc/*`) is judged as a path too. */
  readonly globField?: string;
  /** A field with a pattern searched for in the files' contents: a search for key material asks. */
  readonly searchField?: string;
}

/** The input field with a URL the tool sends a request to (it leaves this machine), and the method's field. */
export interface EgressTrait {
  readonly urlField: string;
  /** The field with the HTTP method (default GET). */
  readonly methodField?: string;
}

export interface ToolTraits {
  readonly family?: ToolFamily;
  /** Its input holds a command line that it runs (bash): the permission engine analyses the line. */
  readonly command?: CommandTrait;
  /** Its input names files or folders (file_read, file_write, grep…): the permission engine judges the path. */
  readonly paths?: PathsTrait;
  /** Its input holds a URL it sends a request to (http): the permission engine applies the egress rules. */
  readonly egress?: EgressTrait;
  /**
   * `never`: it changes only Rein's own state that a person reviews anyway (memory_append adds to the
   * agent's MEMORY.md), so its calls are never asked about, in any mode.
   */
  readonly approval?: 'never';
  /** Every call only reads, whatever its input (file_read, glob, think…). */
  readonly readsOnly?: boolean;
  /** Its input is the model's own reasoning (think): the loop detector compares repeated thoughts. */
  readonly thinksAloud?: boolean;
  /**
   * Drives the screen or other apps: a run that used it gets the higher iteration cap, and an
   * unattended run may not call it unless `permissions.gui_unattended` names it. A `gui`-family tool
   * drives the GUI whether or not it says so.
   */
  readonly drivesGui?: boolean;
  /** Its result follows the world (the screen, a web page), so calling it again with the same input is expected. */
  readonly repeatable?: boolean;
  /** Looks at the screen (a screenshot, the accessibility tree): redundant right after a step that reported success. */
  readonly looksAtScreen?: boolean;
  /** Reports its own success reliably (AppleScript, a browser driver): a look at the screen after it is redundant. */
  readonly reportsOwnSuccess?: boolean;
  /**
   * Its input's `script` is a program in this language, run as it is (the applescript tool): the permission
   * engine reads it for the shell commands it runs and the apps it addresses (permissions/guiRules.ts).
   */
  readonly runsScript?: 'applescript';
  /**
   * It may type into another app: an `action` of type_text / type / set_value with its `text` / `value`, into
   * the app its `app` names or whatever has the keyboard focus. The permission engine judges text typed into
   * a terminal (or into an app it cannot know) as the command line it would run (permissions/guiRules.ts).
   */
  readonly typesText?: boolean;
  /**
   * A tool of an MCP server: the configured server's name and the tool's own name there (its registry
   * name is `mcp__<server>__<tool>`, sanitised). The permission engine reads it for the server's
   * `always_allow` list; the server's annotations arrive as isReadOnly / isDestructive / isConcurrencySafe.
   */
  readonly mcp?: { readonly server: string; readonly tool: string };
  /**
   * Changes Rein's own run-later state (the schedule store, an agent's settings): a call that is not
   * read-only needs a person in every mode, and no grant covers more than the one call
   * (docs/permissions.md, *Trust boundaries*).
   */
  readonly changesReinState?: boolean;
}

/** True for a tool that drives the screen or other apps. */
export const drivesGui = (traits: ToolTraits | undefined): boolean =>
  traits?.drivesGui === true || traits?.family === 'gui';

/** The shell command line of a call of a `command: shell` tool, if its input has one (undefined otherwise). */
export function shellCommandOf(traits: ToolTraits | undefined, input: unknown): string | undefined {
  if (traits?.command?.language !== 'shell') return undefined;
  const v = input && typeof input === 'object' ? (input as Record<string, unknown>)[traits.command.field] : undefined;
  return typeof v === 'string' ? v : undefined;
}

/**
 * True for a tool that may reach beyond this computer: a `web`-family tool, one that sends requests to a
 * URL it is given, and one that runs command lines (which may run `curl`).
 */
export const reachesNetwork = (traits: ToolTraits | undefined): boolean =>
  traits?.family === 'web' || traits?.egress !== undefined || traits?.command !== undefined;
