/**
 * Layer 5 for the file tools: resolve the path the way the tool will (`~`, relative to the working folder,
 * symlinks), then ask for anything sensitive — even a read — and for every write unless the mode allows it.
 * Sensitivity is tested on the whole path, not just the file name, so `~/.ssh/config` is caught.
 */
import path from 'node:path';
import picomatch from 'picomatch';
import type { Verdict } from './types.js';
import { realpathLoose } from '../util/realpath.js';
import {
  containsReinSecrets,
  reinHomeForms,
  reinSecretPaths,
  reinSecretReason,
  REIN_SECRET_FILES,
  REIN_SECRETS_DIR,
} from '../secrets/reinSecrets.js';
import { keyMaterialIn } from './secretSearch.js';
import type { PathsTrait } from '../tools/traits.js';
import { BUILTIN_TRAITS } from '../tools/builtin/builtinTraits.js';

export {
  containsReinSecrets,
  realpathLoose,
  reinHomeForms,
  reinSecretPaths,
  reinSecretReason,
  REIN_SECRET_FILES,
  REIN_SECRETS_DIR,
};

/** The path trait of a built-in file tool by its name (for callers that know only the name). */
export const builtinPathsTrait = (tool: string): PathsTrait | undefined => BUILTIN_TRAITS.get(tool)?.paths;

/** File names that hold secrets, wherever they are. */
const SENSITIVE_NAMES = [
  '.env*',
  '*.pem',
  '*.key',
  'id_rsa*',
  'id_ed25519*',
  'id_ecdsa*',
  'id_dsa*',
  '*.keychain',
  '*.keychain-db',
  'credentials.json',
  'tokens.json',
  '*.p12',
  '*.pfx',
  '.netrc',
  '.pgpass',
  '.git-credentials',
  '*.secrets',
  '.npmrc',
  '.pypirc',
  'credentials',
];
/** Folder names whose whole content is secret. */
const SENSITIVE_FOLDERS = new Set(['.ssh', '.aws', '.gnupg', 'keychains', '.password-store']);
/** Home-relative files that hold credentials. */
const SENSITIVE_HOME_FILES = ['.config/gcloud/**', '.kube/config', '.docker/config.json', '.config/gh/hosts.yml'];

export interface SensitivityContext {
  home: string;
  /** REIN_HOME: Rein's own settings decide what the agent may do, so editing them needs a person. */
  reinHome: string;
  /** `permissions.sensitive_patterns`: a pattern with `/` matches the whole path (`~` allowed), otherwise the name. */
  extraPatterns: readonly string[];
}

type Matcher = (p: string) => boolean;
const matcherCache = new Map<string, Matcher>();
function matcher(glob: string): Matcher {
  let m = matcherCache.get(glob);
  if (!m) {
    m = picomatch(glob, { dot: true, nocase: true });
    if (matcherCache.size > 1000) matcherCache.clear();
    matcherCache.set(glob, m);
  }
  return m;
}

// One regular expression for all sensitive names: this check runs for every operand of every command.
const ANY_SENSITIVE_NAME = new RegExp(
  SENSITIVE_NAMES.map((g) => picomatch.makeRe(g, { dot: true, nocase: true }).source).join('|'),
  'i',
);

