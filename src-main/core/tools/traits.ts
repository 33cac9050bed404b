/**
 * What a tool is like, declared by the tool itself, so the loop detector, the permission engine and the
 * iteration cap never need a list of tool names: a tool from an MCP server or the GUI bridge that says
 * `family: 'gui'` is treated like every other GUI tool, whatever it is called.
 */

/**
 * Tools whose calls are compared with each other. `search` and `web` calls are judged by what they
 * found (nothing, the same topic, the same sources); `gui` calls by how often the same step repeats;
 * `read` calls only read local state and are left to the generic checks (a batch of reads is work).
 */
export type ToolFamily = 'read' | 'search' | 'web' | 'gui';

export interface ToolTraits {
  readonly family?: ToolFamily;
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
export const drivesGui = (traits: ToolTraits | undefined): boolean => traits?.drivesGui === true || traits?.family === 'gui';
