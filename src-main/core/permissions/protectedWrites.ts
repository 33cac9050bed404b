/**
 * Which files a shell command changes, and whether the line reaches one of Rein's protected places
 * (protectedPlaces.ts) by any route: redirections, `tee`, copies, moves and links (into a folder too:
 * `cp -r x ~/` can bring a `.rein`), in-place edits, archives unpacked there (`tar -C`, `unzip -d`,
 * `ditto`), property lists (`defaults write|import`, `plutil`, `PlistBuddy`), databases, deletions,
 * permission changes, any program that is not known to only read and is handed such a path, inline code
 * naming one, Rein's own CLI changing its state, and `REIN_*` variables that change what Rein does.
 */
import path from 'node:path';
import { readOnlyVerdict } from './readOnlyCommands.js';
import {
  holdsProtectedPlace,
  protectedPlace,
  protectedPlaceInText,
  type ProtectedPlace,
  type ProtectedPlaceContext,
} from './protectedPlaces.js';
import { downloadTargets, filesWritten } from './shell/commandKinds.js';
import { pathCandidates, type PathContext } from './shell/normalize.js';
import { hasUnknown, UNKNOWN, UNKNOWN_NONEMPTY, type ShellAnalysis, type SimpleCommand } from './shell/types.js';

const values = (cmd: SimpleCommand): string[] => cmd.args.map((a) => a.value);
const operands = (vals: readonly string[]): string[] => vals.filter((v) => !v.startsWith('-'));

/** The value of an option given as `-X V`, `-XV`, `--long V` or `--long=V` (the first one). */
function optionValue(vals: readonly string[], short: string | undefined, long: readonly string[]): string | undefined {
  for (let i = 0; i < vals.length; i++) {
    const v = vals[i]!;
    for (const l of long) {
      if (v === l) return vals[i + 1];
      if (v.startsWith(`${l}=`)) return v.slice(l.length + 1);
    }
    if (short && v === `-${short}`) return vals[i + 1];
    if (short && v.startsWith(`-${short}`) && v.length > 2 && !v.startsWith('--')) return v.slice(2);
  }
  return undefined;
}

/** Files a command writes: redirections, `tee`, copy/move/link destinations, in-place edits, downloads. */
export function writeTargets(cmd: SimpleCommand): string[] {
  const out = [...filesWritten(cmd), ...downloadTargets(cmd), ...readOnlyVerdict(cmd).writes];
  const vals = values(cmd);
  const ops = operands(vals);
  switch (cmd.name) {
    case 'cp':
    case 'gcp':
    case 'mv':
    case 'gmv':
    case 'install':
    case 'ginstall':
    case 'ln':
    case 'gln':
    case 'rsync':
    case 'ditto':
    case 'scp': {
      const t = vals.findIndex((v) => v === '-t' || v.startsWith('--target-directory'));
      if (t !== -1) out.push(vals[t]!.includes('=') ? vals[t]!.split('=')[1]! : (vals[t + 1] ?? ''));
      else if (ops.length >= 1) out.push(ops[ops.length - 1]!);
      break;
    }
    case 'sed':
    case 'gsed':
    case 'perl':
      if (vals.some((v) => /^-[a-zA-Z]*i/.test(v) || v.startsWith('--in-place'))) out.push(...ops.slice(1));
      break;
    case 'dd':
      for (const v of vals) if (v.startsWith('of=')) out.push(v.slice(3));
      break;
    case 'truncate':
    case 'touch':
    case 'plistbuddy':
      out.push(...ops);
      break;
    case 'plutil':
      if (vals.some((v) => /^-(convert|insert|replace|remove|create)$/.test(v))) out.push(...ops);
      break;
    default:
      break;
  }
  return out.filter((p) => p !== '' && !hasUnknown(p));
}

