/**
 * The one door from the page into the main process. Every handler goes through `handle`, which first
 * checks who is asking (our window, its top frame, our page) and then the payload (zod), and always
 * answers with a ReinEnvelope so a failure reaches the page as data, not as a mangled thrown error.
 */
import { ipcMain, type IpcMainInvokeEvent, type WebContents, type WebFrameMain } from 'electron';
import type { z } from 'zod';
import type { ReinEnvelope } from '../core/api/index.js';
import type { Disposable } from '../core/base/lifecycle.js';
import { errorMessage, isReinError } from '../core/errors.js';

export type { Disposable };

export type SenderCheck = (event: IpcMainInvokeEvent) => boolean;

export function handle<S extends z.ZodType, R>(
  channel: `rein:${string}`,
  schema: S,
  trusted: SenderCheck,
  fn: (input: z.output<S>) => Promise<R> | R,
): Disposable {
  ipcMain.handle(channel, async (event, raw: unknown): Promise<ReinEnvelope<R>> => {
    // Say nothing about why: a stranger learns no more than that it was refused.
    if (!trusted(event)) return { ok: false, error: `${channel}: refused sender`, code: 'refused' };
    const input = schema.safeParse(raw);
    if (!input.success) {
      const problems = input.error.issues.map((i) => `${i.path.join('.') || '(input)'}: ${i.message}`);
      const field = input.error.issues[0]?.path.join('.');
      return {
        ok: false,
        error: `${channel}: ${problems.join('; ')}`,
        code: 'invalid_input',
        ...(field ? { field } : {}),
      };
    }
    try {
      return { ok: true, value: await fn(input.data) };
    } catch (err) {
      const field = fieldOf(err);
      return { ok: false, error: `${channel}: ${errorMessage(err)}`, code: codeOf(err), ...(field ? { field } : {}) };
    }
  });
  return { dispose: () => ipcMain.removeHandler(channel) };
}

/** A ReinError's code, or the code of an error that carries one (HttpError); else `internal`. */
function codeOf(err: unknown): string {
  if (isReinError(err)) return err.code;
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[a-z_]+$/.test(code) ? code : 'internal';
}

function fieldOf(err: unknown): string | undefined {
  if (isReinError(err)) return typeof err.details?.field === 'string' ? err.details.field : undefined;
  const field = (err as { field?: unknown } | null)?.field;
  return typeof field === 'string' ? field : undefined;
}

/**
 * Trust a call only from one of our windows, from its top frame (never an iframe), while that frame
 * shows our page. `senderFrame` is null once the frame navigated away or was destroyed.
 *
 * Both checks go by identity, never by JavaScript object: Electron may hand out a new wrapper object
 * for the same frame (or web contents) on each call, and `senderFrame === sender.mainFrame` would then
 * refuse every call of our own page. A web contents is known by its `id`; a frame by its renderer
 * process and routing id, and a top frame has no parent.
 */
export function ourTopFrame(windows: () => ReadonlySet<WebContents>, isOurPage: (url: URL) => boolean): SenderCheck {
  return (event) => {
    const frame = event.senderFrame;
    if (!frame || !isOneOf(event.sender, windows())) return false;
    if (!isTopFrameOf(frame, event.sender)) return false;
    try {
      return isOurPage(new URL(frame.url));
    } catch {
      return false; // an unparsable URL is not our page
    }
  };
}

function isOneOf(sender: WebContents, windows: ReadonlySet<WebContents>): boolean {
  for (const w of windows) if (w === sender || w.id === sender.id) return true;
  return false;
}

type FrameIdentity = Pick<WebFrameMain, 'processId' | 'routingId' | 'parent'>;

/** Is `frame` the top frame of `contents`: the same process and routing id as its main frame, and no parent? */
export function isTopFrameOf(frame: FrameIdentity, contents: { mainFrame: FrameIdentity }): boolean {
  const top = contents.mainFrame;
  return (
    frame.parent === null &&
    top.parent === null &&
    frame.processId === top.processId &&
    frame.routingId === top.routingId
  );
}

/**
 * Is `url` the page we loaded? Same scheme and path for a file page (query and hash may change);
 * same origin for the dev server, which serves the page with module URLs of its own.
 */
export function isSamePage(loaded: string): (url: URL) => boolean {
  const ours = new URL(loaded);
  return (url) =>
    ours.protocol === 'file:' ? url.protocol === 'file:' && url.pathname === ours.pathname : url.origin === ours.origin;
}
