/**
 * "Open at login" as the desktop app keeps it: applied only when the person changes it (onboarding asks,
 * Settings has the switch), never at start, so a login item removed in System Settings is not added
 * back and macOS shows no "Login Item Added" nobody asked for. What the system has is read each time;
 * the last change that could not be made is kept to show in Settings. The system calls are the shell's
 * (electron/loginItem.ts: Electron's login items, the XDG autostart entry).
 */
import type { LoginItemStatus } from '../api/desktopApi.js';
import { errorMessage } from '../errors.js';
import { loginItemAvailability, loginItemChange } from './loginItem.js';

export interface LoginItemSystem {
  /** Whether the system starts the app at login now; may throw (then: not enabled). */
  enabled(): boolean;
  apply(enabled: boolean): Promise<void>;
}

export interface OpenAtLoginOptions {
  platform: NodeJS.Platform;
  packaged: boolean;
  system: LoginItemSystem;
  /**
   * Why the running copy cannot be a login item (schedule/appLocation.ts: App Translocation, the disk
   * image), in the words of a scheduled run; undefined when it can.
   */
  placeProblem: () => { message: string } | undefined;
  warn: (message: string) => void;
}

export class OpenAtLogin {
  readonly #availability: ReturnType<typeof loginItemAvailability>;
  #problem: string | undefined;

  constructor(private readonly o: OpenAtLoginOptions) {
    this.#availability = loginItemAvailability(o.platform, o.packaged);
  }

  /** What the system has (false where it cannot be applied, or when it cannot be read). */
  systemEnabled(): boolean {
    if (!this.#availability.available) return false;
    try {
      return this.o.system.enabled();
    } catch {
      return false;
    }
  }

  /** Makes the system match the person's choice; a change that cannot be made is logged and kept for status. */
  async apply(enabled: boolean): Promise<void> {
    this.#problem = undefined;
    if (!this.#availability.available) return;
    const change = loginItemChange(this.systemEnabled(), enabled);
    if (change === 'none') return;
    // App Translocation, the disk image: the copy running now is not where the app will be at login.
    const place = change === 'add' ? this.o.placeProblem() : undefined;
    if (place) {
      this.#problem = place.message
        .replace('a scheduled run could not start', 'it could not start at login')
        .replace('then make the schedule', 'then turn this on');
      this.o.warn(this.#problem);
      return;
    }
    try {
      await this.o.system.apply(enabled);
    } catch (e) {
      this.#problem = `"Open at login" could not be ${enabled ? 'turned on' : 'turned off'}: ${errorMessage(e)}`;
      this.o.warn(this.#problem);
    }
  }

  /** The status Settings shows; `chosen`: the person has answered (settings.open_at_login is set). */
  status(chosen: boolean): LoginItemStatus {
    const a = this.#availability;
    return {
      available: a.available,
      enabled: this.systemEnabled(),
      chosen,
      ...(this.#problem ? { problem: this.#problem } : !a.available ? { problem: a.problem } : {}),
    };
  }
}