/** Files and folders a command changes beyond what it writes: deletions, moves away, new folders, modes. */
function otherChanges(cmd: SimpleCommand): { paths: string[]; folders: string[] } {
  const vals = values(cmd);
  const ops = operands(vals);
  const paths: string[] = [];
  /** Folders something unknown is unpacked or copied into: reaching a protected place below them counts. */
  const folders: string[] = [];
  switch (cmd.name) {
    case 'rm':
    case 'grm':
    case 'srm':
    case 'rmdir':
    case 'unlink':
    case 'shred':
    case 'mkdir':
    case 'gmkdir':
    case 'mkfifo':
    case 'mknod':
    case 'chflags':
    case 'trash':
      paths.push(...ops);
      break;
    case 'chmod':
    case 'chown':
    case 'chgrp':
    case 'gchmod':
    case 'gchown':
      paths.push(...ops.slice(1));
      break;
    case 'setfacl':
    case 'xattr':
      paths.push(...ops.slice(-1));
      break;
    case 'mv':
    case 'gmv':
      // Moving a file away changes the place it was in.
      paths.push(...ops.slice(0, -1));
      break;
    case 'ln':
    case 'gln':
      // A hard link is a second name through which the file can be changed later.
      if (!vals.some((v) => v === '--symbolic' || /^-[A-Za-z]*s/.test(v))) paths.push(...ops.slice(0, -1));
      break;
    case 'cp':
    case 'gcp':
    case 'rsync':
    case 'ditto':
    case 'scp': {
      const dest = ops[ops.length - 1];
      const sources = ops.slice(0, -1);
      // `cp -l` makes hard links instead of copies (a second name for each source); rsync --link-dest too.
      if ((cmd.name === 'cp' || cmd.name === 'gcp') && vals.some((v) => v === '--link' || /^-[A-Za-z]*l/.test(v)))
        paths.push(...sources);
      const linkDest = optionValue(vals, undefined, ['--link-dest']);
      if (linkDest !== undefined) paths.push(linkDest);
      if (dest !== undefined) {
        for (const s of sources) {
          // `rsync -a src/ dest` copies src's contents: what lands there is not known here.
          if (s.endsWith('/') || /[*?[]/.test(s) || hasUnknown(s)) folders.push(dest);
          else paths.push(path.posix.join(dest, path.posix.basename(s)));
        }
      }
      break;
    }
    case 'tar':
    case 'gtar':
    case 'bsdtar': {
      const dir = optionValue(vals, 'C', ['--directory', '--cd']);
      // `-x`, `-xzf`, `--extract`, or the old form with the letters first and no dash (`tar xzf a.tgz`).
      const extracts = vals.some(
        (v, i) =>
          v === '--extract' ||
          v === '--get' ||
          (/^-[A-Za-z]+$/.test(v) && v.includes('x')) ||
          (i === 0 && /^[A-Za-z]+$/.test(v) && v.includes('x')),
      );
      if (extracts) folders.push(dir ?? '.');
      break;
    }
    case 'unzip': {
      const dir = optionValue(vals, 'd', []);
      folders.push(dir ?? '.');
      break;
    }
    case '7z':
    case '7za':
    case '7zz': {
      const out = vals.find((v) => v.startsWith('-o'));
      if (ops[0] === 'x' || ops[0] === 'e') folders.push(out ? out.slice(2) : '.');
      break;
    }
    case 'cpio':
      if (vals.some((v) => /^-[A-Za-z]*i/.test(v) || v === '--extract'))
        folders.push(optionValue(vals, 'D', ['--directory']) ?? '.');
      break;
    case 'wget':
    case 'wget2': {
      const dir = optionValue(vals, 'P', ['--directory-prefix']);
      if (dir !== undefined) folders.push(dir);
      break;
    }
    case 'curl': {
      const dir = optionValue(vals, undefined, ['--output-dir']);
      if (dir !== undefined) folders.push(dir);
      break;
    }
    case 'git': {
      const sub = ops[0];
      if (sub === 'clone' && ops.length >= 3) paths.push(ops[ops.length - 1]!);
      break;
    }
    default:
      break;
  }
  return {
    paths: paths.filter((p) => p !== '' && !hasUnknown(p)),
    folders: folders.filter((p) => p !== '' && !hasUnknown(p)),
  };
}

/** `defaults write|import|delete|rename DOMAIN …`: the domain, when it names a file (`~/Library/LaunchAgents/x`). */
function defaultsTarget(cmd: SimpleCommand): string | undefined {
  if (cmd.name !== 'defaults') return undefined;
  const vals = values(cmd).filter((v) => v !== '-currentHost' && v !== '-host');
  const verb = vals.findIndex((v) => ['write', 'import', 'delete', 'rename'].includes(v));
  if (verb === -1) return undefined;
  const domain = vals[verb + 1];
  if (!domain || !domain.includes('/')) return undefined;
  return domain.endsWith('.plist') ? domain : `${domain}.plist`;
}

/**
 * Commands of Rein's own CLI that only look (everything else changes Rein's state or runs an agent).
 * `changes list` only looks; `changes accept|reject` confirm a permission change as the person at this
 * machine, so they are never here: a run that tries them asks a person in every mode.
 */
const REIN_READS: ReadonlyArray<readonly string[]> = [
  ['--version'],
  ['-v'],
  ['--help'],
  ['-h'],
  ['help'],
  ['sessions', 'list'],
  ['sessions', 'search'],
  ['sessions', 'show'],
  ['memory', 'show'],
  ['permissions', 'check'],
  ['schedule', 'list'],
  ['schedule', 'show'],
  ['schedule', 'logs'],
  ['heartbeat', 'status'],
  ['mcp', 'list'],
  ['agents', 'list'],
  ['agents', 'show'],
  ['trust', '--list'],
  ['changes', 'list'],
];

/** A run of Rein's own CLI (`rein …`, `npx rein …`, `node …/bin/rein.js …`), with its arguments. */
function reinInvocation(cmd: SimpleCommand): string[] | undefined {
  const vals = values(cmd);
  if (cmd.name === 'rein') return vals;
  if (
    (cmd.name === 'node' || cmd.name === 'nodejs') &&
    vals[0] !== undefined &&
    /(^|\/)(bin\/rein(\.js)?|out\/cli\/[^/]+\.c?js)$/.test(vals[0])
  )
    return vals.slice(1);
  if (['npx', 'pnpx', 'bunx'].includes(cmd.name) || (cmd.name === 'npm' && ['exec', 'x'].includes(vals[0] ?? ''))) {
    const rest = cmd.name === 'npm' ? vals.slice(1) : vals;
    const k = rest.findIndex((v) => !v.startsWith('-'));
    if (k !== -1 && /^rein(@.*)?$/.test(rest[k]!)) return rest.slice(k + 1);
  }
  if (cmd.name === 'npm' && vals[0] === 'run' && vals[1] === 'rein') return vals.slice(2).filter((v) => v !== '--');
  return undefined;
}

/** Why this run of Rein's CLI changes Rein's state (or starts runs of its agents), or undefined. */
function reinCliChange(args: readonly string[]): string | undefined {
  const words = args.filter((a) => a !== '--json' && a !== '--quiet');
  if (words.length === 0) return 'starts Rein';
  if (words.some(hasUnknown)) return 'runs Rein with arguments only known when it runs';
  const reads = REIN_READS.some((r) => r.every((w, i) => words[i] === w));
  // doctor only reads, unless --online (which starts the MCP servers' commands and calls the model).
  if (reads || (words[0] === 'doctor' && !words.includes('--online'))) return undefined;
  return `runs \`rein ${words.slice(0, 3).join(' ')}\`, which changes Rein's own state or runs its agents`;
}

/** Variables that change what Rein itself does (`REIN_SCHEDULE_PROGRAM`, `REIN_HOME`…): never set by a run unasked. */
const REIN_VARIABLE = /^REIN_[A-Za-z0-9_]*$/;
/** Variables that make a Node program (Rein's CLI) load other code or run as plain Node. */
const NODE_VARIABLE = /^(NODE_OPTIONS|NODE_PATH|ELECTRON_RUN_AS_NODE)$/;

/** Programs whose sources are only read: only their destination (writeTargets/otherChanges) counts. */
const COPIERS = new Set([
  'cp',
  'gcp',
  'rsync',
  'ditto',
  'scp',
  'install',
  'ginstall',
  'ln',
  'gln',
  'tar',
  'gtar',
  'bsdtar',
  'zip',
  'unzip',
  '7z',
  '7za',
  '7zz',
  'cpio',
  'mv',
  'gmv',
]);

export interface ProtectedContext extends ProtectedPlaceContext {
  pctx: PathContext;
}

const quote = (s: string, max = 120): string => `\`${s.length > max ? `${s.slice(0, max - 1)}…` : s}\``;

function placeOf(raw: string, ctx: ProtectedContext): ProtectedPlace | undefined {
  for (const abs of pathCandidates(raw, ctx.pctx)) {
    if (abs.includes(UNKNOWN) || abs.includes(UNKNOWN_NONEMPTY)) continue;
    const hit = protectedPlace(abs, ctx);
    if (hit) return hit;
  }
  return undefined;
}

function folderHolding(raw: string, ctx: ProtectedContext): ProtectedPlace | undefined {
  for (const abs of pathCandidates(raw, ctx.pctx)) {
    if (abs.includes(UNKNOWN) || abs.includes(UNKNOWN_NONEMPTY)) continue;
    const hit = protectedPlace(abs, ctx) ?? holdsProtectedPlace(abs, ctx);
    if (hit) return hit;
  }
  return undefined;
}

/**
 * Why the line changes one of Rein's protected places, or undefined. Every simple command counts,
 * wherever it sits (the analysis's commands and hidden readings).
 */
export function protectedWriteReason(a: ShellAnalysis, ctx: ProtectedContext): string | undefined {
  const said = (cmd: SimpleCommand, verb: string, place: ProtectedPlace) =>
    `${quote(cmd.innerText || cmd.text)} ${verb} ${place.path}, ${place.what}`;
  for (const cmd of [...a.commands, ...a.hidden]) {
    for (const t of writeTargets(cmd)) {
      const place = placeOf(t, ctx);
      if (place) return said(cmd, 'writes', place);
    }
    const other = otherChanges(cmd);
    for (const p of other.paths) {
      const place = placeOf(p, ctx);
      if (place) return said(cmd, 'changes', place);
    }
    for (const f of other.folders) {
      const place = folderHolding(f, ctx);
      if (place) return said(cmd, 'unpacks or copies files into', place);
    }
    const domain = defaultsTarget(cmd);
    if (domain) {
      const place = placeOf(domain, ctx);
      if (place) return said(cmd, 'writes', place);
    }
    const rein = reinInvocation(cmd);
    if (rein) {
      const why = reinCliChange(rein);
      if (why) return `${quote(cmd.innerText || cmd.text)} ${why}`;
      const node = cmd.assignments.find((x) => NODE_VARIABLE.test(x.name));
      if (node) return `${quote(cmd.text)} sets ${node.name}, which makes Rein's CLI load other code`;
    }
    const variable = cmd.assignments.find((x) => REIN_VARIABLE.test(x.name));
    if (variable) return `${quote(cmd.text)} sets ${variable.name}, which changes what Rein does`;
    if (
      ['export', 'declare', 'typeset', 'env', 'setenv'].includes(cmd.name) &&
      values(cmd).some((v) => REIN_VARIABLE.test(v.split('=')[0]!) && v.includes('='))
    ) {
      return `${quote(cmd.innerText || cmd.text)} sets a variable that changes what Rein does`;
    }
    if (cmd.name === 'launchctl') {
      const verb = values(cmd).find((v) => !v.startsWith('-'));
      if (
        ['load', 'bootstrap', 'enable', 'submit', 'kickstart', 'unload', 'bootout', 'disable', 'remove'].includes(
          verb ?? '',
        )
      ) {
        return `${quote(cmd.innerText || cmd.text)} changes which launch agents or daemons run (they start programs at login, boot or on a schedule)`;
      }
      // Variables set for every program launchd starts: Rein's scheduled runs among them (NODE_OPTIONS would load code into each).
      if (['setenv', 'unsetenv', 'putenv', 'config'].includes(verb ?? '')) {
        return `${quote(cmd.innerText || cmd.text)} changes the environment of every program launchd starts, Rein's scheduled runs among them`;
      }
    }
    if (
      cmd.name === 'systemctl' &&
      values(cmd).includes('--user') &&
      values(cmd).some((v) => ['enable', 'link', 'edit', 'start', 'disable', 'mask'].includes(v))
    ) {
      return `${quote(cmd.innerText || cmd.text)} changes the user services that start at login`;
    }
    // A program not known to only read, handed a protected path, may change it (`vim`, `python3 x.py ~/.rein/…`).
    if (!readOnlyVerdict(cmd).readOnly && !COPIERS.has(cmd.name) && cmd.name !== 'cd' && cmd.name !== 'pushd') {
      for (const v of values(cmd)) {
        const raw = v.includes('=') && !v.startsWith('/') && !v.startsWith('~') ? v.slice(v.indexOf('=') + 1) : v;
        if (!raw.startsWith('/') && !raw.startsWith('~') && !raw.startsWith('.') && !raw.includes('/')) continue;
        const place = placeOf(raw, ctx);
        if (place) return said(cmd, 'is handed', place);
      }
    }
  }
  for (const r of a.fileWrites) {
    const place = placeOf(r.target, ctx);
    if (place) return `the redirection \`${r.operator} ${r.target}\` writes ${place.path}, ${place.what}`;
  }
  for (const c of a.inlineCode) {
    const place = protectedPlaceInText(c.code, ctx);
    if (place) return `the inline program of ${quote(c.command.name)} names ${place.path}, ${place.what}`;
  }
  for (const name of a.riskyAssignments)
    if (REIN_VARIABLE.test(name)) return `it sets ${name}, which changes what Rein does`;
  return undefined;
}
