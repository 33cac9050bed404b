/**
 * What the shell analysis reports about one command line. Values are normalised (quotes removed, escapes
 * decoded, known variables substituted); parts only known at run time are kept as placeholder characters so
 * rules can reason about them ("this path is `/` plus something that may be empty").
 */

/** An expansion whose value is unknown and may be empty (`$DIR`). */
export const UNKNOWN = '\u0000';
/** An expansion whose value is unknown but never empty (`${DIR:?}`, `$(cmd)`, `<(cmd)`). */
export const UNKNOWN_NONEMPTY = '\u0001';
export const hasUnknown = (s: string): boolean => s.includes(UNKNOWN) || s.includes(UNKNOWN_NONEMPTY);

export interface ShellWord {
  /** Normalised value; unknown parts are UNKNOWN / UNKNOWN_NONEMPTY. */
  value: string;
  /** Other values the word may take (brace expansion, loop variables, `${X:-default}`), at most a few. */
  alternatives: string[];
  /** How the word reads for people and for pattern matching: the value with unknown parts as written. */
  display: string;
  /** True when some part is only known at run time. */
  dynamic: boolean;
  /** The words bash makes of this one (brace expansion, unquoted expansions split at IFS), when more than one. */
  fields?: ShellWord[];
}

export type RedirectKind = 'write' | 'read' | 'duplicate' | 'heredoc' | 'herestring';

export interface Redirect {
  operator: string;
  kind: RedirectKind;
  /** Normalised target (a path, an fd number, or the here-string / heredoc text). */
  target: string;
  targetDynamic: boolean;
  /** The target as written, with expansions unexpanded (`$HISTFILE`). */
  display?: string;
}

/** How a command was reached; anything but `line` is code hidden inside another construct. */
export type CommandVia =
  | 'line'
  | 'substitution'
  | 'process_substitution'
  | 'inline_shell'
  | 'fed_script'
  | 'exec_option'
  | 'wrapper_string'
  | 'function_body'
  | 'code_literal'
  | 'config_value'
  | 'fallback';

export interface Assignment {
  name: string;
  value: string;
  dynamic: boolean;
}

export interface SimpleCommand {
  /** Lower-cased basename of the command word after wrappers (`/bin/RM` → `rm`); '' for none. */
  name: string;
  /** The command word as normalised (`/bin/rm`). */
  program: string;
  /** Arguments after the command word. */
  args: ShellWord[];
  /** True when the command word is only known at run time (`$X`, `$(…)`). */
  nameDynamic: boolean;
  /** True when the command word came from a variable set earlier in the line. */
  nameFromVariable: boolean;
  /** Wrappers seen through, outermost first (`sudo`, `env`, `xargs` …). */
  wrappers: string[];
  assignments: Assignment[];
  redirects: Redirect[];
  /** Normalised text including wrappers: what allowed/denied patterns are matched against. */
  text: string;
  /** Normalised text without wrappers and assignments. */
  innerText: string;
  via: CommandVia;
  depth: number;
  /** A wrapper had options this analysis does not know, so the real command may start later. */
  uncertain: boolean;
  /** `xargs -I R`: the string xargs replaces with each input item. */
  xargsReplace?: string;
}

/** A place where text produced by some commands is run as code by another command. */
export interface CodeFeed {
  sink: SimpleCommand;
  feeders: SimpleCommand[];
  channel: 'pipe' | 'process_substitution' | 'command_substitution' | 'herestring' | 'command_name';
}

export interface FunctionDefinition {
  name: string;
  body: SimpleCommand[];
  /** How often the body calls the function itself. */
  selfCalls: number;
  /** The body starts something in the background (`&`). */
  backgrounds: boolean;
}

export interface ShellAnalysis {
  line: string;
  /** Every simple command the line would run, at any depth. */
  commands: SimpleCommand[];
  /** Commands that only might run (alternative readings, strings inside inline code): checked for hard blocks only. */
  hidden: SimpleCommand[];
  /** Stages of every pipeline, each stage the commands inside it. */
  pipelines: SimpleCommand[][][];
  redirects: Redirect[];
  /** Redirections that create or change a file. */
  fileWrites: Redirect[];
  /** Count of `$( )`, backticks, `<( )` and `>( )`. */
  substitutions: number;
  feeds: CodeFeed[];
  functions: FunctionDefinition[];
  /** Folders the line changes into (`cd`, `pushd`); UNKNOWN-marked when not static. */
  cdTargets: string[];
  /** Variable assignments that programs later run as commands (PAGER, GIT_SSH_COMMAND, …) or that change lookup (PATH). */
  riskyAssignments: string[];
  /** Inline programs handed to interpreters (`python3 -c CODE`, `osascript -e CODE`), as static text. */
  inlineCode: Array<{ command: SimpleCommand; code: string }>;
  /** Values HOME is set to inside the line (they change what `~` means for later commands). */
  homeValues: string[];
  /** Variables the line expands whose names look like they hold secrets (`$GITHUB_TOKEN`). */
  secretVariables: string[];
  /** Symbolic links the line creates (`ln -s TARGET LINK`): paths through LINK reach TARGET. */
  links: Array<{ link: string; target: string }>;
  /** Static text the line writes into files (`echo … >> ~/.zshrc`, heredocs, `tee`), by the path as written. */
  writtenText: Array<{ path: string; text: string; append: boolean }>;
  /** Static text handed to `crontab` to install (its lines' commands are also parsed as hidden code). */
  crontabText: string[];
  /** Everything was understood: no syntax errors, no unknown constructs, no run-time command names. */
  complete: boolean;
  problems: string[];
}
