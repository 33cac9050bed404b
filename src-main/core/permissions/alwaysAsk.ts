/**
 * Layer 3's list of commands that always need a person, whatever `allowed_commands` says: they run code
 * that cannot be inspected here (inline programs, downloaded packages), act with administrator rights,
 * publish work, or throw work away.
 */
import { codeFamily, inlineCodeArgs, interpreterFamily } from './shell/commandKinds.js';
import type { SimpleCommand } from './shell/types.js';
import { PRIVILEGE_WRAPPERS } from './shell/wrappers.js';

/** Package managers and the sub-commands that install, remove or upgrade something. */
const INSTALLS: Record<string, Set<string>> = {
  npm: new Set([
    'install',
    'i',
    'in',
    'ins',
    'inst',
    'insta',
    'instal',
    'isnt',
    'isnta',
    'isntal',
    'isntall',
    'add',
    'ci',
    'clean-install',
    'install-clean',
    'install-test',
    'it',
    'update',
    'up',
    'upgrade',
    'udpate',
    'uninstall',
    'remove',
    'rm',
    'r',
    'un',
    'unlink',
    'link',
    'ln',
    'exec',
    'x',
    'publish',
    'dedupe',
    'prune',
    'rebuild',
  ]),
  pnpm: new Set([
    'install',
    'i',
    'add',
    'update',
    'up',
    'upgrade',
    'remove',
    'rm',
    'uninstall',
    'un',
    'link',
    'ln',
    'dlx',
    'exec',
    'publish',
    'rebuild',
    'import',
  ]),
  yarn: new Set(['install', 'add', 'upgrade', 'up', 'remove', 'dlx', 'exec', 'global', 'publish', 'link']),
  bun: new Set(['install', 'i', 'add', 'a', 'remove', 'rm', 'update', 'upgrade', 'link', 'x', 'publish']),
  pip: new Set(['install', 'uninstall', 'download', 'wheel']),
  pipx: new Set(['install', 'uninstall', 'upgrade', 'run', 'inject', 'reinstall']),
  uv: new Set(['add', 'remove', 'sync', 'pip', 'tool', 'run']),
  poetry: new Set(['add', 'install', 'update', 'remove', 'run']),
  brew: new Set([
    'install',
    'reinstall',
    'upgrade',
    'uninstall',
    'remove',
    'rm',
    'tap',
    'untap',
    'link',
    'unlink',
    'bundle',
    'cask',
  ]),
  port: new Set(['install', 'uninstall', 'upgrade', 'selfupdate']),
  apt: new Set(['install', 'remove', 'purge', 'upgrade', 'full-upgrade', 'dist-upgrade', 'autoremove', 'reinstall']),
  'apt-get': new Set(['install', 'remove', 'purge', 'upgrade', 'dist-upgrade', 'autoremove', 'build-dep', 'reinstall']),
  aptitude: new Set(['install', 'remove', 'purge', 'upgrade', 'full-upgrade', 'safe-upgrade']),
  dnf: new Set(['install', 'remove', 'erase', 'upgrade', 'update', 'reinstall', 'autoremove']),
  yum: new Set(['install', 'remove', 'erase', 'upgrade', 'update', 'reinstall']),
  apk: new Set(['add', 'del', 'upgrade']),
  pacman: new Set(['-s', '-u', '-r', '-sy', '-syu', '-rs', '-rns']),
  zypper: new Set(['install', 'in', 'remove', 'rm', 'update', 'up', 'dist-upgrade', 'dup']),
  snap: new Set(['install', 'remove', 'refresh']),
  flatpak: new Set(['install', 'uninstall', 'update']),
  gem: new Set(['install', 'uninstall', 'update']),
  cargo: new Set(['install', 'uninstall']),
  go: new Set(['install', 'get']),
  conda: new Set(['install', 'remove', 'update', 'create', 'uninstall']),
  mamba: new Set(['install', 'remove', 'update', 'create', 'uninstall']),
  micromamba: new Set(['install', 'remove', 'update', 'create']),
  composer: new Set(['install', 'require', 'update', 'remove', 'global']),
  bundle: new Set(['install', 'update', 'add', 'exec']),
  bundler: new Set(['install', 'update', 'add', 'exec']),
  mas: new Set(['install', 'upgrade', 'uninstall', 'purchase']),
  deno: new Set(['install', 'add', 'run']),
  gh: new Set(['extension']),
  corepack: new Set(['enable', 'install', 'prepare', 'use']),
  softwareupdate: new Set(['-i', '--install', '-a', '--all', '--install-rosetta']),
};

