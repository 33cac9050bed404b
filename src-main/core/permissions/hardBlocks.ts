/**
 * Layer 1: commands no mode, flag or setting can allow. Each rule looks at every simple command the line
 * contains (at any depth, including hidden readings), so the block holds wherever the command hides.
 */
import { downloadTargets, filesWritten, isDecoder, isDownloader, isShell, scriptFileRun } from './shell/commandKinds.js';
import {
  isRawDevice,
  pathCandidates,

  protectedTarget,
  showValue,
  type PathContext,
} from './shell/normalize.js';
import type { Redirect, ShellAnalysis, SimpleCommand } from './shell/types.js';
import { allValues } from './shell/words.js';

export type HardBlockRule =
  | 'recursive-delete'
  | 'find-delete'
  | 'move-protected'
  | 'sync-delete'
  | 'recursive-permissions'
  | 'raw-disk-write'
  | 'disk-erase'
  | 'download-into-shell'
  | 'decoded-payload-into-shell'
  | 'download-then-run'
  | 'fork-bomb'
  | 'security-disable'
  | 'kill-everything';

export interface HardBlock {
  rule: HardBlockRule;
  /** One sentence naming the rule and what it caught. */
  reason: string;
}

/** Every hard-block rule with the sentence the user docs and `explain` output use. */
export const HARD_BLOCK_RULES: Record<HardBlockRule, string> = {
  'recursive-delete': 'recursive deletion of /, the home folder, a top-level system folder or a main user folder',
  'find-delete': '`find` deleting everything (not picked by name) under /, the home folder or a system folder',
  'move-protected': 'moving away /, the home folder or a system folder',
  'sync-delete': '`rsync --delete` into /, the home folder or a system folder',
  'recursive-permissions': 'recursive chmod/chown/chgrp of /, the home folder or a system folder',
  'raw-disk-write': 'writing straight to a disk device (`dd of=/dev/…`, `> /dev/disk…`)',
  'disk-erase': 'formatting or erasing a disk (`mkfs`, `newfs`, `diskutil eraseDisk|zeroDisk|partitionDisk` …)',
  'download-into-shell': 'downloaded content run as code (`curl … | sh`, `bash <(curl …)`, `sh -c "$(wget …)"`)',
  'decoded-payload-into-shell': 'decoded content run as code (`base64 -d | sh`)',
  'download-then-run': 'a file downloaded (or decoded) and run in the same line',
  'fork-bomb': 'a fork bomb',
  'security-disable': 'turning off macOS protections (`csrutil disable`, `spctl --master-disable`)',
  'kill-everything': '`kill -1`: signalling every process you own',
};

const MAX_VARIANTS = 32;

/** Every concrete argument list a command may have (brace expansion, loop values, defaults). */
function* variants(cmd: SimpleCommand): Generator<string[]> {
  let lists: string[][] = [[]];
  for (const a of cmd.args) {
    const vals = allValues(a);
    const next: string[][] = [];
    for (const l of lists) {
      for (const v of vals) {
        next.push([...l, v]);
        if (next.length >= MAX_VARIANTS) break;
      }
      if (next.length >= MAX_VARIANTS) break;
    }
    lists = next;
  }
  yield* lists;
}

interface Options {
  afterDashDash: string[];
  flags: string[];
  operands: string[];
}

/** Splits arguments GNU-style (options may follow operands; `--` ends options). */
function splitOptions(args: string[]): Options {
  const flags: string[] = [];
  const operands: string[] = [];
  const afterDashDash: string[] = [];
  let ended = false;
  for (const a of args) {
    if (ended) {
      operands.push(a);
      afterDashDash.push(a);
    } else if (a === '--') ended = true;
    else if (a.startsWith('-') && a.length > 1) flags.push(a);
    else operands.push(a);
  }
  return { afterDashDash, flags, operands };
}

const hasShort = (flags: string[], letters: string): boolean =>
  flags.some((f) => !f.startsWith('--') && [...f.slice(1)].some((c) => letters.includes(c)));

const DELETERS = new Set(['rm', 'srm', 'grm', 'unlink', 'shred', 'rmdir', 'trash']);

type Rule = (name: string, args: string[], cmd: SimpleCommand, ctx: PathContext) => HardBlock | undefined;

const block = (rule: HardBlockRule, detail: string): HardBlock => ({
  rule,
  reason: `hard block "${rule}" (${HARD_BLOCK_RULES[rule]}): ${detail}`,
});

