/**
 * Layer 1: commands no mode, flag or setting can allow. Each rule looks at every simple command the line
 * contains (at any depth, including hidden readings), so the block holds wherever the command hides.
 */
import {
  codeFamily,
  downloadTargets,
  filesWritten,
  isDecoder,
  isDownloader,
  isNetworkClient,
  isShell,
  readsProgramFromStdin,
  scriptFileRun,
} from './shell/commandKinds.js';
import { parseOptions, type OptionSpec } from './shell/getopt.js';
import { deletesHomeInCode } from './shell/analyze.js';
import {
  historyFile,
  isRawDevice,
  keychainPath,
  pathCandidates,
  persistencePlace,
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
  | 'kill-everything'
  | 'reverse-shell'
  | 'keychain-delete'
  | 'history-wipe'
  | 'persistence-payload';

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
  'disk-erase':
    'formatting or erasing a disk (`mkfs`, `newfs`, `diskutil eraseDisk|zeroDisk|partitionDisk`, deleting an APFS container or volume, a Core Storage group, a RAID set …)',
  'download-into-shell': 'downloaded content run as code (`curl … | sh`, `bash <(curl …)`, `sh -c "$(wget …)"`)',
  'decoded-payload-into-shell': 'decoded content run as code (`base64 -d | sh`)',
  'download-then-run': 'a file downloaded (or decoded) and run in the same line',
  'fork-bomb': 'a fork bomb',
  'security-disable':
    'turning off macOS protections: System Integrity Protection, Gatekeeper, quarantine, the firewall, FileVault, code-signing checks (AMFI boot-args)',
  'kill-everything': '`kill -1`: signalling every process you own',
  'reverse-shell':
    'a shell wired to a network connection (`bash -i >& /dev/tcp/…`, `nc -e /bin/sh`), which hands this computer to whoever is at the other end',
  'keychain-delete': 'deleting a keychain (`security delete-keychain`, removing ~/Library/Keychains files)',
  'history-wipe':
    'wiping shell history (truncating, deleting or linking it to /dev/null, `history -c`), which hides what was done',
  'persistence-payload':
    'downloaded or decoded content written where it runs at every login, shell start or on a schedule (shell startup files, launch agents, crontab)',
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

/** rm as GNU and BSD parse it (`--rec` is `--recursive`; BSD's letters are all flags). */
const RM_SPEC: OptionSpec = {
  short: 'dfiIPrRvWx',
  long: [
    'force',
    'interactive=?',
    'one-file-system',
    'no-preserve-root',
    'preserve-root=?',
    'recursive',
    'dir',
    'verbose',
    'help',
    'version',
  ],
  lenient: true,
};
/** chmod / chown / chgrp (GNU long options; BSD `-R -H -L -P -f -h -v`). */
const CHMOD_SPEC: OptionSpec = {
  short: 'cfvRHLPhEChINi',
  long: [
    'changes',
    'silent',
    'quiet',
    'verbose',
    'no-preserve-root',
    'preserve-root',
    'reference=',
    'recursive',
    'dereference',
    'no-dereference',
    'from=',
    'help',
    'version',
  ],
  lenient: true,
};
/** A chmod mode that looks like an option (`-w`, `-x`). */
const MODE_LIKE = /^[ugoa]*[-+=][rwxXstugo]*$|^[0-7]{1,4}$/;

const DELETERS = new Set(['rm', 'srm', 'grm', 'unlink', 'shred', 'rmdir', 'trash', 'rimraf']);
/** Programs that delete what they are given, in any form. */
const REMOVERS = new Set(['rm', 'srm', 'grm', 'unlink', 'shred', 'rimraf', 'del', 'del-cli', 'truncate']);

type Rule = (name: string, args: string[], cmd: SimpleCommand, ctx: PathContext) => HardBlock | undefined;

const block = (rule: HardBlockRule, detail: string): HardBlock => ({
  rule,
  reason: `hard block "${rule}" (${HARD_BLOCK_RULES[rule]}): ${detail}`,
});

const recursiveDelete: Rule = (name, args, cmd, ctx) => {
  const rimraf = name === 'rimraf' || name === 'del' || name === 'del-cli';
  if (name !== 'rm' && name !== 'srm' && name !== 'grm' && !rimraf) return undefined;
  const o = parseOptions(args, RM_SPEC);
  const recursive = rimraf || o.options.some((x) => x.name === '-r' || x.name === '-R' || x.name === '--recursive');
  if (!recursive) return undefined;
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
  return hit
    ? block('sync-delete', `\`${cmd.innerText}\` would delete whatever in ${hit} is not in the source`)
    : undefined;
};

const recursivePermissions: Rule = (name, args, cmd, ctx) => {
  if (!['chmod', 'chown', 'chgrp', 'chflags', 'gchmod', 'gchown', 'setfacl'].includes(name)) return undefined;
  // The first operand is the mode or owner; a chmod mode may look like an option (`chmod -R -w ~`).
  const modeAt = name === 'chmod' || name === 'gchmod' ? args.findIndex((a) => MODE_LIKE.test(a)) : -1;
  const rest = modeAt === -1 ? args : args.filter((_, i) => i !== modeAt);
  const o = parseOptions(rest, CHMOD_SPEC);
  const recursive = o.options.some((x) => x.name === '-R' || x.name === '--recursive');
  const targets = modeAt === -1 ? o.operands.slice(1) : o.operands;
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

/** `find ~ -exec chmod 000 {} +` re-owns or locks every file it finds. */
const findPermissions: Rule = (name, args, cmd, ctx) => {
  if (name !== 'find' && name !== 'gfind') return undefined;
  const i = args.findIndex(
    (a, k) =>
      /^-(exec|execdir|ok|okdir)$/.test(a) &&
      /^(chmod|chown|chgrp|chflags)$/.test((args[k + 1] ?? '').split('/').pop() ?? ''),
  );
  if (i === -1) return undefined;
  const firstExpr = args.findIndex((a) => a.startsWith('-') || a === '(' || a === '!');
  const starts = (firstExpr === -1 ? args : args.slice(0, firstExpr)).filter((a) => !a.startsWith('-'));
  for (const s of starts.length > 0 ? starts : ['.']) {
    const hit = protectedTarget(s, ctx);
    if (hit) return block('recursive-permissions', `\`${cmd.innerText}\` would change permissions throughout ${hit}`);
  }
  return undefined;
};

const rawDiskWrite: Rule = (name, args, cmd, ctx) => {
  if (name === 'dd' || name === 'gdd') {
    for (const a of args) {
      if (/^of=/i.test(a) && isRawDevice(a.slice(3), ctx))
        return block('raw-disk-write', `\`${cmd.innerText}\` writes to the device ${a.slice(3)}`);
    }
  }
  if (['tee', 'shred', 'srm', 'wipe'].includes(name)) {
    const dev = splitOptions(args).operands.find((a) => isRawDevice(a, ctx));
    if (dev) return block('raw-disk-write', `\`${cmd.innerText}\` writes to the device ${dev}`);
  }
  if (['cp', 'gcp', 'install', 'ditto', 'cat', 'pv', 'ddrescue', 'asr'].includes(name)) {
    const ops = splitOptions(args).operands;
    const last = ops[ops.length - 1];
    if (last && ops.length > 1 && isRawDevice(last, ctx))
      return block('raw-disk-write', `\`${cmd.innerText}\` writes to the device ${last}`);
  }
  return undefined;
};

const DISKUTIL_ERASE = new Set([
  'erasedisk',
  'erasevolume',
  'zerodisk',
  'randomdisk',
  'secureerase',
  'partitiondisk',
  'reformat',
  'erasecd',
  'resizevolume',
]);
const DISKUTIL_APFS_ERASE = new Set([
  'deletecontainer',
  'erasevolume',
  'deletevolume',
  'deletevolumegroup',
  'resizecontainer',
]);
/** Verbs that destroy a Core Storage group or volume (`diskutil cs …`) or an AppleRAID set (`diskutil ar …`). */
const DISKUTIL_GROUP_ERASE: Readonly<Record<string, ReadonlySet<string>>> = {
  cs: new Set(['delete', 'deletevolume', 'deletelvg', 'deletelv']),
  corestorage: new Set(['delete', 'deletevolume', 'deletelvg', 'deletelv']),
  ar: new Set(['delete']),
  appleraid: new Set(['delete']),
};

const diskErase: Rule = (name, args, cmd) => {
  if (/^(mkfs|newfs)/.test(name) || ['mke2fs', 'mkdosfs', 'mkntfs', 'mkswap', 'wipefs', 'mformat'].includes(name)) {
    return block('disk-erase', `\`${cmd.innerText}\` formats a disk or partition`);
  }
  if (name === 'diskutil') {
    const verbs = args.filter((a) => !a.startsWith('-')).map((a) => a.toLowerCase());
    const group = Object.hasOwn(DISKUTIL_GROUP_ERASE, verbs[0] ?? '') ? DISKUTIL_GROUP_ERASE[verbs[0]!] : undefined;
    if (
      DISKUTIL_ERASE.has(verbs[0] ?? '') ||
      (verbs[0] === 'apfs' && DISKUTIL_APFS_ERASE.has(verbs[1] ?? '')) ||
      group?.has(verbs[1] ?? '')
    ) {
      return block('disk-erase', `\`${cmd.innerText}\` erases, repartitions or deletes a disk or volume`);
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

const SECURITY_LABELS = /com\.apple\.(alf|xprotect|mrt|security\.syspolicy|syspolicyd|amfid|securityd|trustd)/i;
const FALSE_VALUES = /^(0|false|no|off)$/i;

const securityDisable: Rule = (name, args, cmd, ctx) => {
  const lower = args.map((a) => a.toLowerCase());
  const it = `\`${cmd.innerText}\``;
  if (name === 'csrutil' && lower.some((a) => a === 'disable' || a === 'clear' || a.startsWith('--without'))) {
    return block('security-disable', `${it} turns off System Integrity Protection`);
  }
  if (
    name === 'spctl' &&
    (lower.some((a) => a === '--master-disable' || a === '--global-disable' || a === '--disable-status') ||
      (lower[0] === 'kext-consent' && lower[1] === 'disable'))
  ) {
    return block('security-disable', `${it} turns off Gatekeeper`);
  }
  if (name === 'fdesetup' && lower.find((a) => !a.startsWith('-')) === 'disable') {
    return block('security-disable', `${it} turns off FileVault disk encryption`);
  }
  if (name === 'socketfilterfw') {
    const i = lower.findIndex((a) => a === '--setglobalstate' || a.startsWith('--setglobalstate='));
    const v = i === -1 ? undefined : lower[i]!.includes('=') ? lower[i]!.split('=')[1] : lower[i + 1];
    if (v !== undefined && FALSE_VALUES.test(v))
      return block('security-disable', `${it} turns off the application firewall`);
  }
  if (name === 'pfctl' && lower.some((a) => /^-[a-z]*d$/.test(a) && !a.startsWith('--'))) {
    return block('security-disable', `${it} turns off the packet-filter firewall`);
  }
  if (name === 'nvram') {
    for (const a of lower) {
      if (
        /^boot-args=/.test(a) &&
        /amfi|cs_enforcement|cs_debug|cs_allow|arm64e_preview|ipc_control_port|rootless=0|kext-dev-mode|-no_compat_check|csr-active/.test(
          a,
        )
      ) {
        return block('security-disable', `${it} sets boot arguments that turn off code-signing checks (AMFI)`);
      }
      if (/^csr-active-config=/.test(a))
        return block('security-disable', `${it} turns off System Integrity Protection through NVRAM`);
    }
  }
  if (name === 'defaults' && (lower[0] === 'write' || lower.includes('write'))) {
    const w = lower.indexOf('write');
    const [domain = '', key = '', ...vals] = lower.slice(w + 1);
    const value = vals.filter((v) => !v.startsWith('-')).pop() ?? '';
    if (/com\.apple\.alf$/.test(domain) && key === 'globalstate' && FALSE_VALUES.test(value))
      return block('security-disable', `${it} turns off the application firewall`);
    if (/com\.apple\.launchservices$/.test(domain) && key === 'lsquarantine' && FALSE_VALUES.test(value))
      return block('security-disable', `${it} turns off the download quarantine`);
    if (/com\.apple\.security$/.test(domain) && /^gk/.test(key) && FALSE_VALUES.test(value))
      return block('security-disable', `${it} turns off Gatekeeper`);
    if (
      /com\.apple\.softwareupdate$/.test(domain) &&
      /^(configdatainstall|criticalupdateinstall)$/.test(key) &&
      FALSE_VALUES.test(value)
    ) {
      return block('security-disable', `${it} turns off XProtect and security updates`);
    }
  }
  if (
    name === 'launchctl' &&
    ['unload', 'bootout', 'disable', 'remove', 'stop', 'kill'].includes(lower[0] ?? '') &&
    lower.slice(1).some((a) => SECURITY_LABELS.test(a))
  ) {
    return block('security-disable', `${it} stops a macOS security service`);
  }
  if (name === 'xattr') {
    const recursive = lower.some((a) => /^-[a-z]*r/.test(a));
    const quarantine = lower.some((a) => /^-[a-z]*c/.test(a)) || lower.includes('com.apple.quarantine');
    const removes = lower.some((a) => /^-[a-z]*[dc]/.test(a));
    if (recursive && quarantine && removes) {
      for (const t of splitOptions(args).operands.filter((a) => a.toLowerCase() !== 'com.apple.quarantine')) {
        const hit =
          protectedTarget(t, ctx) ??
          (pathCandidates(t, ctx).some((p) => /^\/applications$/i.test(p)) ? '/Applications' : undefined);
        if (hit) return block('security-disable', `${it} strips the download quarantine from ${hit}`);
      }
    }
  }
  if (REMOVERS.has(name) || name === 'mv') {
    for (const t of splitOptions(args).operands) {
      if (
        pathCandidates(t, ctx).some((p) =>
          /\/(xprotect(payloads)?\.bundle|xprotect\.app|mrt\.app|applicationfirewall)(\/|$)/i.test(p),
        )
      ) {
        return block('security-disable', `${it} removes a macOS malware or firewall component`);
      }
    }
  }
  return undefined;
};

/** `security delete-keychain`, or removing a keychain file in any way. */
const keychainDelete: Rule = (name, args, cmd, ctx) => {
  const it = `\`${cmd.innerText}\``;
  if (name === 'security' && (args[0] ?? '').toLowerCase() === 'delete-keychain')
    return block('keychain-delete', `${it} deletes a keychain and every password in it`);
  if (REMOVERS.has(name) || name === 'mv') {
    const ops = splitOptions(args).operands;
    const sources = name === 'mv' ? ops.slice(0, -1) : ops;
    for (const t of sources) {
      const k = keychainPath(t, ctx);
      if (k) return block('keychain-delete', `${it} ${name === 'mv' ? 'moves away' : 'deletes'} the keychain ${k}`);
    }
  }
  return undefined;
};

/** Deleting, truncating, rewriting or unlinking a history file; `history -c`. */
const historyWipe: Rule = (name, args, cmd, ctx) => {
  const it = `\`${cmd.innerText}\``;
  if (name === 'history' && args.some((a) => /^-[a-z]*c/.test(a)))
    return block('history-wipe', `${it} clears the shell history`);
  const displays = cmd.args.map((w) => w.display);
  const hist = (t: string, i = args.indexOf(t)) => historyFile(t, ctx, displays[i] ?? t);
  if (REMOVERS.has(name) || name === 'mv') {
    const ops = splitOptions(args).operands;
    for (const t of name === 'mv' ? ops.slice(0, -1) : ops) {
      const h = hist(t);
      if (h) return block('history-wipe', `${it} ${name === 'mv' ? 'moves away' : 'deletes'} the shell history ${h}`);
    }
  }
  if (name === 'ln' && args.some((a) => a === '--symbolic' || /^-[a-z]*s/.test(a))) {
    const ops = splitOptions(args).operands;
    const link = ops[ops.length - 1];
    if (ops.length === 2 && link !== undefined && hist(link) && /^\/dev\/null$/.test(ops[0]!))
      return block('history-wipe', `${it} links the shell history to /dev/null`);
  }
  if (
    (name === 'cp' || name === 'dd' || name === 'install') &&
    args.some((a) => a === '/dev/null' || a === 'if=/dev/null')
  ) {
    const ops = splitOptions(args).operands;
    const dest = name === 'dd' ? args.find((a) => a.startsWith('of='))?.slice(3) : ops[ops.length - 1];
    const h = dest === undefined ? undefined : hist(dest);
    if (h) return block('history-wipe', `${it} empties the shell history ${h}`);
  }
  if (
    (name === 'sed' || name === 'gsed' || name === 'perl') &&
    args.some((a) => /^-[a-zA-Z]*i/.test(a) || a.startsWith('--in-place'))
  ) {
    for (const t of splitOptions(args).operands) {
      const h = hist(t);
      if (h) return block('history-wipe', `${it} rewrites the shell history ${h}`);
    }
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

/** `nc -e /bin/sh host port`, `ncat --sh-exec …`, `socat TCP:h:p EXEC:sh`: a shell served over the network. */
const reverseShellCommand: Rule = (name, args, cmd) => {
  const it = `\`${cmd.innerText}\``;
  if (['nc', 'ncat', 'netcat', 'cryptcat', 'pwncat'].includes(name)) {
    const ends = args.indexOf('--');
    const opts = ends === -1 ? args : args.slice(0, ends);
    const runs = opts.some(
      (a) =>
        (/^-[A-Za-z0-9]*[ec]/.test(a) && !a.startsWith('--')) ||
        /^--(e|ex|exe|exec|sh|sh-|sh-e|sh-ex|sh-exe|sh-exec|lua|lua-exec)(=|$)/.test(a) ||
        /^--(exec|sh-exec|lua-exec)/.test(a),
    );
    if (runs) return block('reverse-shell', `${it} serves a program (a shell) over a network connection`);
  }
  if (name === 'socat') {
    const lower = args.map((a) => a.toLowerCase());
    const exec = lower.some((a) => /^(exec|system):/.test(a) || /^(exec|system),/.test(a));
    const net = lower.some((a) =>
      /^(tcp|tcp4|tcp6|tcp-connect|tcp-listen|tcp4-listen|tcp6-listen|udp|udp4|udp6|udp-connect|udp-listen|openssl|openssl-connect|openssl-listen|ssl|ssl-l|sctp|socks|socks4|socks4a|socks5|proxy|vsock)[:-]/.test(
        a,
      ),
    );
    if (exec && net) return block('reverse-shell', `${it} connects a program to the network`);
  }
  return undefined;
};

const COMMAND_RULES: Rule[] = [
  recursiveDelete,
  findDelete,
  moveProtected,
  syncDelete,
  recursivePermissions,
  findPermissions,
  rawDiskWrite,
  diskErase,
  securityDisable,
  killEverything,
  keychainDelete,
  historyWipe,
  reverseShellCommand,
];

/** For a command name known only at run time: what it would be as one of these programs. */
const WHAT_IF_NAMES = [
  'rm',
  'find',
  'mv',
  'chmod',
  'chown',
  'dd',
  'rsync',
  'kill',
  'csrutil',
  'spctl',
  'diskutil',
  'fdesetup',
  'nvram',
  'security',
];

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
    if (r.kind !== 'write') continue;
    if (isRawDevice(r.target, ctx))
      return block('raw-disk-write', `the redirection \`${r.operator} ${r.target}\` writes to a disk device`);
    // `>` (not `>>`) empties the file first.
    if (!r.operator.startsWith('>>')) {
      const h = historyFile(r.target, ctx, r.display ?? r.target);
      if (h)
        return block('history-wipe', `the redirection \`${r.operator} ${r.target}\` empties the shell history ${h}`);
      const k = keychainPath(r.target, ctx);
      if (k)
        return block('keychain-delete', `the redirection \`${r.operator} ${r.target}\` overwrites the keychain ${k}`);
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
      return block(
        'download-into-shell',
        `the output of \`${showValue(unknown.program)}\` (a program only known at run time) ${how} \`${sink}\``,
      );
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

/** `shutil.rmtree(os.path.expanduser("~"))`, `fs.rmSync(os.homedir(), {recursive: true})`, `FileUtils.rm_rf(Dir.home)`. */
function checkInlineDelete(analysis: ShellAnalysis): HardBlock | undefined {
  for (const { command, code } of analysis.inlineCode) {
    const what = deletesHomeInCode(code);
    if (what)
      return block(
        'recursive-delete',
        `the inline program of \`${command.name}\` calls ${what}, deleting ${what.endsWith('(/)') ? 'the root folder /' : 'your home folder'}`,
      );
  }
  return undefined;
}

function checkForkBomb(analysis: ShellAnalysis): HardBlock | undefined {
  for (const f of analysis.functions) {
    if (f.selfCalls >= 2 || (f.selfCalls >= 1 && f.backgrounds)) {
      return block('fork-bomb', `the function \`${f.name}\` starts copies of itself without end`);
    }
  }
  for (const c of analysis.inlineCode) {
    if (FORK_LOOP.test(c.code))
      return block('fork-bomb', `the inline program of \`${c.command.name}\` forks in a loop`);
  }
  return undefined;
}

const NET_DEVICE = /^\/dev\/(tcp|udp)\//i;
const SOCKET_CODE =
  /require\(\s*['"](node:)?(net|tls|dgram)['"]\s*\)|from ['"](node:)?(net|tls)['"]|\bsocket\b|Socket\b|TCPSocket|fsockopen|stream_socket_client|net\.connect|net\.Socket|createConnection|\/inet\/tcp|\/dev\/tcp\/|IO::Socket|socket\.socket|Net::Telnet|TCPClient/;
const SPAWN_CODE =
  /\/bin\/(ba|z|k|da|fi)?sh\b|\bcmd\.exe\b|pty\.spawn|subprocess|\bdup2\b|\bexec[a-z]*\s*[("'`]|\bspawn\s*\(|child_process|\bsystem\s*\(|\bpopen\b|IO\.popen|\bsh\s+-i\b|\bbash\s+-i\b|\|&/;

/**
 * A shell wired to the network: a `/dev/tcp` redirection in a line that runs a shell, interpreter or a
 * command read at run time; a pipeline joining a shell that reads its program from stdin to a network
 * client; an inline program that opens a socket and starts a shell.
 */
function checkReverseShell(a: ShellAnalysis, all: SimpleCommand[]): HardBlock | undefined {
  const redirects = [...a.redirects, ...all.flatMap((c) => c.redirects)];
  const net = redirects.find(
    (r) => (r.kind === 'write' || r.kind === 'read' || r.kind === 'duplicate') && NET_DEVICE.test(r.target),
  );
  if (net) {
    const runner = all.find(
      (c) => c.nameDynamic || isShell(c.name) || (codeFamily(c.name) !== undefined && c.name !== 'osascript'),
    );
    if (runner) {
      return block(
        'reverse-shell',
        `\`${runner.innerText || showValue(runner.text)}\` runs in a line that connects to ${net.target} (\`${net.operator} ${net.target}\`)`,
      );
    }
  }
  for (const stages of a.pipelines) {
    const flat = stages.flat();
    const client = flat.find((c) => isNetworkClient(c) || isDownloader(c));
    if (!client) continue;
    const shell = flat.find(
      (c) =>
        c !== client &&
        (isShell(c.name) || codeFamily(c.name) === 'python') &&
        (readsProgramFromStdin(c) || c.args.some((w) => /^-[A-Za-z]*i$/.test(w.value))),
    );
    if (shell)
      return block(
        'reverse-shell',
        `\`${shell.innerText}\` is joined to \`${client.innerText}\` in one pipeline: a shell driven over the network`,
      );
  }
  const ztcp = all.find((c) => c.name === 'ztcp' && c.args.some((w) => !w.value.startsWith('-')));
  if (ztcp && all.some((c) => isShell(c.name) && c !== ztcp))
    return block('reverse-shell', `\`${ztcp.innerText}\` opens a connection that a shell in the same line is wired to`);
  for (const { command, code } of a.inlineCode) {
    if (SOCKET_CODE.test(code) && SPAWN_CODE.test(code)) {
      return block(
        'reverse-shell',
        `the inline program of \`${command.name}\` opens a network connection and starts a shell or program on it`,
      );
    }
  }
  return undefined;
}

/** Downloaded or decoded content written into a shell startup file, a launch agent or a crontab. */
function checkPersistencePayload(a: ShellAnalysis, all: SimpleCommand[], ctx: PathContext): HardBlock | undefined {
  for (const f of fetchedFiles(a, all)) {
    const place = persistencePlace(f, ctx);
    if (place && place.kind !== 'git-config') {
      return block('persistence-payload', `downloaded or decoded content is written to ${place.path}, ${place.what}`);
    }
  }
  for (const stages of a.pipelines) {
    for (let j = 1; j < stages.length; j++) {
      const crontab = stages[j]!.find(
        (c) => c.name === 'crontab' && !c.args.some((w) => /^-[A-Za-z]*[lre]/.test(w.value)),
      );
      if (!crontab) continue;
      const source = stages
        .slice(0, j)
        .flat()
        .find((c) => isDownloader(c) || isDecoder(c));
      if (source) return block('persistence-payload', `the output of \`${source.name}\` is installed as your crontab`);
    }
  }
  const fetched = new Set(
    fetchedFiles(a, all)
      .flatMap((f) => pathCandidates(f, ctx))
      .map((p) => p.toLowerCase()),
  );
  for (const c of all) {
    if (c.name !== 'crontab') continue;
    const file = c.args.find((w) => !w.value.startsWith('-'))?.value;
    if (file && pathCandidates(file, ctx).some((p) => fetched.has(p.toLowerCase()))) {
      return block('persistence-payload', `\`${c.innerText}\` installs a downloaded file as your crontab`);
    }
  }
  return undefined;
}

export interface HardBlockContext {
  home: string;
  cwd: string;
  /** Paths compare case-insensitively (default: as this platform's volumes do). */
  caseInsensitive?: boolean;
}

/** The first hard block the line hits, or undefined. Pure: no file system access. */
export function findHardBlock(analysis: ShellAnalysis, ctx: HardBlockContext): HardBlock | undefined {
  const pctx: PathContext = {
    home: ctx.home,
    cwd: ctx.cwd,
    extraHomes: analysis.homeValues,
    cdTargets: analysis.cdTargets,
    links: analysis.links,
    ...(ctx.caseInsensitive !== undefined ? { caseInsensitive: ctx.caseInsensitive } : {}),
  };
  const all = [...analysis.commands, ...analysis.hidden];
  for (const c of all) {
    const hit = checkCommand(c, pctx);
    if (hit) return hit;
  }
  return (
    checkRedirects([...analysis.redirects, ...all.flatMap((c) => c.redirects)], pctx) ??
    checkFeeds(analysis) ??
    checkReverseShell(analysis, all) ??
    checkInlineDelete(analysis) ??
    checkForkBomb(analysis) ??
    checkDownloadThenRun(analysis, all, pctx) ??
    checkPersistencePayload(analysis, all, pctx)
  );
}
