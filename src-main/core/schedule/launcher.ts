/**
 * `$REIN_HOME/bin/rein-launch`: what a launchd job made by the CLI starts, so the job survives node
 * upgrades. A plist records paths, and the node a CLI runs on is often a versioned one — Homebrew's
 * `bin/node` is a link into `Cellar/node/20.x/`, nvm's is `versions/node/vX/` — which `brew upgrade`
 * or `nvm uninstall` takes away, silently killing every job. So the job is
 *
 *     rein-launch NODE ENTRY schedule run <id> --from-launchd
 *
 * and the script finds node when it runs: NODE (recorded when the job was made, already the stable
 * link where there is one: stableNodePath) if it is still there, else the formula's own Homebrew
 * links, Homebrew's and the installer's `bin/node`, nvm's default alias, `command -v node`. ENTRY is
 * Rein's `bin/rein.js`; when it is gone (the checkout moved, Rein uninstalled) the script says so in
 * launchd.err.log and records it as the schedule's last run, so `rein schedule show` and `rein doctor`
 * tell the person. `rein-launch --check NODE ENTRY` prints what a run would use (for `rein doctor`).
 *
 * The script is Rein's own state (REIN_HOME is a protected place for the agent's tools): written
 * atomically, mode 0700, and only when its bytes differ, so every job made by any Rein shares one.
 */