/** Why this absolute path is sensitive, or undefined. */
export function sensitiveReason(abs: string, ctx: SensitivityContext): string | undefined {
  const base = path.basename(abs);
  if (ANY_SENSITIVE_NAME.test(base)) {
    const name = SENSITIVE_NAMES.find((g) => matcher(g)(base));
    return `its name matches the sensitive pattern "${name ?? base}"`;
  }
  const segments = abs.split('/').map((s) => s.toLowerCase());
  const folder = segments.find((s) => SENSITIVE_FOLDERS.has(s));
  if (folder) return `it is inside a "${folder}" folder`;
  const home = ctx.home.replace(/\/+$/, '');
  const lower = abs.toLowerCase();
  if (lower.startsWith(`${home.toLowerCase()}/`)) {
    const rel = abs.slice(home.length + 1);
    const hit = SENSITIVE_HOME_FILES.find((g) => matcher(g)(rel));
    if (hit) return `it matches the sensitive path "~/${hit}"`;
  }
  // A project's `.rein/config.yaml` is laid over the global config for runs in that folder (mode, hooks,
  // permissions): writing one is raising permissions, so it is never an edit acceptEdits lets through.
  const [parent, name] = segments.slice(-2);
  if (name === 'config.yaml' && parent === '.rein')
    return 'it is a Rein settings file (.rein/config.yaml decides what the agent may do)';
  const rein = ctx.reinHome.replace(/\/+$/, '');
  if (lower.startsWith(`${rein.toLowerCase()}/`)) {
    const rel = abs.slice(rein.length + 1);
    if (matcher('config.yaml')(rel) || matcher('agents/*/config.yaml')(rel) || matcher('**/*.env')(rel)) {
      return "it is one of Rein's own settings files (they decide what the agent may do)";
    }
  }
  for (const p of ctx.extraPatterns) {
    const glob = p.startsWith('~/') ? `${home}/${p.slice(2)}` : p;
    const hit = glob.includes('/') ? matcher(glob)(abs) : matcher(glob)(base);
    if (hit) return `it matches the sensitive_patterns entry "${p}"`;
  }
  return undefined;
}

export function expandHome(p: string, home: string): string {
  if (p === '~') return home;
  if (p.startsWith('~/')) return path.join(home, p.slice(2));
  return p;
}

export interface ResolvedPath {
  /** As written, made absolute: `~` expanded, relative to the working folder. */
  lexical: string;
  /** With symlinks resolved. */
  real: string;
}

export function resolveToolPath(p: string, cwd: string, home: string): ResolvedPath {
  const lexical = path.resolve(cwd, expandHome(p, home));
  return { lexical, real: realpathLoose(lexical) };
}

const isInside = (child: string, parent: string): boolean => {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
};

export interface FileRuleContext extends SensitivityContext {
  cwd: string;
  allowedDirs: readonly string[];
}

export interface FileVerdict {
  decision: Verdict;
  action: 'read' | 'write';
  reason: string;
  path?: ResolvedPath;
  /** Why the path is sensitive, when it is. */
  sensitive?: string;
  /** Why the call would touch one of Rein's own secrets: a hard block in every mode. */
  reinSecret?: string;
  /** The path is inside the working folder or an `allowed_dirs` entry (acceptEdits lets such writes through). */
  insideWorkArea: boolean;
}

const stringField = (input: unknown, key: string): string | undefined => {
  if (!input || typeof input !== 'object') return undefined;
  const v = (input as Record<string, unknown>)[key];
  return typeof v === 'string' ? v : undefined;
};

/** The path a call of a tool with this path trait touches (its default when the input names none). */
export function toolPath(trait: PathsTrait, input: unknown): string | undefined {
  for (const f of trait.fields) {
    const p = stringField(input, f);
    if (p !== undefined && p !== '') return p;
  }
  return trait.default;
}

/**
 * Layer 5 for one call of a tool whose input names a path (its `paths` trait; a built-in tool's is found by
 * its name when not given).
 */