const recursiveDelete: Rule = (name, args, cmd, ctx) => {
  if (name !== 'rm' && name !== 'srm' && name !== 'grm') return undefined;
  const o = splitOptions(args);
  if (!hasShort(o.flags, 'rR') && !o.flags.includes('--recursive')) return undefined;
  for (const t of o.operands) {
    const hit = protectedTarget(t, ctx);
    if (hit) return block('recursive-delete', `\`${cmd.innerText}\` would delete ${hit}`);
  }
  return undefined;
};

const findDelete: Rule = (name, args, cmd, ctx) => {
  if (name !== 'find' && name !== 'gfind') return undefined;
  const firstExpr = args.findIndex((a) => a.startsWith('-') || a === '(' || a === '!');
  const starts = (firstExpr === -1 ? args : args.slice(0, firstExpr)).filter((a) => !a.startsWith('-'));
  const rest = firstExpr === -1 ? [] : args.slice(firstExpr);
  let deletes = rest.includes('-delete');
  for (let i = 0; i < rest.length && !deletes; i++) {
    if (!/^-(exec|execdir|ok|okdir)$/.test(rest[i]!)) continue;
    const prog = (rest[i + 1] ?? '').toLowerCase().split('/').pop() ?? '';
    const code = rest.slice(i + 2).join(' ');
    deletes = DELETERS.has(prog) || (isShell(prog) && /\b(rm|unlink|shred)\b/.test(code));
  }
  if (!deletes) return undefined;
  // `find ~ -name '*.tmp' -delete` picks files by name; `find ~ -type f -delete` takes everything.
  const NAME_TESTS = /^-(name|iname|path|ipath|wholename|iwholename|regex|iregex|lname|ilname)$/;
  const narrowed = rest.some((a, i) => NAME_TESTS.test(a) && /[^*?.[\]/]/.test(rest[i + 1] ?? ''));
  if (narrowed) return undefined;
  for (const s of starts.length > 0 ? starts : ['.']) {
    const hit = protectedTarget(s, ctx);
    if (hit) return block('find-delete', `\`${cmd.innerText}\` would delete files throughout ${hit}`);
  }
  return undefined;
};

const moveProtected: Rule = (name, args, cmd, ctx) => {
  if (name !== 'mv' && name !== 'gmv') return undefined;
  const o = splitOptions(args);
  const targetDir = o.flags.some((f) => f === '-t' || f.startsWith('--target-directory'));
  const sources = targetDir ? o.operands : o.operands.slice(0, -1);
  for (const s of sources) {
    const hit = protectedTarget(s, ctx);
    if (hit) return block('move-protected', `\`${cmd.innerText}\` would move away ${hit}`);
  }
  return undefined;
};

const syncDelete: Rule = (name, args, cmd, ctx) => {
  if (name !== 'rsync') return undefined;
  const o = splitOptions(args);
  if (!o.flags.some((f) => f.startsWith('--del'))) return undefined;
  const dest = o.operands[o.operands.length - 1];
  if (!dest || /^[^/]*:/.test(dest)) return undefined;
  const hit = protectedTarget(dest, ctx);
  return hit ? block('sync-delete', `\`${cmd.innerText}\` would delete whatever in ${hit} is not in the source`) : undefined;
};

const recursivePermissions: Rule = (name, args, cmd, ctx) => {
  if (!['chmod', 'chown', 'chgrp', 'chflags', 'gchmod', 'gchown'].includes(name)) return undefined;
  const o = splitOptions(args);
  const recursive = hasShort(o.flags, 'R') || o.flags.includes('--recursive');
  // The first operand is the mode or owner (chmod's mode may look like an option: `chmod -x f`).
  const targets = o.operands.slice(1);
  for (const t of targets) {
    if (recursive) {
      const hit = protectedTarget(t, ctx);
      if (hit) return block('recursive-permissions', `\`${cmd.innerText}\` would change ${hit} and everything in it`);
    } else if (pathCandidates(t, ctx).includes('/')) {
      return block('recursive-permissions', `\`${cmd.innerText}\` would change the root folder /`);
    }
  }
  return undefined;
};

