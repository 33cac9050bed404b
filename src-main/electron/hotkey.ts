/**
 * The global shortcut that shows or hides the chat window. Electron only says whether registering
 * worked; this names why not (invalid, turned off, taken by another app or the system) so Settings
 * and a notification can tell the person.
 */
import { globalShortcut } from 'electron';
import type { HotkeyStatus } from '../core/api/desktopApi.js';
import { acceleratorProblem } from '../core/api/accelerator.js';

export class GlobalHotkey {
  #registered: string | undefined;
  #status: HotkeyStatus = { accelerator: '', registered: false, problem: 'turned off' };

  constructor(private readonly onPress: () => void) {}

  get status(): HotkeyStatus {
    return this.#status;
  }

  /** Replaces the current shortcut with `accelerator` ("" turns it off). The old one is released first. */
  set(accelerator: string): HotkeyStatus {
    this.#release();
    if (accelerator === '') return (this.#status = { accelerator, registered: false, problem: 'turned off' });
    const invalid = acceleratorProblem(accelerator);
    if (invalid) return (this.#status = { accelerator, registered: false, problem: `${accelerator} ${invalid}` });
    let ok = false;
    try {
      ok = globalShortcut.register(accelerator, this.onPress);
    } catch (e) {
      return (this.#status = {
        accelerator,
        registered: false,
        problem: `${accelerator} cannot be registered: ${(e as Error).message}`,
      });
    }
    if (!ok) {
      return (this.#status = {
        accelerator,
        registered: false,
        problem: `${accelerator} is already used by another app or by the system; choose another shortcut in Settings`,
      });
    }
    this.#registered = accelerator;
    return (this.#status = { accelerator, registered: true });
  }

  dispose(): void {
    this.#release();
  }

  #release(): void {
    if (this.#registered !== undefined) globalShortcut.unregister(this.#registered);
    this.#registered = undefined;
  }
}
