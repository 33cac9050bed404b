/**
 * The desktop-only part of the page's API, beside ReinApi: settings that exist only in the Electron
 * app (Dock icon, approval dialogs, notifications, the hotkey and whether it could be registered),
 * removing the API key from the keychain, asking macOS for a privacy permission, and the shell asking
 * the page to open a view. The preload exposes it as `window.reinDesktop`; in a plain browser it is
 * absent and the page hides what needs it. (The key itself, the hotkey and the permission status also
 * travel through ReinApi's getSettings / saveSettings, which the shell answers in the desktop app.)
 * Pure zod, no Node built-ins: the renderer bundles this file.
 */
import { z } from 'zod';
import { Accelerator, DEFAULT_HOTKEY } from './accelerator.js';
import { MacPermissionName } from './reinApi.js';
import { ChangeId } from './patterns.js';

const Hotkey = z.union([z.literal(''), Accelerator]);

export const DesktopSettings = z.strictObject({
  /** Global shortcut that shows or hides the chat window; "" turns it off. */
  hotkey: Hotkey.default(DEFAULT_HOTKEY),
  /** Rein is a menu-bar app: no Dock icon unless asked for. */
  show_dock_icon: z.boolean().default(false),
  /** Ask for approvals with a native dialog when the chat window is not in front. */
  approval_dialogs: z.boolean().default(true),
  /** System notifications for finished background runs and approval requests. */
  notifications: z.boolean().default(true),
  /**
   * Start Rein (in the menu bar, no window) when the person logs in: its heartbeats and watchers run then.
   * Absent until the person chooses (onboarding asks; Settings has the switch): off until then. Applied
   * to the system only when it changes, never at every start.
   */
  open_at_login: z.boolean().optional(),
  /** "Don't ask again" to moving Rein into /Applications from a lasting place (core/desktop/firstLaunch.ts). */
  move_to_applications_declined: z.boolean().default(false),
  /** Look for a new version every few hours, download it in the background, install it on quit (signed builds only). */
  auto_update: z.boolean().default(true),
});
export type DesktopSettings = z.infer<typeof DesktopSettings>;

/** A change from the settings view: one or more of the fields, nothing else. */
export const DesktopSettingsPatch = z
  .strictObject({
    hotkey: Hotkey.optional(),
    show_dock_icon: z.boolean().optional(),
    approval_dialogs: z.boolean().optional(),
    notifications: z.boolean().optional(),
    open_at_login: z.boolean().optional(),
    auto_update: z.boolean().optional(),
    move_to_applications_declined: z.boolean().optional(),
  })
  .refine((p) => Object.keys(p).length > 0, 'give at least one setting to change');
export type DesktopSettingsPatch = z.infer<typeof DesktopSettingsPatch>;

/**
 * "Open at login" as the system has it: `available` only in a packaged app on macOS (login items) or
 * Linux (XDG autostart); `enabled` is what the system says now (the person may have removed the login
 * item in System Settings), `chosen` whether the person has answered yet (onboarding asks until then).
 */
export const LoginItemStatus = z.strictObject({
  available: z.boolean(),
  enabled: z.boolean(),
  chosen: z.boolean(),
  /** Why it is not available, or why the last change could not be made. */
  problem: z.string().optional(),
});
export type LoginItemStatus = z.infer<typeof LoginItemStatus>;

export const HotkeyStatus = z.strictObject({
  accelerator: z.string(),
  registered: z.boolean(),
  /** Why it is not registered (taken by another app, invalid, turned off). */
  problem: z.string().optional(),
});
export type HotkeyStatus = z.infer<typeof HotkeyStatus>;

