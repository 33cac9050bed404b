/**
 * Rein's run-later state: the places later runs read to decide what they may do. A tool that changes one
 * of them could raise its own powers after the fact — a schedule of another agent made to fire every
 * minute, an agent folder with `mode: bypassPermissions` and a heartbeat, a forged grant in a saved
 * session, compiled code that every later `rein` process runs, a launch agent. So a write to any of them
 * needs a person **in every mode**: bypassPermissions, acceptEdits, `--yes`, `auto_approve`,
 * `always_allow_tools` and every grant leave it asking; dontAsk and plan refuse it; unattended runs,
 * which may ask nobody, are refused (docs/permissions.md, *Trust boundaries*).
 *
 * The places, absolute and compared case-insensitively (a miss costs a run, a match only a question):
 * - everything under REIN_HOME (as given and resolved) and under `~/.rein`: settings, agent folders,
 *   schedules, sessions, the search index, the audit log, trusted folders, secrets, daemon files;
 * - the compiled-code cache of `rein` (`~/Library/Caches/Rein`, `$XDG_CACHE_HOME/rein`, `~/.cache/rein`,
 *   `REIN_CODE_CACHE`) and the desktop app's own data folder (`~/Library/Application Support/Rein`,
 *   `~/.config/Rein`);
 * - launch agents and daemons (`~/Library/LaunchAgents`, `/Library/LaunchAgents`, `/Library/LaunchDaemons`)
 *   and their Linux twins (`~/.config/autostart`, `~/.config/systemd/user`).
 *
 * Reading them is not this module's business (Rein's credentials are a hard block: reinGuards.ts).
 */
import { lstatSync } from 'node:fs';
import path from 'node:path';
import { realpathLoose } from '../util/realpath.js';
import { reinHomeForms } from '../secrets/reinSecrets.js';

export interface ProtectedPlaceContext {
  home: string;
  reinHome: string;
  /** The environment Rein runs with: `REIN_CODE_CACHE` and `XDG_CACHE_HOME` move the code cache. */
  env?: Readonly<Record<string, string | undefined>>;
}

export interface ProtectedPlace {
  /** The path as shown to a person (`~/…` inside the home folder). */
  path: string;
  /** What the place is, for the reason: "an agent's folder (…)". */
  what: string;
}

interface Root {
  /** Lower-cased absolute folder, without a trailing slash. */
  dir: string;
  /** The same, as spelled. */
  spelled: string;
  kind: 'rein' | 'code-cache' | 'app-data' | 'launch-agent' | 'autostart';
}

const strip = (p: string): string => {
  const n = path.posix.normalize(p);
  return n.length > 1 && n.endsWith('/') ? n.slice(0, -1) : n;
};

const rootsCache = new Map<string, Root[]>();

function roots(ctx: ProtectedPlaceContext): Root[] {
  const env = ctx.env ?? {};
  const key = [ctx.home, ctx.reinHome, env.REIN_CODE_CACHE ?? '', env.XDG_CACHE_HOME ?? ''].join('\0');
  const hit = rootsCache.get(key);
  if (hit) return hit;
  const home = strip(path.resolve(ctx.home));
  const out: Root[] = [];
  const add = (dir: string, kind: Root['kind']) => {
    for (const form of new Set([strip(dir), strip(realpathLoose(dir))])) {
      const lower = form.toLowerCase();
      if (lower !== '/' && !out.some((r) => r.dir === lower)) out.push({ dir: lower, spelled: form, kind });
    }
  };
  for (const form of reinHomeForms(ctx.reinHome)) add(form, 'rein');
  add(path.join(home, '.rein'), 'rein');
  add(path.join(home, 'Library', 'Caches', 'Rein'), 'code-cache');
  add(path.join(env.XDG_CACHE_HOME || path.join(home, '.cache'), 'rein'), 'code-cache');
  add(path.join(home, '.cache', 'rein'), 'code-cache');
  const cacheDir = env.REIN_CODE_CACHE;
  if (cacheDir && cacheDir !== 'off' && path.isAbsolute(cacheDir)) add(cacheDir, 'code-cache');
  add(path.join(home, 'Library', 'Application Support', 'Rein'), 'app-data');
  add(path.join(home, '.config', 'Rein'), 'app-data');
  add(path.join(home, 'Library', 'LaunchAgents'), 'launch-agent');
  add('/Library/LaunchAgents', 'launch-agent');
  add('/Library/LaunchDaemons', 'launch-agent');
  add('/System/Library/LaunchAgents', 'launch-agent');
  add('/System/Library/LaunchDaemons', 'launch-agent');
  add(path.join(home, '.config', 'autostart'), 'autostart');
  add(path.join(home, '.config', 'systemd', 'user'), 'autostart');
  // The longest folder first, so `~/.rein/…` inside a cache folder (never, but) names the closer one.
  out.sort((a, b) => b.dir.length - a.dir.length);
  if (rootsCache.size > 50) rootsCache.clear();
  rootsCache.set(key, out);
  return out;
}