export function checkFileAccess(
  tool: string,
  input: unknown,
  ctx: FileRuleContext,
  trait: PathsTrait | undefined = builtinPathsTrait(tool),
): FileVerdict {
  if (!trait)
    return {
      decision: 'deny',
      action: 'write',
      reason: `${tool} names no path the file rules know`,
      insideWorkArea: false,
    };
  const action = trait.access === 'write' ? 'write' : 'read';
  const raw = toolPath(trait, input);
  if (raw === undefined) return { decision: 'deny', action, reason: `${tool} needs a "path"`, insideWorkArea: false };
  if (raw.includes('\0'))
    return { decision: 'deny', action, reason: 'the path contains a NUL character', insideWorkArea: false };
  const resolved = resolveToolPath(raw, ctx.cwd, ctx.home);
  const candidates = [resolved.lexical, resolved.real];
  // A glob pattern that climbs out or names an absolute place can read there too.
  const pattern = trait.globField !== undefined ? stringField(input, trait.globField) : undefined;
  if (pattern && (pattern.startsWith('/') || pattern.startsWith('~') || pattern.includes('..'))) {
    const segs = pattern.split('/');
    const firstGlob = segs.findIndex((seg) => /[*?[{]/.test(seg));
    const staticPart = (firstGlob === -1 ? segs : segs.slice(0, firstGlob)).join('/');
    if (staticPart)
      candidates.push(
        resolveToolPath(
          path.isAbsolute(staticPart) || staticPart.startsWith('~') ? staticPart : path.join(raw, staticPart),
          ctx.cwd,
          ctx.home,
        ).real,
      );
  }
  // Rein's own secrets: file_read, the writes and grep (which reads contents) are refused in every mode. glob and
  // directory_list only show names (access `list`). grep over a folder above REIN_HOME (the home folder) runs:
  // the tool itself leaves Rein's secret files out of its results.
  if (trait.access !== 'list') {
    const secret = candidates.map((c) => reinSecretReason(c, ctx.reinHome)).find((r) => r !== undefined);
    const searchesReinHome =
      trait.searchField !== undefined &&
      candidates.some((c) => reinHomeForms(ctx.reinHome).includes(path.resolve(c).toLowerCase()));
    const why = secret ?? (searchesReinHome ? "it searches Rein's own folder, which holds its credentials" : undefined);
    if (why) {
      const shownPath =
        resolved.real === resolved.lexical ? resolved.lexical : `${resolved.lexical} (→ ${resolved.real})`;
      return {
        decision: 'deny',
        action,
        reason: `${action === 'read' ? 'reads' : 'writes'} ${shownPath}: ${why}`,
        path: resolved,
        reinSecret: why,
        insideWorkArea: false,
      };
    }
  }
  const sensitive = candidates.map((c) => sensitiveReason(c, ctx)).find((r) => r !== undefined);
  const workAreas = [ctx.cwd, ...ctx.allowedDirs.map((d) => expandHome(d, ctx.home))].flatMap((d) => [
    path.resolve(d),
    realpathLoose(path.resolve(d)),
  ]);
  // Judged on the resolved path: a symlink inside the working folder that points elsewhere is outside.
  const insideWorkArea = workAreas.some((d) => isInside(resolved.real, d));
  const shown = resolved.real === resolved.lexical ? resolved.lexical : `${resolved.lexical} (→ ${resolved.real})`;
  if (sensitive) {
    return {
      decision: 'ask',
      action,
      reason: `${action === 'read' ? 'reads' : 'writes'} ${shown}, a sensitive file: ${sensitive}`,
      path: resolved,
      sensitive,
      insideWorkArea,
    };
  }
  // A search for key material asks, as `grep -r sk-ant .` does in a shell (secretSearch.ts).
  const searched = trait.searchField !== undefined ? stringField(input, trait.searchField) : undefined;
  const material = searched === undefined ? undefined : keyMaterialIn(searched);
  if (action === 'read' && material) {
    return {
      decision: 'ask',
      action,
      reason: `searches ${shown} for ${material} (\`${searched!.slice(0, 40)}\`)`,
      path: resolved,
      sensitive: `a search for ${material}`,
      insideWorkArea,
    };
  }
  if (action === 'read') return { decision: 'allow', action, reason: `reads ${shown}`, path: resolved, insideWorkArea };
  return {
    decision: 'ask',
    action,
    reason: `writes ${shown}${insideWorkArea ? '' : ', outside the working folder'}`,
    path: resolved,
    insideWorkArea,
  };
}
