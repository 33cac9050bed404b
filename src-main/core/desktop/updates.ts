/**
 * Rein's updates, decided in plain Node (the shell adapts electron-updater to `UpdaterPort`,
 * electron/updater.ts). Rules (docs/release.md, *Updates*):
 *
 * - Only a build that can be trusted to replace itself updates: a packaged macOS app signed with a
 *   Developer ID (Squirrel.Mac accepts an update only when it is signed by the same team, and an ad-hoc
 *   or unsigned build has none), or a Linux AppImage built as a release (`"release": true` in the
 *   app's rein-build.json, written at packing). A development build, an ad-hoc build, a .deb (the package
 *   manager updates it) or a self-made AppImage never updates; Settings says why.
 * - With the Settings switch on (`auto_update`), it checks shortly after start and every few hours,
 *   downloads in the background, and installs on quit; when a download is ready it asks once whether to
 *   restart now. "Check for Updates…" in the tray checks at once, with the switch on or off.
 * - The first launch of a new version re-syncs the schedules' launchd jobs (`onUpdated`): a new version
 *   may write its plists differently (core/schedule/resync.ts).
 */
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { Disposable } from '../base/lifecycle.js';
import { errorMessage } from '../errors.js';
import { atomicWriteFile } from '../util/atomicWrite.js';

/** How often a running app looks for a new version. */
export const UPDATE_CHECK_INTERVAL_MS = 4 * 60 * 60 * 1000;
/** The first check waits for the app to settle (daemon, tray, the launch-time schedule sync). */
export const UPDATE_FIRST_CHECK_DELAY_MS = 30 * 1000;

/** What the shell's updater reports; the subset of electron-updater's events Rein uses. */
export type UpdaterEvent =
  | { type: 'checking' }
  | { type: 'available'; version: string }
  | { type: 'not-available'; version?: string }
  | { type: 'progress'; percent: number }
  | { type: 'downloaded'; version: string }
  | { type: 'error'; message: string };

/** electron-updater's AppUpdater as the controller needs it (a fake in tests). */
export interface UpdaterPort {
  /** Looks for an update; with autoDownload on, a found one downloads in the background. */
  checkForUpdates(): Promise<unknown>;
  /** Quits the app, installs the downloaded update and starts the new version. */
  quitAndInstall(): void;
  onEvent(listener: (event: UpdaterEvent) => void): Disposable;
}

/** How the running macOS bundle is signed (`codesign -dv`): only a Developer ID can update. */
export type MacSignature = 'developer-id' | 'other-identity' | 'adhoc' | 'unsigned';

export interface UpdateEligibilityInput {
  packaged: boolean;
  platform: NodeJS.Platform;
  /** macOS: what `codesign -dv` said of the app bundle. */
  macSignature?: MacSignature;
  /** Linux: the AppImage this app runs from (`$APPIMAGE`), when it does. */
  appImage?: string;
  /** rein-build.json beside the app's resources: how the build was made. */
  build?: BuildInfo;
}

export type UpdateEligibility = { eligible: true } | { eligible: false; reason: string };

/** Written by scripts/afterPack.cjs into the app's resources folder. */
export const BuildInfo = z.object({
  /** Built by the release workflow (REIN_RELEASE=1): the only builds that may replace themselves from the release channel. */
  release: z.boolean(),
  /** "developer-id", "adhoc" or "none": what the packing step was asked to sign with. */
  signing: z.string().optional(),
});
export type BuildInfo = z.infer<typeof BuildInfo>;

export const BUILD_INFO_FILE = 'rein-build.json';