/** What a place under REIN_HOME is, from its path below it. */
function reinWhat(rel: string): string {
  const [first = '', second, third] = rel.split('/');
  if (rel === '')
    return "Rein's own folder (its settings, agents, schedules and sessions decide what later runs may do)";
  if (first === 'config.yaml') return "Rein's settings (they decide what every run may do)";
  if (first === 'schedules.json' || first === 'schedules' || first.startsWith('schedules.json'))
    return "Rein's schedule store (what runs later, as which agent, how often)";
  const memory = /(^|\/)MEMORY\.md$|(^|\/)memory\//i.test(rel);
  if (memory) return "an agent's memory (add to it with the memory_append tool, which needs no approval)";
  if (first === 'agents') {
    if (second === undefined) return "the folder of Rein's agents (a new folder there is a new agent)";
    if (third === 'sessions') return `the saved sessions of agent "${second}" (later turns read their state)`;
    return `agent "${second}"'s folder (its prompt, settings, heartbeat, watchers, commands and skills decide what it does)`;
  }
  if (first === 'sessions') return 'saved sessions (later turns of a conversation read their state)';
  if (
    first === 'secrets' ||
    ['daemon.json', 'daemon.token', 'daemon.pid', 'api-key.enc', 'webhooks.yaml'].includes(first)
  )
    return "Rein's credentials and daemon files";
  if (first === 'skills' || first === 'commands')
    return `Rein's ${first} (their text becomes the agents' instructions)`;
  if (first.startsWith('rein.db')) return "Rein's session index";
  if (first === 'logs') return "Rein's logs (the audit trail of what runs did)";
  if (first.startsWith('trusted-folders')) return 'the folders you trust (their project settings apply)';
  return "Rein's own folder (what is kept there decides what later runs may do)";
}

const WHAT: Record<Exclude<Root['kind'], 'rein'>, string> = {
  'code-cache': "Rein's compiled-code cache (every later `rein` process runs what is there)",
  'app-data': "the Rein app's own data folder",
  'launch-agent': 'a launch agent or daemon folder (what is there starts programs at login or boot)',
  autostart: 'an autostart folder (what is there starts programs at login)',
};

/**
 * The protected place an absolute path is in (the path itself or a folder above it counts; REIN_HOME
 * itself too), or undefined. Symlinks are resolved for the path given, so a link elsewhere pointing in
 * is caught; `lexicalOnly` skips that (the caller resolved it already).
 */