export const DesktopSettingsView = z.strictObject({
  settings: DesktopSettings,
  hotkey: HotkeyStatus,
  /**
   * Where a key saved in Settings goes (core/secrets/apiKey.ts): the macOS Keychain, the Secret Service
   * (libsecret), or a 0600 file that is plain text at rest (`plain_text`), with why no keychain (`problem`).
   */
  key_storage: z.strictObject({
    available: z.boolean(),
    store: z.enum(['keychain', 'libsecret', 'file']).optional(),
    location: z.string().optional(),
    plain_text: z.boolean().optional(),
    problem: z.string().optional(),
  }),
  /** Where the settings are kept. */
  file: z.string(),
  /** The login item as the system has it (optional: an older app does not say). */
  login_item: LoginItemStatus.optional(),
});
export type DesktopSettingsView = z.infer<typeof DesktopSettingsView>;

/** A key as pasted: one token, no spaces or line breaks, of a sane length. */
export const ApiKeyText = z
  .string()
  .max(4096)
  .transform((s) => s.trim())
  .pipe(
    z
      .string()
      .min(8, 'is too short to be an API key')
      .max(512, 'is too long to be an API key')
      .regex(/^[\x21-\x7e]+$/, 'must be one token of printable characters without spaces'),
  );

export const MacPermissionStatus = z.enum(['authorized', 'denied', 'restricted', 'not determined', 'unavailable']);
export type MacPermissionStatus = z.infer<typeof MacPermissionStatus>;

export const desktopOperations = {
  desktopSettings: { input: z.undefined(), output: DesktopSettingsView },
  updateDesktopSettings: { input: DesktopSettingsPatch, output: DesktopSettingsView },
  /** Deletes the stored key (every store: `rein auth remove`); runs then use ANTHROPIC_API_KEY from the environment, if any. */
  clearApiKey: { input: z.undefined(), output: z.strictObject({ removed: z.boolean() }) },
  /** Asks macOS for the permission (it shows its own prompt or lists Rein in System Settings). */
  requestMacPermission: {
    input: z.strictObject({ permission: MacPermissionName }),
    output: z.strictObject({ permission: MacPermissionName, status: MacPermissionStatus }),
  },
  /**
   * A person's answer to a permission-raising change asked for over the daemon's API (GET /changes):
   * `apply` makes it exactly as it was asked, `reject` drops it. Only faces known to be a person answer —
   * this window, and `rein changes accept|reject` in a shell on the daemon's machine (which proves itself
   * with a secret the page never gets): a token holder cannot confirm its own change.
   */
  answerChange: {
    input: z.strictObject({ change_id: ChangeId, decision: z.enum(['apply', 'reject']) }),
    output: z.strictObject({ change_id: z.string(), outcome: z.enum(['applied', 'rejected']) }),
  },
} as const satisfies Record<string, { input: z.ZodType; output: z.ZodType }>;

export type DesktopOperationName = keyof typeof desktopOperations;
export type DesktopOperationInput<K extends DesktopOperationName> = z.input<(typeof desktopOperations)[K]['input']>;
export type DesktopOperationOutput<K extends DesktopOperationName> = z.output<(typeof desktopOperations)[K]['output']>;
export const desktopOperationNames = Object.keys(desktopOperations) as DesktopOperationName[];

export type DesktopChannel<K extends DesktopOperationName = DesktopOperationName> = `rein:desktop.${K}`;
export const desktopChannel = <K extends DesktopOperationName>(name: K): DesktopChannel<K> => `rein:desktop.${name}`;

/** Main → page: open one of the page's views (from the tray menu or a notification). */
export const DESKTOP_NAVIGATE_CHANNEL = 'rein:navigate';
export const DesktopView = z.enum(['chat', 'approvals', 'agents', 'sessions', 'schedules', 'settings']);
export type DesktopView = z.infer<typeof DesktopView>;

type DesktopMethod<K extends DesktopOperationName> =
  undefined extends DesktopOperationInput<K>
    ? (input?: DesktopOperationInput<K>) => Promise<DesktopOperationOutput<K>>
    : (input: DesktopOperationInput<K>) => Promise<DesktopOperationOutput<K>>;

/** `window.reinDesktop`: one method per desktop operation, plus the shell's requests to open a view. */
export type ReinDesktopApi = { [K in DesktopOperationName]: DesktopMethod<K> } & {
  onNavigate(listener: (view: DesktopView) => void): () => void;
};