const rawDiskWrite: Rule = (name, args, cmd, ctx) => {
  if (name === 'dd' || name === 'gdd') {
    for (const a of args) {
      if (/^of=/i.test(a) && isRawDevice(a.slice(3), ctx)) return block('raw-disk-write', `\`${cmd.innerText}\` writes to the device ${a.slice(3)}`);
    }
  }
  if (['tee', 'shred', 'srm', 'wipe'].includes(name)) {
    const dev = splitOptions(args).operands.find((a) => isRawDevice(a, ctx));
    if (dev) return block('raw-disk-write', `\`${cmd.innerText}\` writes to the device ${dev}`);
  }
  if (['cp', 'gcp', 'install', 'ditto', 'cat', 'pv', 'ddrescue', 'asr'].includes(name)) {
    const ops = splitOptions(args).operands;
    const last = ops[ops.length - 1];
    if (last && ops.length > 1 && isRawDevice(last, ctx)) return block('raw-disk-write', `\`${cmd.innerText}\` writes to the device ${last}`);
  }
  return undefined;
};

const DISKUTIL_ERASE = new Set(['erasedisk', 'erasevolume', 'zerodisk', 'randomdisk', 'secureerase', 'partitiondisk', 'reformat', 'erasecd', 'resizevolume']);
const DISKUTIL_APFS_ERASE = new Set(['deletecontainer', 'erasevolume', 'deletevolume', 'resizecontainer']);

const diskErase: Rule = (name, args, cmd) => {
  if (/^(mkfs|newfs)/.test(name) || ['mke2fs', 'mkdosfs', 'mkntfs', 'mkswap', 'wipefs', 'mformat'].includes(name)) {
    return block('disk-erase', `\`${cmd.innerText}\` formats a disk or partition`);
  }
  if (name === 'diskutil') {
    const verbs = args.filter((a) => !a.startsWith('-')).map((a) => a.toLowerCase());
    if (DISKUTIL_ERASE.has(verbs[0] ?? '') || (verbs[0] === 'apfs' && DISKUTIL_APFS_ERASE.has(verbs[1] ?? ''))) {
      return block('disk-erase', `\`${cmd.innerText}\` erases or repartitions a disk`);
    }
  }
  if (name === 'gpt' && ['destroy', 'create', 'remove', 'migrate'].includes((args[0] ?? '').toLowerCase())) {
    return block('disk-erase', `\`${cmd.innerText}\` rewrites a partition table`);
  }
  if (name === 'sgdisk' && args.some((a) => a === '-Z' || a === '--zap-all' || a === '-o' || a === '--clear')) {
    return block('disk-erase', `\`${cmd.innerText}\` wipes a partition table`);
  }
  return undefined;
};

const securityDisable: Rule = (name, args, cmd) => {
  const lower = args.map((a) => a.toLowerCase());
  if (name === 'csrutil' && lower.some((a) => a === 'disable' || a === 'clear' || a.startsWith('--without'))) {
    return block('security-disable', `\`${cmd.innerText}\` turns off System Integrity Protection`);
  }
  if (name === 'spctl' && lower.some((a) => a === '--master-disable' || a === '--global-disable')) {
    return block('security-disable', `\`${cmd.innerText}\` turns off Gatekeeper`);
  }
  return undefined;
};

const killEverything: Rule = (name, args, cmd) => {
  if (name !== 'kill') return undefined;
  const dd = args.indexOf('--');
  const pids = dd === -1 ? args.slice(1) : args.slice(dd + 1);
  if (pids.includes('-1')) return block('kill-everything', `\`${cmd.innerText}\` signals every process you own`);
  return undefined;
};

const COMMAND_RULES: Rule[] = [
  recursiveDelete,
  findDelete,
  moveProtected,
  syncDelete,
  recursivePermissions,
  rawDiskWrite,
  diskErase,
  securityDisable,
  killEverything,
];

/** For a command name known only at run time: what it would be as one of these programs. */
const WHAT_IF_NAMES = ['rm', 'find', 'mv', 'chmod', 'chown', 'dd', 'rsync', 'kill', 'csrutil', 'spctl', 'diskutil'];

function checkCommand(cmd: SimpleCommand, ctx: PathContext): HardBlock | undefined {
  const names = cmd.nameDynamic ? WHAT_IF_NAMES : [cmd.name];
  for (const args of variants(cmd)) {
    for (const name of names) {
      for (const rule of COMMAND_RULES) {
        const hit = rule(name, args, cmd, ctx);
        if (hit) {
          if (!cmd.nameDynamic) return hit;
          return {
            rule: hit.rule,
            reason: `${hit.reason} (the command name \`${showValue(cmd.program)}\` is only known at run time; read as \`${name}\`)`,
          };
        }
      }
    }
  }
  for (const r of cmd.redirects) {
    if (r.kind === 'write' && isRawDevice(r.target, ctx)) {
      return block('raw-disk-write', `\`${cmd.innerText} ${r.operator} ${r.target}\` writes to a disk device`);
    }
  }
  return undefined;
}

