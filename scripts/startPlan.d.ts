// Types of scripts/startPlan.js (plain JavaScript: npm start runs it before anything is built), for its tests.
export declare const FETCH_NOTE: string;
export declare function electronBinary(electronDir: string): string | undefined;
export declare function hasDisplay(platform: string, env: Record<string, string | undefined>): boolean;
export type FetchResult = { ok: true } | { ok: false; detail: string };
export declare function runInstaller(
  installer: string,
  opts?: { cwd?: string; env?: Record<string, string | undefined> },
): FetchResult;
export type StartPlan = { kind: 'app'; binary: string } | { kind: 'daemon'; reason: string; failure?: string };
export declare function planStart(o: {
  platform: string;
  env: Record<string, string | undefined>;
  electronDir: string;
  fetch: () => FetchResult;
  log: (line: string) => void;
  /** Why Electron would abort at start here (Ubuntu 24.04's AppArmor sandbox rule), with the fix; undefined when fine. */
  sandboxProblem?: (binary: string) => string | undefined;
}): StartPlan;
