/**
 * Electron accelerator strings ("CommandOrControl+Shift+Space") checked before they reach
 * `globalShortcut.register`, which only answers false and cannot say what was wrong. A global hotkey
 * needs a modifier (a bare letter would be taken from every app), except the function keys.
 */
import { z } from 'zod';

const MODIFIERS = new Set([
  'command',
  'cmd',
  'control',
  'ctrl',
  'commandorcontrol',
  'cmdorctrl',
  'alt',
  'option',
  'altgr',
  'shift',
  'super',
  'meta',
]);

const NAMED_KEYS = new Set([
  'plus',
  'space',
  'tab',
  'capslock',
  'numlock',
  'scrolllock',
  'backspace',
  'delete',
  'insert',
  'return',
  'enter',
  'up',
  'down',
  'left',
  'right',
  'home',
  'end',
  'pageup',
  'pagedown',
  'escape',
  'esc',
  'volumeup',
  'volumedown',
  'volumemute',
  'medianexttrack',
  'mediaprevioustrack',
  'mediastop',
  'mediaplaypause',
  'printscreen',
  'numdec',
  'numadd',
  'numsub',
  'nummult',
  'numdiv',
]);
const PUNCTUATION = new Set([...')!@#$%^&*(:;=<,_->.?/~`{][|\\}"\'']);

function isKey(part: string): boolean {
  const p = part.toLowerCase();
  return (
    /^[a-z0-9]$/.test(p) ||
    /^f([1-9]|1[0-9]|2[0-4])$/.test(p) ||
    /^num[0-9]$/.test(p) ||
    NAMED_KEYS.has(p) ||
    PUNCTUATION.has(part)
  );
}

/** Why `accelerator` is not usable as a global hotkey, or undefined when it is. */
export function acceleratorProblem(accelerator: string): string | undefined {
  if (accelerator.trim() !== accelerator || accelerator === '')
    return 'must be a key combination like CommandOrControl+Shift+Space';
  const parts = accelerator.split('+');
  if (parts.some((p) => p === '')) return 'has an empty part (write the + key as "Plus")';
  const key = parts.at(-1)!;
  const modifiers = parts.slice(0, -1);
  const unknown = modifiers.find((m) => !MODIFIERS.has(m.toLowerCase()));
  if (unknown !== undefined) return `"${unknown}" is not a modifier (use CommandOrControl, Alt, Shift, Super…)`;
  if (new Set(modifiers.map((m) => m.toLowerCase())).size !== modifiers.length) return 'repeats a modifier';
  if (MODIFIERS.has(key.toLowerCase())) return 'ends with a modifier; add a key (e.g. Space)';
  if (!isKey(key)) return `"${key}" is not a key Electron knows`;
  if (modifiers.length === 0 && !/^f([1-9]|1[0-9]|2[0-4])$/i.test(key))
    return 'needs a modifier (CommandOrControl, Alt, Shift…): a bare key would be taken from every app';
  return undefined;
}

export const Accelerator = z.string().superRefine((value, ctx) => {
  const problem = acceleratorProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

export const DEFAULT_HOTKEY = 'CommandOrControl+Shift+Space';