import { existsSync, realpathSync, statSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { atomicWriteFile } from '../util/atomicWrite.js';

export const LAUNCHER_NAME = 'rein-launch';

export const launcherPath = (reinHome: string): string => join(reinHome, 'bin', LAUNCHER_NAME);

/** True for a program prefix that starts the launcher (the last path part is `bin/rein-launch`). */
export const isLauncher = (program: string): boolean => program.endsWith(`/bin/${LAUNCHER_NAME}`);

/**
 * Records the schedule's last run as failed, from the launcher, when Rein's own script cannot be
 * started: schedules.json under the store's lock (proper-lockfile's `<file>.lock` folder, stale after
 * 10 s), written through a temp file and a rename. Plain CommonJS for any node; no single quotes (it
 * sits in single quotes in the script).
 */
const RECORD_FAILURE_JS = [
  'const fs = require("fs"), path = require("path");',
  'const [home, id, message] = process.argv.slice(1);',
  'const file = path.join(home, "schedules.json"), lock = file + ".lock";',
  'const pause = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);',
  'let held = false;',
  'for (let i = 0; i < 300 && !held; i++) {',
  '  try { fs.mkdirSync(lock); held = true; } catch (e) {',
  '    if (e.code !== "EEXIST") break;',
  '    try { if (Date.now() - fs.statSync(lock).mtimeMs > 10000) { fs.rmdirSync(lock); continue; } } catch (e2) {}',
  '    pause(50);',
  '  }',
  '}',
  'if (held) {',
  '  try {',
  '    const data = JSON.parse(fs.readFileSync(file, "utf8"));',
  '    const s = (data.schedules || []).find((x) => x.id === id);',
  '    if (s) {',
  '      const at = new Date().toISOString();',
  '      s.last_run = { at, status: "failed", message, trigger: "launchd" };',
  '      const tmp = path.join(path.dirname(file), "." + path.basename(file) + "." + process.pid + ".0.tmp");',
  '      fs.writeFileSync(tmp, JSON.stringify(data, null, 2) + "\\n", { mode: 0o600 });',
  '      fs.renameSync(tmp, file);',
  '    }',
  '  } catch (e) {} finally { fs.rmdirSync(lock); }',
  '}',
].join('\n');

/** The script. Bump nothing by hand: ensureLauncher compares bytes. */
export const LAUNCHER_SCRIPT = `#!/bin/sh
# rein-launch: written by Rein (src-main/core/schedule/launcher.ts) and rewritten when it changes;
# edits are lost. docs/schedules.md, "What launchd needs".
#
# launchd starts a schedule as:   rein-launch NODE ENTRY schedule run ID --from-launchd
# NODE is the node the job was made with and ENTRY Rein's bin/rein.js. When NODE is gone (brew
# upgrade, nvm uninstall) the first node found among the Homebrew links of NODE's formula,
# /opt/homebrew/bin/node, /usr/local/bin/node, nvm's default alias and \`command -v node\` (on the job's
# PATH and the usual folders) is used; REIN_LAUNCH_NODE_LINKS replaces the fixed places (tests).
# \`rein-launch --check NODE ENTRY\` prints what a run would use and exits non-zero when something is
# missing. Rein gets the job's environment unchanged.
set -u

# The job's PATH is handed on as it came (or not at all); this script's own tools come from the system.
if [ -n "\${PATH+set}" ]; then job_path=$PATH; had_path=1; else job_path=; had_path=0; fi
PATH="\${job_path:+$job_path:}/usr/bin:/bin:/usr/sbin:/sbin"

check=0
if [ "\${1:-}" = "--check" ]; then check=1; shift; fi
if [ $# -lt 2 ]; then
  echo "rein-launch: usage: rein-launch [--check] NODE ENTRY [ARGS...]" >&2
  exit 64
fi
recorded=$1
entry=$2
shift 2

runnable() { [ -n "$1" ] && [ -f "$1" ] && [ -x "$1" ]; }

# The newest version folder in $1 named $2 or $2.* ("v20" finds v20.11.0; "" finds any).
newest_version() {
  best=$(
    for d in "$1"/v[0-9]*; do
      v=\${d##*/}
      [ -d "$d" ] || continue
      if [ -z "$2" ] || [ "$v" = "$2" ]; then echo "\${v#v}"; else case $v in "$2".*) echo "\${v#v}" ;; esac; fi
    done | sort -t. -k1,1n -k2,2n -k3,3n | tail -n 1
  )
  [ -n "$best" ] && echo "v$best"
}

# nvm's default alias (alias/default, which may name another alias) in the nvm folder $1.
nvm_default_node() {
  name=default
  n=0
  while [ $n -lt 8 ] && [ -f "$1/alias/$name" ]; do
    file=$1/alias/$name
    name=
    read -r name < "$file" || :
    n=$((n + 1))
  done
  case $name in
    node | stable) v=$(newest_version "$1/versions/node" "") ;;
    v[0-9]*) v=$(newest_version "$1/versions/node" "$name") ;;
    [0-9]*) v=$(newest_version "$1/versions/node" "v$name") ;;
    *) return 1 ;;
  esac
  [ -n "$v" ] && runnable "$1/versions/node/$v/bin/node" && echo "$1/versions/node/$v/bin/node"
}

find_node() {
  if runnable "$recorded"; then echo "$recorded"; return 0; fi
  case $recorded in
    */Cellar/*/*/bin/node)
      brew_prefix=\${recorded%%/Cellar/*}
      formula=\${recorded#"$brew_prefix"/Cellar/}
      formula=\${formula%%/*}
      for c in "$brew_prefix/bin/node" "$brew_prefix/opt/$formula/bin/node"; do
        if runnable "$c"; then echo "$c"; return 0; fi
      done
      ;;
  esac
  links=\${REIN_LAUNCH_NODE_LINKS:-/opt/homebrew/bin/node:/opt/homebrew/opt/node/bin/node:/usr/local/bin/node:/usr/local/opt/node/bin/node}
  old_ifs=$IFS
  IFS=:
  for c in $links; do
    if runnable "$c"; then IFS=$old_ifs; echo "$c"; return 0; fi
  done
  IFS=$old_ifs
  nvm_from_recorded=
  case $recorded in */versions/node/*/bin/node) nvm_from_recorded=\${recorded%/versions/node/*} ;; esac
  for d in "$nvm_from_recorded" "\${NVM_DIR:-}" "\${HOME:+$HOME/.nvm}"; do
    if [ -n "$d" ] && [ -d "$d" ] && c=$(nvm_default_node "$d"); then echo "$c"; return 0; fi
  done
  search=$job_path
  [ -n "\${REIN_LAUNCH_NODE_LINKS:-}" ] || search="\${search:+$search:}/opt/homebrew/bin:/usr/local/bin:/usr/bin:/bin"
  c=$(PATH=$search; command -v node 2>/dev/null) || c=
  if runnable "$c"; then echo "$c"; return 0; fi
  return 1
}

# Says why the run cannot start (launchd writes stderr to the schedule's launchd.err.log) and, when
# node was found and this is a schedule's run, records it as the schedule's last run.
fail_run() {
  code=$1
  message=$2
  shift 2
  echo "$(date -u +%Y-%m-%dT%H:%M:%SZ 2>/dev/null) rein-launch: $message" >&2
  if [ "$check" = 0 ] && [ -n "$node" ] && [ "\${1:-}" = "schedule" ] && [ "\${2:-}" = "run" ] && [ -n "\${3:-}" ] && [ -n "\${REIN_HOME:-}" ]; then
    "$node" -e '${RECORD_FAILURE_JS}' "$REIN_HOME" "$3" "$message" >/dev/null 2>&1 || true
  fi
  exit "$code"
}

node=$(find_node) || node=
if [ -z "$node" ]; then
  fail_run 127 "no node to run Rein with: $recorded is gone and none of Homebrew's node, /usr/local/bin/node, nvm's default or a node on PATH was found. Install node (brew install node), then run \\\`rein schedule sync\\\` in a terminal." "$@"
fi
if ! [ -f "$entry" ]; then
  fail_run 1 "Rein's script $entry is gone (Rein was moved, updated or uninstalled), so this schedule cannot start. Run \\\`rein schedule sync\\\` from the Rein you use now (or open the Rein app) to point the schedules at it." "$@"
fi
if [ "$check" = 1 ]; then
  version=$("$node" --version 2>&1) || { echo "rein-launch: $node does not run: $version" >&2; exit 126; }
  echo "node: $node ($version)"
  echo "entry: $entry"
  exit 0
fi
if [ "$had_path" = 1 ]; then PATH=$job_path; else unset PATH; fi
exec "$node" "$entry" "$@"
`;

/** Writes the launcher when it is missing or differs; returns its path. */
export async function ensureLauncher(reinHome: string): Promise<string> {
  const path = launcherPath(reinHome);
  const current = await readFile(path, 'utf8').catch(() => undefined);
  const mode = current === undefined ? undefined : statSync(path, { throwIfNoEntry: false })?.mode;
  if (current === LAUNCHER_SCRIPT && mode !== undefined && (mode & 0o777) === 0o700) return path;
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await atomicWriteFile(path, LAUNCHER_SCRIPT, { mode: 0o700, followSymlinks: false });
  return path;
}

export interface PathLookups {
  exists(path: string): boolean;
  /** The path with every link resolved, or undefined when it cannot be. */
  realpath(path: string): string | undefined;
}

const realFs: PathLookups = {
  exists: (p) => existsSync(p),
  realpath: (p) => {
    try {
      return realpathSync(p);
    } catch {
      return undefined;
    }
  },
};

/**
 * The node to record for a job: `execPath` (which Node reports with every link resolved) mapped back
 * to a link that outlives an upgrade when there is one and it leads to the same file. Homebrew's
 * `<prefix>/Cellar/<formula>/<version>/bin/node` becomes `<prefix>/bin/node` (or, for a keg-only
 * formula such as node@20, `<prefix>/opt/<formula>/bin/node`). nvm's `versions/node/vX/` has no such
 * link: the launcher finds another node at run time.
 */
export function stableNodePath(execPath: string, fs: PathLookups = realFs): string {
  const m = /^(.*)\/Cellar\/([^/]+)\/[^/]+\/bin\/node$/.exec(execPath);
  if (!m) return execPath;
  const [, prefix, formula] = m;
  const real = fs.realpath(execPath) ?? execPath;
  for (const link of [`${prefix}/bin/node`, `${prefix}/opt/${formula}/bin/node`]) {
    if (fs.exists(link) && fs.realpath(link) === real) return link;
  }
  return execPath;
}