function checkRedirects(redirects: Redirect[], ctx: PathContext): HardBlock | undefined {
  for (const r of redirects) {
    if (r.kind === 'write' && isRawDevice(r.target, ctx)) {
      return block('raw-disk-write', `the redirection \`${r.operator} ${r.target}\` writes to a disk device`);
    }
  }
  return undefined;
}

function checkFeeds(analysis: ShellAnalysis): HardBlock | undefined {
  for (const f of analysis.feeds) {
    const how =
      f.channel === 'pipe'
        ? 'is piped into'
        : f.channel === 'command_name'
          ? 'becomes the command name of'
          : f.channel === 'process_substitution'
            ? 'is handed as a script file to'
            : 'is substituted into the code of';
    const sink = f.sink.name || showValue(f.sink.program);
    const downloader = f.feeders.find(isDownloader);
    if (downloader) return block('download-into-shell', `the output of \`${downloader.name}\` ${how} \`${sink}\``);
    const decoder = f.feeders.find(isDecoder);
    if (decoder) return block('decoded-payload-into-shell', `the output of \`${decoder.name}\` ${how} \`${sink}\``);
    // A program only known at run time could be a downloader: its output is not run as code either.
    const unknown = f.feeders.find((c) => c.nameDynamic);
    if (unknown && f.channel !== 'command_name') {
      return block('download-into-shell', `the output of \`${showValue(unknown.program)}\` (a program only known at run time) ${how} \`${sink}\``);
    }
  }
  return undefined;
}

/** Files that hold fetched or decoded content: download targets, decoder output, anything a pipeline writes after a download. */
function fetchedFiles(analysis: ShellAnalysis, all: SimpleCommand[]): string[] {
  const out: string[] = [];
  for (const c of all) {
    out.push(...downloadTargets(c));
    if (isDecoder(c)) out.push(...filesWritten(c));
  }
  for (const stages of analysis.pipelines) {
    const first = stages.findIndex((s) => s.some((c) => isDownloader(c) || isDecoder(c)));
    if (first === -1) continue;
    for (const later of stages.slice(first + 1)) for (const c of later) out.push(...filesWritten(c));
  }
  return out;
}

function checkDownloadThenRun(analysis: ShellAnalysis, all: SimpleCommand[], ctx: PathContext): HardBlock | undefined {
  const fetched = new Set<string>();
  for (const t of fetchedFiles(analysis, all)) for (const p of pathCandidates(t, ctx)) fetched.add(p.toLowerCase());
  if (fetched.size === 0) return undefined;
  for (const c of all) {
    if (isDownloader(c)) continue;
    const script = scriptFileRun(c);
    if (script && pathCandidates(script, ctx).some((p) => fetched.has(p.toLowerCase()))) {
      return block('download-then-run', `\`${c.innerText}\` runs a file downloaded or decoded in the same line`);
    }
  }
  return undefined;
}

const FORK_LOOP = /\bfork\b[\s\S]*\b(while|until|loop|for)\b|\b(while|until|loop|for)\b[\s\S]*\bfork\b/;

function checkForkBomb(analysis: ShellAnalysis): HardBlock | undefined {
  for (const f of analysis.functions) {
    if (f.selfCalls >= 2 || (f.selfCalls >= 1 && f.backgrounds)) {
      return block('fork-bomb', `the function \`${f.name}\` starts copies of itself without end`);
    }
  }
  for (const c of analysis.inlineCode) {
    if (FORK_LOOP.test(c.code)) return block('fork-bomb', `the inline program of \`${c.command.name}\` forks in a loop`);
  }
  return undefined;
}

export interface HardBlockContext {
  home: string;
  cwd: string;
}

/** The first hard block the line hits, or undefined. Pure: no file system access. */
export function findHardBlock(analysis: ShellAnalysis, ctx: HardBlockContext): HardBlock | undefined {
  const pctx: PathContext = {
    home: ctx.home,
    cwd: ctx.cwd,
    extraHomes: analysis.homeValues,
    cdTargets: analysis.cdTargets,
  };
  const all = [...analysis.commands, ...analysis.hidden];
  for (const c of all) {
    const hit = checkCommand(c, pctx);
    if (hit) return hit;
  }
  return (
    checkRedirects(analysis.redirects, pctx) ??
    checkFeeds(analysis) ??
    checkForkBomb(analysis) ??
    checkDownloadThenRun(analysis, all, pctx)
  );
}


