/**
 * Finds every simple command a bash line would run — across lists, pipelines, subshells, groups,
 * substitutions, heredocs, control structures, function bodies, `sh -c` strings, `eval`, `find -exec`,
 * wrappers — and the facts the permission layers need (redirections, substitutions, code fed to shells).
 * Anything not fully understood is reported in `problems`, which keeps the line from being auto-allowed.
 */
import os from 'node:os';
import path from 'node:path';
import type { Node } from 'web-tree-sitter';
import {
  awkProgram,
  codeFamily,
  commandName,
  cronCommands,
  filesWritten,
  inlineCodeArgs,
  isAwk,
  looksSecretName,
  plistStrings,
  readsProgramFromStdin,
  scriptFileRun,
  staticOutput,
  staticText,
} from './commandKinds.js';
import { appleScriptCommands } from './appleScript.js';
import { persistenceKind } from './normalize.js';
import { parseShell } from './parser.js';
import {
  hasUnknown,
  type Assignment,
  type CommandVia,
  type Redirect,
  type ShellAnalysis,
  type ShellWord,
  type SimpleCommand,
  UNKNOWN,
} from './types.js';
import { allValues, evalWord, plainWord, type EvalOptions, type WordEnv } from './words.js';
import { isLooseWrapper, unwrap } from './wrappers.js';

export interface AnalyzeOptions {
  home?: string;
  cwd?: string;
}

/** Nested parses (sh -c inside eval inside …) deeper than this are not followed. */
const MAX_DEPTH = 6;
/** Nested parses per line, whatever their depth; bounds the cost of hostile input. */
const MAX_PARSES = 48;

/** Variables whose value programs later run as a command line. */
const COMMAND_VARIABLES = new Set([
  'PAGER',
  'GIT_PAGER',
  'MANPAGER',
  'GIT_SSH_COMMAND',
  'GIT_EDITOR',
  'GIT_SEQUENCE_EDITOR',
  'EDITOR',
  'VISUAL',
  'PROMPT_COMMAND',
  'GIT_EXTERNAL_DIFF',
  'GIT_ASKPASS',
  'SSH_ASKPASS',
  'SUDO_ASKPASS',
  'LESSOPEN',
  'LESSCLOSE',
  'BROWSER',
  'FCEDIT',
  'GIT_SSH',
]);

/** Variables that change which program runs or what it loads. */
export function isRiskyVariable(name: string): boolean {
  return (
    COMMAND_VARIABLES.has(name) ||
    /^(PATH|HOME|IFS|ENV|BASH_ENV|SHELLOPTS|BASHOPTS|PS4|CDPATH|GLOBIGNORE|NODE_OPTIONS|NODE_PATH|PYTHONPATH|PYTHONSTARTUP|PYTHONHOME|PERL5OPT|PERL5LIB|RUBYOPT|RUBYLIB|ZDOTDIR|TMPDIR)$/.test(
      name,
    ) ||
    /^(LD_|DYLD_|GIT_|BASH_FUNC_)/.test(name)
  );
}

/** Node types the walker understands as plain containers of statements or words. */
const CONTAINERS = new Set([
  'program',
  'list',
  'compound_statement',
  'subshell',
  'do_group',
  'if_statement',
  'elif_clause',
  'else_clause',
  'while_statement',
  'case_statement',
  'case_item',
  'negated_command',
  'test_command',
  'c_style_for_statement',
  'binary_expression',
  'unary_expression',
  'parenthesized_expression',
  'postfix_expression',
  'ternary_expression',
  'arithmetic_expansion',
  'string',
  'translated_string',
  'concatenation',
  'expansion',
  'simple_expansion',
  'array',
  'subscript',
  'brace_expression',
  'heredoc_body',
  'variable_assignments',
  'command_name',
]);
const LEAVES = new Set([
  'comment',
  'word',
  'number',
  'raw_string',
  'ansi_c_string',
  'string_content',
  'heredoc_content',
  'heredoc_start',
  'heredoc_end',
  'file_descriptor',
  'variable_name',
  'special_variable_name',
  'test_operator',
  'regex',
  'extglob_pattern',
]);
const REDIRECT_TYPES = new Set(['file_redirect', 'heredoc_redirect', 'herestring_redirect']);

interface Ctx {
  depth: number;
  via: CommandVia;
  /** Commands found under this context only might run: they go to `hidden`. */
  hidden: boolean;
  env: Map<string, string[]>;
}

interface RedirectInfo {
  redirect: Redirect;
  /** Commands inside the redirection target (`< <(curl …)`, `<<< "$(curl …)"`). */
  inner: SimpleCommand[];
  /** Static text given on stdin (here-string or heredoc body). */
  stdinText?: string;
  /** The target is a process substitution (`< <(…)`). */
  fromProcess: boolean;
  node: Node;
}

const BENIGN_WRITE_TARGETS = /^(\/dev\/(null|stdout|stderr|tty|fd\/[0-9]+)|[0-9]+|-)$/;

export function analyzeCommand(line: string, opts: AnalyzeOptions = {}): ShellAnalysis {
  const analyzer = new Analyzer(line, opts.home ?? os.homedir(), opts.cwd ?? process.cwd());
  return analyzer.run();
}

class Analyzer {
  readonly result: ShellAnalysis;
  #parses = 0;
  /** Static text piped into `tee FILE` (written to FILE). */
  readonly teeTexts: Array<{ path: string; text: string; append: boolean }> = [];

  constructor(
    line: string,
    readonly home: string,
    readonly cwd: string,
  ) {
    this.result = {
      line,
      commands: [],
      hidden: [],
      pipelines: [],
      redirects: [],
      fileWrites: [],
      substitutions: 0,
      feeds: [],
      functions: [],
      cdTargets: [],
      riskyAssignments: [],
      inlineCode: [],
      homeValues: [],
      secretVariables: [],
      links: [],
      writtenText: [],
      crontabText: [],
      complete: true,
      problems: [],
    };
  }

  run(): ShellAnalysis {
    const env = new Map<string, string[]>();
    this.parseAndCollect(this.result.line, { depth: 0, via: 'line', hidden: false, env }, true);
    this.followWrittenText();
    this.result.complete = this.result.problems.length === 0;
    return this.result;
  }

  /**
   * `echo 'rm -rf /' > x.sh; sh x.sh`: a script written with static text and run in the same line is read
   * as the commands it holds. Text written into places that run it later — shell startup files, launch
   * agents, cron tables — is read as hidden code too, so a payload planted there is caught.
   */
  followWrittenText(): void {
    const abs = (p: string) =>
      path.posix.resolve(this.cwd, p.startsWith('~/') ? this.home + p.slice(1) : p === '~' ? this.home : p);
    const written = new Map<string, string>();
    const note = (file: string, text: string, append: boolean) => {
      this.result.writtenText.push({ path: file, text, append });
      written.set(abs(file), (written.get(abs(file)) ?? '') + text + '\n');
    };
    for (const c of this.result.commands) {
      const text = staticText(c);
      if (text === undefined) continue;
      for (const r of c.redirects) {
        if (r.kind === 'write' && filesWritten({ ...c, name: '', redirects: [r] }).length > 0)
          note(r.target, text, r.operator.startsWith('>>'));
      }
      if (c.name === 'tee')
        for (const f of filesWritten({ ...c, redirects: [] }))
          note(
            f,
            text,
            c.args.some((a) => /^-[A-Za-z]*a/.test(a.value) || a.value === '--append'),
          );
    }
    for (const t of this.teeTexts) note(t.path, t.text, t.append);
    if (written.size === 0) return;
    for (const c of [...this.result.commands]) {
      const script = scriptFileRun(c);
      const text = script === undefined ? undefined : written.get(abs(script));
      if (text?.trim())
        this.parseAndCollect(text, { depth: c.depth + 1, via: 'fed_script', hidden: false, env: new Map() }, true);
      if (c.name === 'crontab') {
        const file = c.args.find((a) => !a.value.startsWith('-'))?.value;
        const tab = file === undefined ? undefined : written.get(abs(file));
        if (tab?.trim()) this.cronText(tab, c.depth);
      }
    }
    for (const [file, text] of written) {
      const kind = persistenceKind(file, { home: this.home, cwd: this.cwd });
      const hidden: Ctx = { depth: 1, via: 'fed_script', hidden: true, env: new Map() };
      if (kind === 'shell-startup') this.parseAndCollect(text, hidden, true);
      else if (kind === 'launch-agent') for (const code of plistStrings(text)) this.parseAndCollect(code, hidden, true);
      else if (kind === 'cron') this.cronText(text, 0, true);
    }
  }