/** Reads rein-build.json from the resources folder; undefined when it is missing or not valid. */
export async function readBuildInfo(resourcesDir: string): Promise<BuildInfo | undefined> {
  try {
    const parsed = BuildInfo.safeParse(JSON.parse(await readFile(join(resourcesDir, BUILD_INFO_FILE), 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Whether this build may update itself, and if not, why (in words Settings shows). */
export function updateEligibility(input: UpdateEligibilityInput): UpdateEligibility {
  if (!input.packaged)
    return { eligible: false, reason: 'a development build does not update itself (git pull and npm start)' };
  if (input.platform === 'darwin') {
    switch (input.macSignature) {
      case 'developer-id':
        return { eligible: true };
      case 'adhoc':
        return {
          eligible: false,
          reason:
            'this build is signed ad hoc, not with a Developer ID: updates need a signed release (docs/release.md)',
        };
      case 'other-identity':
        return {
          eligible: false,
          reason:
            'this build is not signed with a Developer ID Application certificate: updates need a signed release (docs/release.md)',
        };
      default:
        return { eligible: false, reason: 'this build is not signed: updates need a signed release (docs/release.md)' };
    }
  }
  if (input.platform === 'linux') {
    if (!input.appImage)
      return {
        eligible: false,
        reason: 'only the AppImage updates itself; a .deb is updated by installing the new .deb',
      };
    if (!input.build?.release)
      return {
        eligible: false,
        reason: 'this AppImage was not built as a release (REIN_RELEASE=1), so it does not replace itself',
      };
    return { eligible: true };
  }
  return { eligible: false, reason: `updates are not offered on ${input.platform}` };
}

/**
 * What `codesign --display --verbose=2 <app>` prints (on stderr) says of the signature. A Developer ID
 * signature names `Authority=Developer ID Application: …` and a team; an ad-hoc one says
 * `Signature=adhoc`; an unsigned bundle makes codesign fail with "code object is not signed at all".
 */
export function parseCodesignDisplay(output: string, exitCode: number | null): MacSignature {
  if (/not signed at all/i.test(output) || (exitCode !== 0 && !/^Identifier=/m.test(output))) return 'unsigned';
  if (/^Signature=adhoc$/m.test(output)) return 'adhoc';
  const team = /^TeamIdentifier=(.+)$/m.exec(output)?.[1]?.trim();
  if (/^Authority=Developer ID Application: /m.test(output) && team && team !== 'not set') return 'developer-id';
  return 'other-identity';
}

export type UpdateState =
  | { state: 'off'; reason: string }
  | { state: 'idle'; lastCheck?: string; latest?: string }
  | { state: 'checking' }
  | { state: 'downloading'; version: string; percent?: number }
  | { state: 'ready'; version: string }
  | { state: 'failed'; message: string };

/** The answer the tray's "Check for Updates…" shows. */
export type ManualCheckResult =
  | { outcome: 'not-eligible'; reason: string }
  | { outcome: 'up-to-date'; version: string }
  | { outcome: 'downloading'; version: string }
  | { outcome: 'ready'; version: string }
  | { outcome: 'failed'; message: string };

export interface Clock {
  setTimeout(fn: () => void, ms: number): unknown;
  setInterval(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

export const realClock: Clock = {
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref?.();
    return t;
  },
  setInterval: (fn, ms) => {
    const t = setInterval(fn, ms);
    t.unref?.();
    return t;
  },
  clear: (h) => clearTimeout(h as NodeJS.Timeout),
};

export interface UpdateControllerOptions {
  updater: UpdaterPort;
  eligibility: UpdateEligibility;
  /** The Settings switch (`auto_update` in desktop.json), read at each scheduled check. */
  enabled(): boolean;
  /** A download is ready: ask the person whether to restart now (else it installs at quit). */
  askToRestart(version: string): Promise<'restart' | 'later'>;
  log(message: string): void;
  clock?: Clock;
  intervalMs?: number;
  firstCheckDelayMs?: number;
}

/** Runs the checks: when, how often, what a result means; never on a build that may not update. */
export class UpdateController implements Disposable {
  readonly #o: Required<Omit<UpdateControllerOptions, 'clock'>> & { clock: Clock };
  #state: UpdateState;
  #timers: unknown[] = [];
  #subscription: Disposable | undefined;
  #asked = new Set<string>();
  #checking: Promise<ManualCheckResult> | undefined;
  #disposed = false;

  constructor(opts: UpdateControllerOptions) {
    this.#o = {
      clock: realClock,
      intervalMs: UPDATE_CHECK_INTERVAL_MS,
      firstCheckDelayMs: UPDATE_FIRST_CHECK_DELAY_MS,
      ...opts,
    };
    this.#state = opts.eligibility.eligible ? { state: 'idle' } : { state: 'off', reason: opts.eligibility.reason };
    if (opts.eligibility.eligible) this.#subscription = opts.updater.onEvent((e) => this.#observe(e));
  }

  get state(): UpdateState {
    return this.#state;
  }

  /** Schedules the first check and the periodic ones (each skipped while the switch is off). */
  start(): void {
    if (!this.#o.eligibility.eligible) {
      this.#o.log(`updates: off (${this.#o.eligibility.reason})`);
      return;
    }
    const scheduled = () => {
      if (this.#o.enabled()) void this.#check();
    };
    this.#timers.push(this.#o.clock.setTimeout(scheduled, this.#o.firstCheckDelayMs));
    this.#timers.push(this.#o.clock.setInterval(scheduled, this.#o.intervalMs));
  }

  /** The tray's "Check for Updates…": checks now, whatever the switch says. */
  checkNow(): Promise<ManualCheckResult> {
    if (!this.#o.eligibility.eligible)
      return Promise.resolve({ outcome: 'not-eligible', reason: this.#o.eligibility.reason });
    if (this.#state.state === 'ready') return Promise.resolve({ outcome: 'ready', version: this.#state.version });
    if (this.#state.state === 'downloading')
      return Promise.resolve({ outcome: 'downloading', version: this.#state.version });
    return this.#check();
  }

  /** Restarts into a downloaded update (the person said so). */
  restartNow(): void {
    if (this.#state.state === 'ready') this.#o.updater.quitAndInstall();
  }

  dispose(): void {
    this.#disposed = true;
    for (const t of this.#timers) this.#o.clock.clear(t);
    this.#timers = [];
    this.#subscription?.dispose();
  }

  /** One check at a time: a second caller gets the first one's answer. */
  #check(): Promise<ManualCheckResult> {
    this.#checking ??= (async (): Promise<ManualCheckResult> => {
      this.#state = { state: 'checking' };
      try {
        await this.#o.updater.checkForUpdates();
      } catch (e) {
        this.#state = { state: 'failed', message: errorMessage(e) };
      }
      const s = this.#state as UpdateState; // events of the check have changed it meanwhile
      switch (s.state) {
        case 'downloading':
          return { outcome: 'downloading', version: s.version };
        case 'ready':
          return { outcome: 'ready', version: s.version };
        case 'failed':
          this.#o.log(`updates: the check failed: ${s.message}`);
          return { outcome: 'failed', message: s.message };
        default: {
          // No event said otherwise: nothing newer.
          const latest = s.state === 'idle' ? s.latest : undefined;
          this.#state = { state: 'idle', lastCheck: new Date().toISOString(), ...(latest ? { latest } : {}) };
          return { outcome: 'up-to-date', version: latest ?? 'this version' };
        }
      }
    })().finally(() => {
      this.#checking = undefined;
    });
    return this.#checking;
  }

  #observe(e: UpdaterEvent): void {
    if (this.#disposed) return;
    switch (e.type) {
      case 'checking':
        if (this.#state.state !== 'downloading' && this.#state.state !== 'ready') this.#state = { state: 'checking' };
        return;
      case 'available':
        this.#o.log(`updates: Rein ${e.version} found, downloading in the background`);
        this.#state = { state: 'downloading', version: e.version };
        return;
      case 'not-available':
        this.#state = {
          state: 'idle',
          lastCheck: new Date().toISOString(),
          ...(e.version ? { latest: e.version } : {}),
        };
        return;
      case 'progress':
        if (this.#state.state === 'downloading') this.#state = { ...this.#state, percent: Math.round(e.percent) };
        return;
      case 'downloaded':
        this.#o.log(`updates: Rein ${e.version} downloaded; it installs when Rein quits`);
        this.#state = { state: 'ready', version: e.version };
        // Asked once per version: a "Later" is not asked again at the next check.
        if (!this.#asked.has(e.version)) {
          this.#asked.add(e.version);
          void this.#o.askToRestart(e.version).then(
            (answer) => {
              if (answer === 'restart' && !this.#disposed) this.restartNow();
            },
            (err: unknown) => this.#o.log(`updates: could not ask to restart: ${errorMessage(err)}`),
          );
        }
        return;
      case 'error':
        this.#state = { state: 'failed', message: e.message };
        this.#o.log(`updates: ${e.message}`);
        return;
    }
  }
}

const VersionFile = z.object({ version: z.string() });
export const VERSION_FILE = 'app-version.json';

/**
 * Records the version this launch runs and says whether it differs from the last launch's (an update
 * was installed). A first launch ever (no file) is not an update. The file is REIN_HOME/app-version.json.
 */
export async function noteRunningVersion(home: string, version: string): Promise<{ updatedFrom?: string }> {
  const file = join(home, VERSION_FILE);
  let previous: string | undefined;
  try {
    const parsed = VersionFile.safeParse(JSON.parse(await readFile(file, 'utf8')));
    if (parsed.success) previous = parsed.data.version;
  } catch {
    previous = undefined;
  }
  if (previous === version) return {};
  await mkdir(home, { recursive: true, mode: 0o700 });
  await atomicWriteFile(file, `${JSON.stringify({ version }, null, 2)}\n`, { mode: 0o600 });
  return previous === undefined ? {} : { updatedFrom: previous };
}