export function protectedPlace(
  abs: string,
  ctx: ProtectedPlaceContext,
  opts: { lexicalOnly?: boolean } = {},
): ProtectedPlace | undefined {
  if (!path.isAbsolute(abs)) return undefined;
  const forms = opts.lexicalOnly ? [strip(abs)] : [...new Set([strip(abs), strip(realpathLoose(strip(abs)))])];
  const home = strip(path.resolve(ctx.home));
  const all = roots(ctx);
  for (const form of forms) {
    const lower = form.toLowerCase();
    for (const r of all) {
      if (lower !== r.dir && !lower.startsWith(`${r.dir}/`)) continue;
      const shown = form.toLowerCase().startsWith(`${home.toLowerCase()}/`) ? `~/${form.slice(home.length + 1)}` : form;
      const what = r.kind === 'rein' ? reinWhat(form.slice(r.dir.length + 1)) : WHAT[r.kind];
      return { path: shown, what };
    }
  }
  if (opts.lexicalOnly) return undefined;
  // A hard link is another name for the same file, which no path comparison can see: a file with more
  // than one name may be one of Rein's own (`ln ~/.rein/config.yaml notes.txt`, made before or elsewhere).
  const links = linkCount(forms[forms.length - 1]!);
  if (links > 1) {
    const form = forms[forms.length - 1]!;
    const shown = form.toLowerCase().startsWith(`${home.toLowerCase()}/`) ? `~/${form.slice(home.length + 1)}` : form;
    return { path: shown, what: `a file with ${links} names (hard links), one of which may be Rein's own state` };
  }
  return undefined;
}

/** How many names (hard links) the regular file at `p` has; 0 when there is none or it is not a file. */
function linkCount(p: string): number {
  try {
    const st = lstatSync(p, { throwIfNoEntry: false });
    return st && st.isFile() ? st.nlink : 0;
  } catch {
    return 0;
  }
}

/**
 * Whether a folder holds a protected place below it (the home folder holds `~/.rein`): a recursive write
 * into it (`cp -r x ~`, `rsync -a x/ ~/`, `tar -C ~ -x`) can reach one.
 */
export function holdsProtectedPlace(abs: string, ctx: ProtectedPlaceContext): ProtectedPlace | undefined {
  if (!path.isAbsolute(abs)) return undefined;
  const p = strip(abs).toLowerCase();
  const prefix = p === '/' ? '/' : `${p}/`;
  // Rein's own folder first: it is what a person recognises in "a folder that holds …".
  const below = roots(ctx).filter((r) => r.dir.startsWith(prefix));
  const inside = below.find((r) => r.kind === 'rein') ?? below[0];
  if (!inside) return undefined;
  const home = strip(path.resolve(ctx.home));
  const dir = inside.dir.startsWith(`${home.toLowerCase()}/`)
    ? `~/${inside.spelled.slice(home.length + 1)}`
    : inside.spelled;
  return {
    path: strip(abs),
    what: `a folder that holds ${dir}, ${inside.kind === 'rein' ? "Rein's own state" : WHAT[inside.kind]}`,
  };
}

/** Absolute paths (as written or after `~`) in free text such as inline code: `'~/.rein/schedules.json'`. */
const PATHISH = /(?:~|\$HOME|\$\{HOME\}|\/)[^\s'"`;|&<>(){}$]*/g;

/** The protected place a piece of program text names (inline code, an AppleScript), or undefined. */
export function protectedPlaceInText(text: string, ctx: ProtectedPlaceContext): ProtectedPlace | undefined {
  if (text.length > 200_000) text = text.slice(0, 200_000);
  const home = strip(path.resolve(ctx.home));
  for (const m of text.matchAll(PATHISH)) {
    const raw = m[0];
    const abs = raw.startsWith('~/') || raw === '~' ? home + raw.slice(1) : raw.replace(/^\$\{?HOME\}?/, home);
    if (!abs.startsWith('/')) continue;
    const hit = protectedPlace(abs, ctx, { lexicalOnly: true });
    if (hit) return hit;
  }
  // Names that point there without a full path (`os.path.expanduser("~") + "/.rein"`, `join(home, '.rein')`).
  if (/['"`/]\.rein\b|Library\/LaunchAgents|LaunchAgents['"`/]|Caches\/Rein\b/i.test(text)) {
    return { path: '~/.rein', what: "Rein's own state or a launch agent folder (the program text names it)" };
  }
  return undefined;
}