  /** A crontab's entries: each command is hidden code that runs on schedule. */
  cronText(text: string, depth: number, system = false): void {
    this.result.crontabText.push(text);
    for (const code of cronCommands(text, system)) {
      this.parseAndCollect(code, { depth: depth + 1, via: 'fed_script', hidden: true, env: new Map() }, true);
    }
  }

  problem(text: string): void {
    if (!this.result.problems.includes(text)) this.result.problems.push(text);
  }

  /** Parses a piece of shell text and collects its commands. */
  parseAndCollect(text: string, ctx: Ctx, allowFallback: boolean): SimpleCommand[] {
    if (ctx.depth > MAX_DEPTH || this.#parses >= MAX_PARSES) {
      this.problem('shell code is nested too deeply to follow');
      return [];
    }
    this.#parses++;
    const tree = parseShell(text);
    let found: SimpleCommand[];
    let broken = false;
    try {
      const root = tree.rootNode;
      broken = root.hasError || mergedLines(root, text);
      if (broken && !ctx.hidden) this.problem('the shell parser could not fully understand the line');
      found = this.collect(root, ctx);
    } finally {
      tree.delete();
    }
    if (broken && allowFallback) this.fallback(text, ctx);
    return found;
  }

  /**
   * For text the parser could not read, a rough second reading: quotes and backslashes dropped, the text cut
   * at every separator, and each piece parsed alone. Only hard blocks look at what it finds.
   */
  fallback(text: string, ctx: Ctx): void {
    const plain = text.replace(/\\\n/g, '').replace(/['"\\]/g, '');
    const fctx: Ctx = { ...ctx, depth: ctx.depth + 1, via: 'fallback', hidden: true, env: new Map(ctx.env) };
    // `{rm,-rf,/}` is three words to bash (the grammar cannot read it as a command).
    const braced = plain.replace(/\{([^{}\s]*,[^{}\s]*)\}/g, (_m, inner: string) => ` ${inner.split(',').join(' ')} `);
    const pieces = [plain, ...(braced !== plain ? [braced] : [])].flatMap((t) =>
      t.split(/;|&&|\|\||\|&|&|\n|\(|\)|\{|\}|`|\$\(|<\(|>\(/),
    );
    for (const piece of pieces.slice(0, 32)) {
      if (piece.trim()) this.parseAndCollect(piece, fctx, false);
    }
    // Substitutions and process substitutions lose their shape when cut; look for the download-into-shell forms.
    const suspicious =
      /\b(sh|bash|zsh|dash|ksh|fish|source|eval|python[0-9.]*|perl|ruby|node|php)\b[^;\n]*?(<\(|\$\(|`)\s*(sudo\s+)?(curl|wget|fetch|nc|ncat|base64|openssl|xxd)\b/i.exec(
        plain,
      );
    if (suspicious) {
      const mk = (name: string): SimpleCommand => this.synthetic(name, fctx);
      const feeder = mk(suspicious[4]!.toLowerCase());
      if (feeder.name === 'base64' || feeder.name === 'xxd' || feeder.name === 'openssl')
        feeder.args = [plainWord('-d'), plainWord('-r')];
      this.result.feeds.push({
        sink: mk(suspicious[1]!.toLowerCase()),
        feeders: [feeder],
        channel: 'command_substitution',
      });
    }
  }

  synthetic(name: string, ctx: Ctx): SimpleCommand {
    return {
      name,
      program: name,
      args: [],
      nameDynamic: false,
      nameFromVariable: false,
      wrappers: [],
      assignments: [],
      redirects: [],
      text: name,
      innerText: name,
      via: ctx.via,
      depth: ctx.depth,
      uncertain: false,
    };
  }

  collect(node: Node, ctx: Ctx): SimpleCommand[] {
    switch (node.type) {
      case 'command':
        return this.command(node, ctx);
      case 'pipeline':
        return this.pipeline(
          node.namedChildren.filter((c): c is Node => !!c && c.type !== 'comment'),
          [],
          ctx,
        );
      case 'redirected_statement':
        return this.redirected(node, ctx);
      case 'function_definition':
        return this.functionDefinition(node, ctx);
      case 'variable_assignment':
        return this.assignment(node, ctx);
      case 'declaration_command':
        return this.declaration(node, ctx);
      case 'unset_command':
        return this.declaration(node, ctx);
      case 'for_statement':
        return this.forLoop(node, ctx);
      case 'command_substitution':
      case 'process_substitution':
        return this.substitution(node, ctx);
      case 'ERROR':
        if (!ctx.hidden) this.problem('the shell parser could not fully understand the line');
        return this.children(node, ctx);
      default:
        if (LEAVES.has(node.type)) return [];
        if (!CONTAINERS.has(node.type)) {
          if (node.isNamed && !ctx.hidden) this.problem(`unsupported shell construct: ${node.type}`);
        }
        return this.children(node, ctx);
    }
  }

  children(node: Node, ctx: Ctx): SimpleCommand[] {
    const out: SimpleCommand[] = [];
    for (const c of node.namedChildren) if (c) out.push(...this.collect(c, ctx));
    return out;
  }

  substitution(node: Node, ctx: Ctx): SimpleCommand[] {
    this.result.substitutions++;
    const via: CommandVia = node.type === 'process_substitution' ? 'process_substitution' : 'substitution';
    return this.children(node, { ...ctx, via });
  }

  /** A WordEnv that records the commands found inside the word's substitutions into `capture`. */
  wordEnv(ctx: Ctx, capture: SimpleCommand[]): WordEnv {
    return {
      lookup: (name) => this.lookup(name, ctx),
      expanded: (name) => {
        // A variable set earlier in the line holds what the line put there, not a secret from the environment.
        if (ctx.hidden || ctx.env.has(name) || !looksSecretName(name)) return;
        if (!this.result.secretVariables.includes(name)) this.result.secretVariables.push(name);
      },
      substitution: (node) => {
        const inner = this.substitution(node, ctx);
        capture.push(...inner);
        if (node.type !== 'command_substitution') return undefined;
        const direct = inner.filter((c) => c.via === 'substitution' && c.depth === ctx.depth);
        if (direct.length !== 1 || inner.length !== 1) return undefined;
        return emittedText(direct[0]!)?.replace(/\n+$/, '');
      },
      nested: (node) => {
        const walk = (n: Node) => {
          for (const c of n.namedChildren) {
            if (!c) continue;
            if (c.type === 'command_substitution' || c.type === 'process_substitution')
              capture.push(...this.substitution(c, ctx));
            else walk(c);
          }
        };
        walk(node);
      },
    };
  }

  lookup(name: string, ctx: Ctx): string[] | undefined {
    const set = ctx.env.get(name);
    if (set) return set;
    if (name === 'HOME') return [this.home];
    if (name === 'PWD') return [this.cwd];
    if (name === 'USER' || name === 'LOGNAME') return [this.home.slice(this.home.lastIndexOf('/') + 1)];
    if (name === 'IFS') return [' \t\n'];
    return undefined;
  }

  word(node: Node, ctx: Ctx, capture: SimpleCommand[], opts?: EvalOptions): ShellWord {
    return evalWord(node, this.wordEnv(ctx, capture), opts);
  }

  command(node: Node, ctx: Ctx): SimpleCommand[] {
    const words: ShellWord[] = [];
    const wordSubs: SimpleCommand[][] = [];
    const prefix: Assignment[] = [];
    const redirectNodes: Node[] = [];
    const found: SimpleCommand[] = [];
    for (const child of node.namedChildren) {
      if (!child) continue;
      if (child.type === 'variable_assignment') {
        const capture: SimpleCommand[] = [];
        const valueNode = child.childForFieldName('value');
        const value = valueNode ? this.word(valueNode, ctx, capture, { assignment: true }) : plainWord('');
        found.push(...capture);
        const name = child.childForFieldName('name')?.text ?? '';
        prefix.push({ name, value: value.value, dynamic: value.dynamic });
        this.noteAssignment(name, value, ctx);
      } else if (REDIRECT_TYPES.has(child.type)) {
        redirectNodes.push(child);
      } else if (child.type === 'comment') {
        continue;
      } else {
        const capture: SimpleCommand[] = [];
        const target = child.type === 'command_name' ? (child.namedChild(0) ?? child) : child;
        const w = this.word(target, ctx, capture);
        // `{rm,-rf,/}` and an unquoted `$CMD` holding spaces are several words to bash.
        const fields = w.fields ?? [w];
        fields.forEach((f, k) => {
          words.push(f);
          wordSubs.push(k === 0 ? capture : []);
        });
        found.push(...capture);
      }
    }
    const redirects = redirectNodes.map((r) => this.redirect(r, ctx));
    if (words.length === 0) return found;
    const made = this.fromWords(words, wordSubs, prefix, ctx);
    found.push(...made);
    if (made[0]) this.attachRedirects(made[0], redirects, ctx, found);
    else for (const r of redirects) found.push(...r.inner);
    return found;
  }

  /**
   * Builds the command from its words (wrappers seen through) and follows any code it carries:
   * `sh -c`, `eval`, `find -exec`, `env -S`, interpreter one-liners, `git -c`, `trap`, `alias`.
   * The first element of the result is the command itself.
   */
  fromWords(words: ShellWord[], wordSubs: SimpleCommand[][], prefix: Assignment[], ctx: Ctx): SimpleCommand[] {
    const u = unwrap(words);
    const inner = u.words.length > 0 ? u.words : words.slice(0, 1);
    const innerStart = words.length - inner.length;
    const nameWord = inner[0]!;
    const nameDynamic = hasUnknown(nameWord.value);
    const cmd: SimpleCommand = {
      name: nameDynamic ? '' : commandName(nameWord.value),
      program: nameWord.value,
      args: inner.slice(1),
      nameDynamic,
      nameFromVariable: !nameDynamic && /[$`]/.test(nameWord.display),
      wrappers: u.words.length > 0 ? u.wrappers : u.wrappers.slice(0, -1),
      assignments: [...prefix, ...u.assignments],
      redirects: [],
      text: [...prefix.map((a) => `${a.name}=${a.value}`), ...words.map((w) => w.display)].join(' '),
      innerText: inner.map((w) => w.display).join(' '),
      via: ctx.via,
      depth: ctx.depth,
      uncertain: u.uncertain,
      ...(u.xargsReplace !== undefined ? { xargsReplace: u.xargsReplace } : {}),
    };
    if (u.words.length === 0 && u.wrappers.length > 0) {
      // The last wrapper runs only a string (`env -S '…'`, `su -c '…'`, `watch '…'`).
      cmd.name = u.wrappers[u.wrappers.length - 1]!;
      cmd.program = cmd.name;
      cmd.args = [];
      cmd.innerText = cmd.name;
    }
    const out: SimpleCommand[] = [cmd];
    if (ctx.hidden) this.result.hidden.push(cmd);
    else this.result.commands.push(cmd);

    if (cmd.nameDynamic && !ctx.hidden) this.problem('a command name is only known at run time');
    if (cmd.nameFromVariable && !ctx.hidden)
      this.problem('a command name is computed from a variable or a substitution');
    if (cmd.uncertain && !ctx.hidden) this.problem(`options of ${u.wrappers.join(', ')} were not understood`);
    for (const a of u.assignments) this.noteAssignment(a.name, plainWord(a.value), ctx);

    const nested = (text: string, via: CommandVia, hidden = ctx.hidden, env?: Map<string, string[]>) =>
      out.push(
        ...this.parseAndCollect(
          text,
          { ...ctx, depth: ctx.depth + 1, via, hidden, env: env ?? new Map(ctx.env) },
          true,
        ),
      );
    const subsOf = (argIndex: number): SimpleCommand[] => wordSubs[innerStart + 1 + argIndex] ?? [];

    // A command word made by a substitution runs whatever that substitution printed.
    const nameSubs = wordSubs[innerStart] ?? [];
    if (nameSubs.length > 0) this.result.feeds.push({ sink: cmd, feeders: nameSubs, channel: 'command_name' });

    for (const alt of u.alternates.slice(0, 8)) {
      out.push(...this.fromWords(alt, [], [], { ...ctx, hidden: true }).slice(0, 1));
    }
    if (isLooseWrapper(cmd.name)) {
      // A runner whose options are not modelled: any later word may be where its command starts.
      let tried = 0;
      cmd.args.forEach((a, k) => {
        if (tried >= 8 || a.value.startsWith('-') || hasUnknown(a.value)) return;
        tried++;
        if (/\s/.test(a.value)) nested(a.value, 'wrapper_string', true);
        else
          this.fromWords(cmd.args.slice(k), [], [], { ...ctx, depth: ctx.depth + 1, via: 'exec_option', hidden: true });
      });
    }
    for (const s of u.shellStrings) {
      if (!hasUnknown(s.value)) nested(s.value, 'wrapper_string');
      else if (!ctx.hidden) this.problem('a wrapper runs a command string only known at run time');
    }

    this.followCode(cmd, subsOf, nested, ctx);
    return out;
  }

  followCode(
    cmd: SimpleCommand,
    subsOf: (argIndex: number) => SimpleCommand[],
    nested: (text: string, via: CommandVia, hidden?: boolean, env?: Map<string, string[]>) => void,
    ctx: Ctx,
  ): void {
    const name = cmd.name;
    const values = cmd.args.map((a) => a.value);
    const family = codeFamily(name);

    if (family) {
      for (const i of inlineCodeArgs(cmd)) {
        const code = cmd.args[i]!;
        const subs = subsOf(i);
        if (subs.length > 0) this.result.feeds.push({ sink: cmd, feeders: subs, channel: 'command_substitution' });
        if (hasUnknown(code.value)) continue;
        if (family === 'shell') {
          // `sh -c CODE a0 a1 …`: the words after CODE are $0, $1, … inside it.
          const env = new Map(ctx.env);
          const positional = cmd.args
            .slice(i + 1)
            .map((w) => w.value)
            .filter((v) => !hasUnknown(v));
          positional.forEach((v, k) => env.set(String(k), [v]));
          if (positional.length > 1) env.set('@', positional.slice(1).slice(0, 16));
          if (positional.length > 1) env.set('*', [positional.slice(1).join(' ')]);
          for (const v of allValues(code)) nested(v, 'inline_shell', ctx.hidden, env);
        } else {
          this.result.inlineCode.push({ command: cmd, code: code.value });
          for (const lit of stringLiterals(code.value)) nested(lit, 'code_literal', true);
          // AppleScript's `do shell script "rm -rf " & "~"`, Terminal's `do script`, keystrokes (appleScript.ts).
          if (family === 'osascript')
            for (const line of appleScriptCommands(code.value)) nested(line, 'code_literal', true);
        }
      }
      // `bash <(curl …)`, `python3 "$(curl …)"`: whatever the substitution yields becomes the program.
      cmd.args.forEach((a, i) => {
        const subs = subsOf(i);
        if (subs.length === 0 || inlineCodeArgs(cmd).includes(i)) return;
        const channel = subs.some((s) => s.via === 'process_substitution')
          ? 'process_substitution'
          : 'command_substitution';
        this.result.feeds.push({ sink: cmd, feeders: subs, channel });
      });
    }

    if (isAwk(name)) {
      const prog = awkProgram(values);
      if (prog.index !== undefined) {
        const code = values[prog.index]!;
        if (!hasUnknown(code)) {
          this.result.inlineCode.push({ command: cmd, code });
          for (const lit of stringLiterals(code)) nested(lit, 'code_literal', true);
        }
      }
    }

    switch (name) {
      case 'eval': {
        const subs = cmd.args.flatMap((_, i) => subsOf(i));
        if (subs.length > 0) this.result.feeds.push({ sink: cmd, feeders: subs, channel: 'command_substitution' });
        const text = values.join(' ');
        if (!hasUnknown(text)) nested(text, 'inline_shell');
        break;
      }
      case 'source':
      case '.': {
        const subs = cmd.args.flatMap((_, i) => subsOf(i));
        if (subs.length > 0) {
          const channel = subs.some((s) => s.via === 'process_substitution')
            ? 'process_substitution'
            : 'command_substitution';
          this.result.feeds.push({ sink: cmd, feeders: subs, channel });
        }
        break;
      }
      case 'trap': {
        const action = values[0];
        if (action !== undefined && !action.startsWith('-') && !hasUnknown(action)) nested(action, 'inline_shell');
        break;
      }
      case 'alias':
        for (const v of values) {
          const eq = v.indexOf('=');
          if (eq > 0) nested(v.slice(eq + 1), 'config_value', true);
        }
        if (!ctx.hidden) this.result.riskyAssignments.push('alias');
        break;
      case 'find':
      case 'gfind':
        for (let i = 0; i < cmd.args.length; i++) {
          if (!/^-(exec|execdir|ok|okdir)$/.test(values[i]!)) continue;
          let end = i + 1;
          while (end < cmd.args.length && values[end] !== ';' && values[end] !== '+') end++;
          this.execOption(cmd.args.slice(i + 1, end), ctx);
          i = end;
        }
        break;
      case 'fd':
      case 'fdfind':
        for (let i = 0; i < cmd.args.length; i++) {
          if (!/^(-x|--exec|-X|--exec-batch)$/.test(values[i]!)) continue;
          let end = i + 1;
          while (end < cmd.args.length && values[end] !== ';') end++;
          this.execOption(cmd.args.slice(i + 1, end), ctx);
          i = end;
        }
        break;
      case 'git':
        this.gitCode(values, nested, ctx);
        break;
      case 'defaults':
      case 'plutil':
      case 'plistbuddy':
        // Values put into a property list (a launch agent's ProgramArguments) run later: each value, the
        // values after `-array` joined as one command, JSON arrays joined, PlistBuddy's `string '…'` values.
        for (const code of plistValueCode(name, values)) nested(code, 'config_value', true);
        break;
      case 'launchctl': {
        // `launchctl submit -l L -- CMD…`, `launchctl asuser UID CMD…`, `launchctl bsexec PID CMD…` run CMD.
        const verb = values[0];
        if (verb === 'submit') {
          const dd = values.indexOf('--');
          let start = dd + 1;
          if (dd === -1) {
            start = 1;
            while (start < values.length && /^-[lpoe]$/.test(values[start]!)) start += 2;
          }
          this.execOption(cmd.args.slice(start), ctx);
        } else if (verb === 'asuser' || verb === 'bsexec') {
          this.execOption(cmd.args.slice(2), ctx);
        }
        break;
      }
      case 'npm':
      case 'pnpm':
      case 'yarn':
      case 'bun':
      case 'npx':
      case 'pnpx':
      case 'bunx':
      case 'uvx':
      case 'pipx': {
        this.packageRunner(cmd, values, nested, ctx);
        break;
      }
      case 'ssh':
      case 'scp':
      case 'sftp':
      case 'autossh':
      case 'rsync':
        this.remoteShell(cmd, values, nested, ctx);
        break;
      case 'parallel':
        this.parallelJobs(cmd, values, nested, ctx);
        break;
      case 'ln': {
        if (ctx.hidden) break;
        const symbolic = values.some((v) => v === '--symbolic' || (/^-[A-Za-z]+$/.test(v) && v.includes('s')));
        if (!symbolic) break;
        const ops = values.filter((v) => !v.startsWith('-'));
        const tIdx = values.findIndex((v) => v === '-t' || v.startsWith('--target-directory'));
        if (tIdx !== -1) break;
        if (ops.length === 1)
          this.result.links.push({ link: ops[0]!.replace(/\/+$/, '').split('/').pop() || ops[0]!, target: ops[0]! });
        else if (ops.length === 2) this.result.links.push({ link: ops[1]!, target: ops[0]! });
        break;
      }
      case 'cd':
      case 'pushd': {
        const target = values.find((v) => !v.startsWith('-') || v === '-');
        this.result.cdTargets.push(target === undefined ? '~' : target === '-' ? UNKNOWN : target);
        break;
      }
      default:
        break;
    }
  }

  /**
   * git runs programs named in its configuration: `-c key=VALUE`, `ext::CMD` transport URLs, and
   * `git config core.pager 'CMD'` (and the other keys whose value is a program it runs later).
   */
  gitCode(values: string[], nested: (text: string, via: CommandVia, hidden?: boolean) => void, ctx: Ctx): void {
    for (let i = 0; i + 1 < values.length; i++) {
      if (values[i] !== '-c') continue;
      const kv = values[i + 1]!;
      const v = kv.slice(kv.indexOf('=') + 1).replace(/^!/, '');
      if (v && !hasUnknown(v)) nested(v, 'config_value', true);
      if (!ctx.hidden) this.result.riskyAssignments.push(`git -c ${kv.split('=')[0]}`);
    }
    for (const v of values) {
      // `ext::CMD` URLs make git run CMD as the transport.
      if (/^ext::/i.test(v)) nested(extTransportCommand(v.slice(5)), 'config_value', true);
    }
    // `git config [--global] core.pager 'CMD'`: the value is a program git runs later.
    const sub = values.findIndex((v) => v === 'config');
    if (sub !== -1) {
      const rest = values.slice(sub + 1).filter((v) => !v.startsWith('-'));
      if (
        rest.length >= 2 &&
        /(^|\.)(pager|editor|sshcommand|fsmonitor|external|textconv|command|program|clean|smudge|process|askpass|hookspath|cmd|path|browser|viewer|gitproxy)$|^alias\./i.test(
          rest[0]!,
        )
      ) {
        nested(rest[1]!.replace(/^!/, ''), 'config_value', true);
      }
    }
  }

  /** GNU parallel runs its template once per item (`parallel CMD {} ::: a b`), or each item as a command. */
  parallelJobs(
    cmd: SimpleCommand,
    values: string[],
    nested: (text: string, via: CommandVia, hidden?: boolean) => void,
    ctx: Ctx,
  ): void {
    const sep = values.findIndex((v) => v === ':::' || v === '::::' || v === ':::+');
    const items = sep === -1 ? [] : values.slice(sep + 1).filter((v) => !v.startsWith(':::'));
    let start = 0;
    while (start < (sep === -1 ? values.length : sep) && values[start]!.startsWith('-')) {
      start +=
        /^-(j|S|P|n|N|L|l|a|d|I|E|C)$|^--(jobs|sshlogin|arg-file|delimiter|colsep|timeout|joblog|results|tmpdir|workdir|env|max-args)$/.test(
          values[start]!,
        )
          ? 2
          : 1;
    }
    const template = cmd.args.slice(start, sep === -1 ? undefined : sep);
    const hidden: Ctx = { ...ctx, depth: ctx.depth + 1, via: 'exec_option', hidden: true };
    if (template.length === 0) for (const it of items.slice(0, 8)) nested(it, 'wrapper_string', true);
    else if (items.length === 0) this.fromWords(template, [], [], { ...hidden, hidden: ctx.hidden });
    else {
      for (const it of items.slice(0, 8)) {
        const filled = template.some((w) => w.value.includes('{}'))
          ? template.map((w) => plainWord(w.value.replaceAll('{}', it)))
          : [...template, plainWord(it)];
        this.fromWords(filled, [], [], hidden);
      }
    }
  }

  /**
   * Package runners run a program: `npm exec -- CMD…`, `npx PKG …`, `pnpm dlx`, `yarn dlx`, `bun x`,
   * `uvx`, `pipx run`; `npm exec -c 'CMD'` runs a shell string.
   */
  packageRunner(
    cmd: SimpleCommand,
    values: string[],
    nested: (text: string, via: CommandVia, hidden?: boolean) => void,
    ctx: Ctx,
  ): void {
    let start = 0;
    const name = cmd.name;
    if (['npm', 'pnpm', 'yarn', 'bun', 'pipx'].includes(name)) {
      const verb = values.findIndex((v) => !v.startsWith('-'));
      if (verb === -1 || !['exec', 'x', 'dlx', 'run'].includes(values[verb]!)) return;
      // `npm run` / `yarn run` run package scripts, not a command given here.
      if (values[verb] === 'run' && name !== 'pipx') return;
      start = verb + 1;
    }
    for (let i = start; i < values.length; i++) {
      const v = values[i]!;
      if (v === '-c' || v === '--call') {
        const code = values[i + 1];
        if (code !== undefined && !hasUnknown(code)) nested(code, 'wrapper_string');
        return;
      }
      if (v.startsWith('--call=')) {
        nested(v.slice(7), 'wrapper_string');
        return;
      }
      if (v === '--') {
        start = i + 1;
        break;
      }
      if (v.startsWith('-')) {
        if (/^(-p|--package|--spec|-w|--workspace|--python)$/.test(v)) i++;
        start = i + 1;
        continue;
      }
      start = i;
      break;
    }
    const words = cmd.args.slice(start);
    if (words.length === 0) return;
    // `rimraf@5` is the program rimraf (a scoped `@scope/pkg@1` keeps its scope).
    const program = plainWord(words[0]!.value.replace(/(.)@[^/]*$/, '$1'));
    this.execOption([program, ...words.slice(1)], ctx);
  }

  /**
   * ssh-family programs run local commands from options (`-o ProxyCommand=…`, `scp -S prog`, `rsync -e
   * 'CMD'`); `ssh HOST CMD` runs CMD on the other machine (read as hidden code: deleting a home folder is
   * no better there).
   */
  remoteShell(
    cmd: SimpleCommand,
    values: string[],
    nested: (text: string, via: CommandVia, hidden?: boolean) => void,
    ctx: Ctx,
  ): void {
    const LOCAL_COMMAND_KEYS = /^(proxycommand|localcommand|knownhostscommand|remotecommand)\s*[= ]\s*([\s\S]+)$/i;
    const config = (kv: string) => {
      const m = LOCAL_COMMAND_KEYS.exec(kv.trim());
      if (m && !hasUnknown(m[2]!)) nested(m[2]!.replace(/%[a-zA-Z%]/g, 'x'), 'config_value', true);
      if (m && !ctx.hidden) this.result.riskyAssignments.push(`${cmd.name} -o ${m[1]}`);
    };
    if (cmd.name === 'rsync') {
      for (let i = 0; i < values.length; i++) {
        const v = values[i]!;
        let shell: string | undefined;
        if (v === '--rsh' || /^-[A-Za-z]*e$/.test(v)) shell = values[++i];
        else if (v.startsWith('--rsh=')) shell = v.slice(6);
        else if (/^-e./.test(v)) shell = v.slice(2);
        if (shell !== undefined && !hasUnknown(shell)) {
          nested(shell, 'config_value', true);
          if (!ctx.hidden) this.result.riskyAssignments.push('rsync -e');
        }
      }
      return;
    }
    const SSH_VALUE = 'BbcDEeFIiJLlmOopQRSWw';
    let i = 0;
    for (; i < values.length; i++) {
      const v = values[i]!;
      if (v === '--') {
        i++;
        break;
      }
      if (!v.startsWith('-') || v.length < 2) break;
      for (let k = 1; k < v.length; k++) {
        const ch = v[k]!;
        const valueShort = cmd.name === 'ssh' || cmd.name === 'autossh' ? SSH_VALUE : 'cDFiJlloPSsX';
        if (!valueShort.includes(ch)) continue;
        const value = v.slice(k + 1) || values[++i];
        if (value === undefined) break;
        if (ch === 'o') config(value);
        else if (ch === 'S' && cmd.name !== 'ssh' && cmd.name !== 'autossh' && !hasUnknown(value)) {
          nested(value, 'config_value', true);
          if (!ctx.hidden) this.result.riskyAssignments.push(`${cmd.name} -S`);
        }
        break;
      }
    }
    if (cmd.name !== 'ssh' && cmd.name !== 'autossh') return;
    const remote = values.slice(i + 1);
    if (remote.length > 0 && !remote.some(hasUnknown)) nested(remote.join(' '), 'wrapper_string', true);
  }

  /** `find … -exec CMD {} ;` runs CMD once per file: it is a command of its own. */
  execOption(words: ShellWord[], ctx: Ctx): void {
    // fromWords registers the command and anything it carries.
    if (words.length > 0) this.fromWords(words, [], [], { ...ctx, depth: ctx.depth + 1, via: 'exec_option' });
  }

  redirect(node: Node, ctx: Ctx): RedirectInfo {
    const inner: SimpleCommand[] = [];
    if (node.type === 'heredoc_redirect') {
      const body = node.namedChildren.find((c) => c?.type === 'heredoc_body');
      const start = node.namedChildren.find((c) => c?.type === 'heredoc_start');
      const text = body?.text ?? '';
      // An unquoted delimiter lets `$( )` in the body run; the parser already split those out.
      if (body && !/['"\\]/.test(start?.text ?? '')) inner.push(...this.children(body, ctx));
      return {
        redirect: { operator: node.child(0)?.text ?? '<<', kind: 'heredoc', target: text, targetDynamic: false },
        inner,
        stdinText: text,
        fromProcess: false,
        node,
      };
    }
    if (node.type === 'herestring_redirect') {
      const target = node.namedChildren.find((c) => c && c.type !== 'file_descriptor');
      const w = target ? this.word(target, ctx, inner) : plainWord('');
      return {
        redirect: { operator: '<<<', kind: 'herestring', target: w.value, targetDynamic: w.dynamic },
        inner,
        ...(hasUnknown(w.value) ? {} : { stdinText: w.value }),
        fromProcess: false,
        node,
      };
    }
    // file_redirect: [descriptor] operator destination
    let operator = '>';
    let dest: Node | undefined;
    for (const c of node.children) {
      if (!c) continue;
      if (!c.isNamed) {
        if (dest === undefined) operator = c.text;
      } else if (c.type !== 'file_descriptor' && c.type !== 'ERROR' && dest === undefined) dest = c;
      // tree-sitter-bash reads `>& /dev/tcp/h/p 0>&1` as one redirection with two destinations; the first is the target.
    }
    const whole = dest ? this.word(dest, ctx, inner) : plainWord('');
    const w = whole.fields?.[0] ?? whole;
    const fromProcess = dest?.type === 'process_substitution';
    let kind: Redirect['kind'];
    if (operator === '<') kind = 'read';
    else if ((operator === '>&' || operator === '<&') && /^([0-9]+-?|-)$/.test(w.value)) kind = 'duplicate';
    else if (operator === '<&') kind = 'duplicate';
    else kind = 'write';
    return {
      redirect: { operator, kind, target: w.value, targetDynamic: w.dynamic, display: w.display },
      inner,
      fromProcess,
      node,
    };
  }

  attachRedirects(cmd: SimpleCommand, redirects: RedirectInfo[], ctx: Ctx, found: SimpleCommand[]): void {
    for (const r of redirects) {
      cmd.redirects.push(r.redirect);
      found.push(...r.inner);
      if (!ctx.hidden) {
        this.result.redirects.push(r.redirect);
        if (r.redirect.kind === 'write' && !BENIGN_WRITE_TARGETS.test(r.redirect.target))
          this.result.fileWrites.push(r.redirect);
      }
      if (cmd.wrappers.includes('xargs') && r.stdinText !== undefined) {
        // `xargs rm -rf <<< /`: the here-string's words become arguments.
        this.xargsVariants(cmd, r.stdinText.split(/\s+/).filter(Boolean), ctx);
      }
      if (cmd.name === 'crontab' && r.stdinText !== undefined && readsCrontabFromStdin(cmd))
        this.cronText(r.stdinText, ctx.depth);
      if (!readsProgramFromStdin(cmd)) continue;
      if (r.inner.length > 0 && (r.fromProcess || r.redirect.kind === 'herestring')) {
        this.result.feeds.push({
          sink: cmd,
          feeders: r.inner,
          channel: r.fromProcess ? 'process_substitution' : 'herestring',
        });
      }
      if (r.stdinText !== undefined && r.stdinText.trim()) {
        found.push(
          ...this.parseAndCollect(
            r.stdinText,
            { ...ctx, depth: ctx.depth + 1, via: 'fed_script', env: new Map(ctx.env) },
            true,
          ),
        );
      }
    }
  }

  redirected(node: Node, ctx: Ctx): SimpleCommand[] {
    const body = node.childForFieldName('body');
    const found: SimpleCommand[] = [];
    const redirectInfos: RedirectInfo[] = [];
    const continuation: Node[] = [];
    const others: Node[] = [];
    for (const c of node.namedChildren) {
      if (!c || (body && c.equals(body))) continue;
      if (REDIRECT_TYPES.has(c.type)) {
        redirectInfos.push(this.redirect(c, ctx));
        if (c.type === 'heredoc_redirect') {
          // `cat <<EOF | sh` parses with the rest of the pipeline inside the heredoc redirection.
          for (const s of c.namedChildren) {
            if (!s || ['heredoc_start', 'heredoc_body', 'heredoc_end'].includes(s.type)) continue;
            if (s.type === 'pipeline' && s.child(0)?.text.startsWith('|')) continuation.push(s);
            else others.push(s);
          }
        }
      }
    }
    const bodyCmds = body ? this.collect(body, ctx) : [];
    const directCmds = bodyCmds.filter((c) => c.depth === ctx.depth && c.via === ctx.via);
    // `a | b > f` redirects b's output: bash applies a pipeline's trailing redirection to its last stage. So does
    // `a && b > f` (tree-sitter-bash puts the redirection around the whole list; bash gives it to b).
    const last = body?.type === 'pipeline' || body?.type === 'list';
    const direct = last ? directCmds[directCmds.length - 1] : directCmds[0];
    const bodyIsCommand = body?.type === 'command' || body?.type === 'pipeline' || body?.type === 'list';
    if (direct && bodyIsCommand) {
      this.attachRedirects(direct, redirectInfos, ctx, found);
    } else {
      for (const r of redirectInfos) {
        found.push(...r.inner);
        if (!ctx.hidden) {
          this.result.redirects.push(r.redirect);
          if (r.redirect.kind === 'write' && !BENIGN_WRITE_TARGETS.test(r.redirect.target))
            this.result.fileWrites.push(r.redirect);
        }
      }
    }
    found.unshift(...bodyCmds);
    if (continuation.length > 0) {
      const stageNodes = continuation.flatMap((p) =>
        p.namedChildren.filter((c): c is Node => !!c && c.type !== 'comment'),
      );
      const heredocText = redirectInfos.find((r) => r.redirect.kind === 'heredoc')?.stdinText;
      found.push(...this.pipeline(stageNodes, [bodyCmds], ctx, heredocText));
    }
    for (const s of others) found.push(...this.collect(s, ctx));
    return found;
  }

  /**
   * Pipelines carry data from one stage to the next; a stage that reads its program from stdin turns
   * whatever earlier stages print into code. `leading` holds stages already collected (heredoc case).
   */
  pipeline(stageNodes: Node[], leading: SimpleCommand[][], ctx: Ctx, leadingStdinText?: string): SimpleCommand[] {
    const stages: SimpleCommand[][] = [...leading];
    for (const s of stageNodes) stages.push(this.collect(s, ctx));
    if (!ctx.hidden) this.result.pipelines.push(stages);
    const found: SimpleCommand[] = stages.slice(leading.length).flat();
    for (let j = 1; j < stages.length; j++) {
      const direct = stages[j]!.filter((c) => c.depth === ctx.depth && c.via === ctx.via);
      const before = stages.slice(0, j).flat();
      const prev = stages[j - 1]!.filter((c) => c.depth === ctx.depth && c.via === ctx.via);
      // Every command in a later stage inherits the pipe as its input — also inside `$( )`, `>( )` or `sh -c`.
      for (const sink of stages[j]!) {
        if (
          !direct.includes(sink) &&
          readsProgramFromStdin(sink) &&
          !sink.redirects.some((r) => r.kind === 'heredoc' || r.kind === 'herestring' || r.kind === 'read')
        ) {
          this.result.feeds.push({ sink, feeders: before, channel: 'pipe' });
        }
      }
      for (const sink of direct) {
        if (readsProgramFromStdin(sink)) {
          this.result.feeds.push({ sink, feeders: before, channel: 'pipe' });
          const text =
            (prev.length === 1 && stages[j - 1]!.length === 1 ? emittedText(prev[0]!) : undefined) ??
            (j === 1 && leading.length === 1 ? leadingStdinText : undefined);
          if (text !== undefined && text.trim()) {
            found.push(
              ...this.parseAndCollect(
                text,
                { ...ctx, depth: ctx.depth + 1, via: 'fed_script', env: new Map(ctx.env) },
                true,
              ),
            );
          }
        }
        if (sink.wrappers.includes('xargs') && prev.length >= 1) {
          // `echo / | xargs rm -rf`, `find ~ | xargs rm -rf`: the feeder's operands become the sink's arguments.
          const fed = prev.flatMap(
            (feeder) =>
              emittedText(feeder)?.split(/\s+/).filter(Boolean) ??
              (feeder.name === 'find' || feeder.name === 'ls'
                ? feeder.args.map((a) => a.value).filter((v) => !v.startsWith('-'))
                : []),
          );
          this.xargsVariants(sink, fed, ctx);
        }
        const texts = prev.map(emittedText);
        const known = texts.filter((t): t is string => t !== undefined);
        if (sink.name === 'crontab' && readsCrontabFromStdin(sink) && known.length > 0)
          this.cronText(known.join('\n'), ctx.depth);
        if (sink.name === 'tee' && known.length > 0 && known.length === texts.length && !ctx.hidden) {
          const append = sink.args.some((a) => /^-[A-Za-z]*a/.test(a.value) || a.value === '--append');
          for (const f of filesWritten({ ...sink, redirects: [] }))
            this.teeTexts.push({ path: f, text: known.join('\n'), append });
        }
      }
    }
    return found;
  }

  /**
   * What `xargs CMD` runs when its input is known: CMD with the items appended, or with `-I R` each item
   * put in place of R (also inside an `sh -c` string). Hidden readings: the input is a guess.
   */
  xargsVariants(sink: SimpleCommand, items: string[], ctx: Ctx): void {
    if (items.length === 0) return;
    const hidden: Ctx = { ...ctx, depth: ctx.depth + 1, via: 'fed_script', hidden: true, env: new Map(ctx.env) };
    const program = plainWord(sink.program);
    const R = sink.xargsReplace;
    const made: SimpleCommand[] = [];
    if (R !== undefined && R !== '') {
      for (const item of items.slice(0, 8)) {
        made.push(
          ...this.fromWords(
            [program, ...sink.args.map((a) => plainWord(a.value.replaceAll(R, item)))],
            [],
            [],
            hidden,
          ).slice(0, 1),
        );
      }
    } else {
      made.push(
        ...this.fromWords([program, ...sink.args, ...items.slice(0, 16).map(plainWord)], [], [], hidden).slice(0, 1),
      );
    }
    // The variant is what xargs runs: it keeps the sink's wrappers (rules about xargs-fed commands look for them).
    for (const m of made) m.wrappers = [...new Set([...sink.wrappers, ...m.wrappers])];
  }

  functionDefinition(node: Node, ctx: Ctx): SimpleCommand[] {
    const name = (node.childForFieldName('name')?.text ?? '').toLowerCase();
    const body = node.childForFieldName('body');
    const cmds = body ? this.collect(body, { ...ctx, via: ctx.via === 'line' ? 'function_body' : ctx.via }) : [];
    const bodyText = body?.text ?? '';
    this.result.functions.push({
      name,
      body: cmds,
      selfCalls: cmds.filter((c) => c.name === name).length,
      backgrounds: /(^|[^&>])&(?![&>])/.test(bodyText),
    });
    return cmds;
  }

  noteAssignment(name: string, value: ShellWord, ctx: Ctx): void {
    if (ctx.hidden) return;
    if (isRiskyVariable(name)) this.result.riskyAssignments.push(name);
    if (name === 'HOME') this.result.homeValues.push(...allValues(value).filter((v) => !hasUnknown(v)));
    if (COMMAND_VARIABLES.has(name) && !hasUnknown(value.value) && value.value.trim()) {
      this.parseAndCollect(
        value.value,
        { ...ctx, depth: ctx.depth + 1, via: 'config_value', hidden: true, env: new Map(ctx.env) },
        true,
      );
    }
  }

  assignment(node: Node, ctx: Ctx): SimpleCommand[] {
    const capture: SimpleCommand[] = [];
    const nameNode = node.childForFieldName('name');
    const valueNode = node.childForFieldName('value');
    const name = nameNode?.type === 'variable_name' ? nameNode.text : '';
    if (nameNode && nameNode.type !== 'variable_name') this.wordEnv(ctx, capture).nested(nameNode);
    const value = valueNode ? this.word(valueNode, ctx, capture, { assignment: true }) : plainWord('');
    if (name) {
      ctx.env.set(name, allValues(value));
      this.noteAssignment(name, value, ctx);
    }
    return capture;
  }

  /** `export A=1`, `declare -x B=$(…)`, `local`, `readonly`, `unset X`: one command whose arguments are assignments. */
  declaration(node: Node, ctx: Ctx): SimpleCommand[] {
    const keyword = node.child(0)?.text ?? 'declare';
    const found: SimpleCommand[] = [];
    const args: ShellWord[] = [];
    for (const c of node.namedChildren) {
      if (!c) continue;
      if (c.type === 'variable_assignment') {
        found.push(...this.assignment(c, ctx));
        args.push(plainWord(c.text));
      } else {
        const capture: SimpleCommand[] = [];
        args.push(this.word(c, ctx, capture));
        found.push(...capture);
      }
    }
    const made = this.fromWords([plainWord(keyword), ...args], [], [], ctx);
    return [...made, ...found];
  }

  forLoop(node: Node, ctx: Ctx): SimpleCommand[] {
    const found: SimpleCommand[] = [];
    const variable = node.childForFieldName('variable')?.text;
    const values: string[] = [];
    let known = true;
    let sawIn = false;
    const body = node.childForFieldName('body');
    for (const c of node.namedChildren) {
      if (!c || c.type === 'variable_name' || c.type === 'comment') continue;
      if (body && c.equals(body)) continue;
      sawIn = true;
      const capture: SimpleCommand[] = [];
      const w = this.word(c, ctx, capture);
      found.push(...capture);
      for (const v of (w.fields ?? [w]).flatMap(allValues)) {
        if (hasUnknown(v)) known = false;
        else values.push(v);
      }
    }
    if (variable) {
      if (known && sawIn && values.length > 0) ctx.env.set(variable, values.slice(0, 16));
      else ctx.env.delete(variable);
    }
    if (body) found.push(...this.collect(body, ctx));
    return found;
  }
}

/** git's `ext::` transport: arguments split at spaces; `% ` is a space inside one, `%%` a percent sign. */
function extTransportCommand(body: string): string {
  const args: string[] = [];
  let cur = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === '%' && i + 1 < body.length) {
      const n = body[++i]!;
      cur += n === ' ' ? ' ' : n === '%' ? '%' : 'x';
    } else if (c === ' ') {
      if (cur) args.push(cur);
      cur = '';
    } else cur += c;
  }
  if (cur) args.push(cur);
  return args.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
}

/** `crontab` with no file operand (or `-`) installs what it reads on stdin. */
function readsCrontabFromStdin(cmd: SimpleCommand): boolean {
  const values = cmd.args.map((a) => a.value);
  if (values.some((v) => /^-[A-Za-z]*[lre]/.test(v))) return false;
  let i = 0;
  while (i < values.length && values[i]!.startsWith('-') && values[i] !== '-') i += values[i] === '-u' ? 2 : 1;
  return i >= values.length || values[i] === '-';
}

/** What a command prints to its standard output, when static (nothing if its output goes to a file). */
function emittedText(cmd: SimpleCommand): string | undefined {
  return cmd.redirects.some((r) => r.kind === 'write') ? undefined : staticOutput(cmd);
}

/**
 * tree-sitter-bash reads a newline followed by a backslash (`ls⏎\rm x`) as one word continuing the previous
 * command, where bash runs two commands. A word holding an unescaped newline means the tree is wrong.
 */
function mergedLines(root: Node, text: string): boolean {
  if (!text.includes('\n')) return false;
  if (root.descendantsOfType('word').some((w) => w !== null && /(^|[^\\])\n/.test(w.text))) return true;
  // A bare newline between two words of one command also means two commands were read as one.
  return root.descendantsOfType('command').some((c) => {
    if (!c) return false;
    const kids = c.children.filter((k): k is Node => k !== null);
    for (let i = 1; i < kids.length; i++) {
      // Include the character before the gap: a newline escaped by a backslash is a line continuation.
      if (/[^\\]\n/.test(text.slice(Math.max(0, kids[i - 1]!.endIndex - 1), kids[i]!.startIndex))) return true;
    }
    return false;
  });
}

/** Quoted string literals inside a program in another language: shell commands often hide there. */
/** Expressions for the home folder in common languages: read as `~` when looking for commands in code. */
const HOME_EXPRESSIONS =
  /os\.path\.expanduser\(\s*(['"])~\1\s*\)|Path\.home\(\)|os\.homedir\(\)|require\(\s*['"](node:)?os['"]\s*\)\.homedir\(\)|process\.env\.HOME|\$ENV\{\s*['"]?HOME['"]?\s*\}|ENV\[\s*['"]HOME['"]\s*\]|os\.environ\[\s*['"]HOME['"]\s*\]|os\.getenv\(\s*['"]HOME['"]\s*\)|getenv\(\s*['"]HOME['"]\s*\)|Dir\.home|File\.expand_path\(\s*['"]~['"]\s*\)|\$HOME\b/g;

/**
 * Quoted string literals inside a program in another language: shell commands often hide there. Besides
 * each literal with a space in it, a run of literals in an argument list (`system("rm", "-rf", $ENV{HOME})`,
 * `["rm","-rf","/"]`) is joined into one command, and `"rm -rf " + home` is joined too.
 */
export function stringLiterals(code: string): string[] {
  const out: string[] = [];
  const homed = code.replace(HOME_EXPRESSIONS, '"~"');
  const re = /"((?:\\.|[^"\\])*)"|'((?:\\.|[^'\\])*)'|`((?:\\.|[^`\\])*)`/g;
  const literals: Array<{ text: string; start: number; end: number }> = [];
  for (let m = re.exec(homed); m && literals.length < 64; m = re.exec(homed)) {
    literals.push({
      text: (m[1] ?? m[2] ?? m[3] ?? '').replace(/\\(["'`\\])/g, '$1'),
      start: m.index,
      end: m.index + m[0].length,
    });
  }
  for (const l of literals) if (/[a-z]/i.test(l.text) && l.text.includes(' ') && out.length < 16) out.push(l.text);
  // Runs of literals separated only by commas (an argument list) or `+` / `.` (concatenation).
  let run: string[] = [];
  let joiner = ' ';
  const flush = () => {
    if (run.length > 1 && out.length < 24)
      out.push(
        run
          .join(joiner === '+' ? '' : ' ')
          .replace(/\s+/g, ' ')
          .trim(),
      );
    run = [];
  };
  literals.forEach((l, i) => {
    const prev = literals[i - 1];
    const between = prev ? homed.slice(prev.end, l.start) : '';
    if (prev && /^\s*,\s*$/.test(between)) {
      joiner = ' ';
      run.push(l.text);
    } else if (prev && /^\s*[+.]\s*$/.test(between)) {
      joiner = '+';
      run.push(l.text);
    } else {
      flush();
      run = [l.text];
    }
  });
  flush();
  return out;
}

/** Recursive-delete calls of common languages aimed at the home folder or the root (`shutil.rmtree(os.path.expanduser("~"))`). */
export function deletesHomeInCode(code: string): string | undefined {
  const homed = code.replace(HOME_EXPRESSIONS, '"~"');
  const call =
    /\b(rmtree|rm_rf|rm_r|remove_tree|rmSync|rmdirSync|rimraf(?:\.sync)?|removeSync|emptyDirSync|deleteRecursively|remove_dir_all|RemoveAll|rm)\s*\(\s*(['"])(~|\/|~\/)\2/;
  const m = call.exec(homed);
  if (!m) return undefined;
  // `fs.rmSync(x)` without recursive:true cannot remove a folder; rmtree and friends always recurse.
  if (/^(rmSync|rmdirSync|rm)$/.test(m[1]!) && !/recursive\s*:\s*true|recursive\s*=\s*True/.test(homed))
    return undefined;
  return `${m[1]}(${m[3] === '/' ? '/' : '~'})`;
}

/** Quotes a word for a shell line built from a list of arguments (`["sh","-c","x y"]` → `sh -c 'x y'`). */
const shellWord = (w: string): string => (/^[A-Za-z0-9_@%+=:,./~-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`);

/**
 * The command lines hidden in values a property-list tool writes (`defaults write D ProgramArguments -array
 * sh -c 'curl x | sh'`, `plutil -insert ProgramArguments -json '["sh","-c","…"]' x.plist`, `PlistBuddy -c
 * "Add :ProgramArguments:0 string '…'"`): each value alone, the values of an array joined as one command.
 */
export function plistValueCode(name: string, values: readonly string[]): string[] {
  const out: string[] = [];
  const add = (s: string) => {
    if (s.trim() && !hasUnknown(s) && out.length < 24) out.push(s);
  };
  const joinArray = (items: readonly string[]) => add(items.map(shellWord).join(' '));
  const fromJson = (text: string) => {
    try {
      const v: unknown = JSON.parse(text);
      const strings = (x: unknown): string[] =>
        typeof x === 'string'
          ? [x]
          : Array.isArray(x)
            ? x.flatMap(strings)
            : x && typeof x === 'object'
              ? Object.values(x).flatMap(strings)
              : [];
      const all = strings(v);
      for (const s of all) if (/\s/.test(s)) add(s);
      if (Array.isArray(v) && v.every((x) => typeof x === 'string')) joinArray(v as string[]);
      else if (all.length > 1) joinArray(all);
    } catch {
      // Not JSON: the value alone was added already.
    }
  };
  if (name === 'defaults') {
    const k = values.findIndex((v) => v === 'write' || v === 'import');
    if (k === -1) return out;
    const rest = values.slice(k + 2);
    for (const v of rest) if (/\s/.test(v)) add(v);
    const arr = rest.findIndex((v) => v === '-array' || v === '-array-add');
    if (arr !== -1)
      joinArray(rest.slice(arr + 1).filter((v) => !/^-(string|integer|int|float|bool|boolean|date|data)$/.test(v)));
    for (const v of rest)
      if (v.startsWith('(') || v.startsWith('{') || v.startsWith('<')) {
        // The old property-list syntax and XML: its strings.
        for (const m of v.matchAll(/"((?:\\.|[^"\\])*)"/g)) if (/\s/.test(m[1]!)) add(m[1]!);
        for (const code of plistStrings(v)) add(code);
      }
    return out;
  }
  if (name === 'plutil') {
    const k = values.findIndex((v) => /^-(insert|replace)$/.test(v));
    if (k === -1) return out;
    const typeAt = values.findIndex(
      (v, i) => i > k && /^-(string|json|xml|array|dictionary|data|date|integer|float|bool)$/.test(v),
    );
    const value = typeAt === -1 ? undefined : values[typeAt + 1];
    if (value !== undefined) {
      add(value);
      if (values[typeAt] === '-json') fromJson(value);
      if (values[typeAt] === '-xml') for (const code of plistStrings(value)) add(code);
    }
    return out;
  }
  // PlistBuddy -c "Add :ProgramArguments:0 string 'curl x | sh'" -c "Set :Program /bin/sh" file
  const strings: string[] = [];
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    const command = v === '-c' ? values[++i] : v.startsWith('-c') && v.length > 2 ? v.slice(2) : undefined;
    if (command === undefined) continue;
    const m =
      /^\s*(add|set|merge|import)\s+\S+(?:\s+(?:string|integer|bool|real|date|data|array|dict))?\s+(.*)$/is.exec(
        command,
      );
    if (!m) continue;
    const value = m[2]!.trim().replace(/^(['"])([\s\S]*)\1$/, '$2');
    add(value);
    strings.push(value);
  }
  if (strings.length > 1) joinArray(strings);
  return out;
}