/** Programs that fetch and run a package in one go. */
const RUNNERS = new Set(['npx', 'pnpx', 'bunx', 'uvx', 'installer']);

function firstOperand(args: string[]): string | undefined {
  return args.find((a) => !a.startsWith('-'));
}

function packageAction(cmd: SimpleCommand, args: string[]): string | undefined {
  let name = cmd.name;
  let rest = args;
  if (/^pip[0-9.]*$/.test(name)) name = 'pip';
  // `python3 -m pip install x`
  if (interpreterFamily(cmd.name) === 'python') {
    const m = args.indexOf('-m');
    if (m === -1 || !/^pip[0-9.]*$/.test(args[m + 1] ?? '')) return undefined;
    name = 'pip';
    rest = args.slice(m + 2);
  }
  const subs = INSTALLS[name];
  if (!subs) return undefined;
  if (name === 'yarn' && firstOperand(rest) === undefined) {
    // Bare `yarn` (with flags only) is `yarn install`.
    const justInfo = rest.some((a) => ['--version', '-v', '--help', '-h'].includes(a));
    return justInfo ? undefined : '`yarn` with no sub-command installs packages';
  }
  if (name === 'pacman' || name === 'softwareupdate') {
    const hit = rest.find((a) => subs.has(a.toLowerCase()) || (name === 'pacman' && /^-[A-Za-z]*[SRU]/.test(a)));
    return hit ? `\`${cmd.name} ${hit}\` installs or removes software` : undefined;
  }
  const verb = firstOperand(rest);
  if (verb && subs.has(verb.toLowerCase())) return `\`${cmd.name} ${verb}\` installs, removes or runs packages`;
  return undefined;
}

/** Sub-command of git after its global options. */
export function gitSubcommand(args: string[]): { sub?: string; rest: string[] } {
  let i = 0;
  while (i < args.length) {
    const a = args[i]!;
    if (a === '-C' || a === '-c' || a === '--exec-path' || a === '--config-env') i += 2;
    else if (a.startsWith('-')) i++;
    else break;
  }
  return { sub: args[i], rest: args.slice(i + 1) };
}

/** Why this command must always be confirmed by a person, or undefined. */
export function alwaysAskReason(cmd: SimpleCommand): string | undefined {
  const privileged = cmd.wrappers.find((w) => PRIVILEGE_WRAPPERS.has(w));
  if (privileged) return `\`${privileged}\` runs a command with administrator rights`;
  if (PRIVILEGE_WRAPPERS.has(cmd.name)) return `\`${cmd.name}\` runs commands with administrator rights`;
  const name = cmd.name;
  const args = cmd.args.map((a) => a.value);

  if (name === 'eval') return '`eval` runs a string as shell code';
  if (name === 'source' || name === '.') return `\`${name}\` runs a script in the current shell`;
  if (name === 'exec') return '`exec` replaces the shell or rewires its files';
  if (name === 'trap') return '`trap` sets code to run later';
  if (name === 'alias') return '`alias` defines a command that runs other code';
  if (name === 'osascript') return '`osascript` runs AppleScript or JavaScript that can control any app';
  const family = codeFamily(name);
  if (family && inlineCodeArgs(cmd).length > 0) {
    return family === 'shell' ? `\`${name} -c\` runs inline shell code` : `\`${name}\` runs an inline program`;
  }
  if (family && cmd.wrappers.includes('xargs')) return `\`xargs ${name}\` runs code built from its input`;
  if (RUNNERS.has(name)) return `\`${name}\` downloads and runs a package`;
  const pkg = packageAction(cmd, args);
  if (pkg) return pkg;

  if (name === 'git') {
    const { sub, rest } = gitSubcommand(args);
    if (sub === 'push') return '`git push` publishes commits';
    if (sub === 'reset' && rest.includes('--hard')) return '`git reset --hard` throws away uncommitted work';
    if (sub === 'clean') return '`git clean` deletes untracked files';
    if (args.includes('-c') || args.includes('--config-env')) return '`git -c` can make git run arbitrary programs';
  }
  if ((name === 'rm' || name === 'srm') && args.some((a) => /^-[A-Za-z]*[rR]/.test(a) || a === '--recursive')) {
    return '`rm -r` deletes folders recursively';
  }
  return undefined;
}
