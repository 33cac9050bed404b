/**
 * What the chat window does when its page fails to load (`did-fail-load`) or its renderer process goes
 * (`render-process-gone`): a blank window that says nothing is the worst answer. A few reloads are
 * tried (a crash or a dev server that was restarting); past that, the window shows a page saying what
 * happened and where the log is, instead of trying forever. Every event is logged. Pure: the shell
 * (electron/window.ts) feeds it the events and does what it says.
 */

/** Reloads allowed within RELOAD_WINDOW_MS before the window gives up and says so. */
export const MAX_RELOADS = 3;
export const RELOAD_WINDOW_MS = 60_000;

/** Chromium's net error for a load replaced by another one (a navigation, a reload): not a failure. */
const ERR_ABORTED = -3;

export type PageTrouble =
  | { kind: 'load_failed'; errorCode: number; errorDescription: string; url: string; mainFrame: boolean }
  | { kind: 'renderer_gone'; reason: string; exitCode: number };

export type Recovery =
  | { action: 'ignore' }
  | { action: 'reload'; log: string }
  | { action: 'explain'; log: string; title: string; message: string };

export class WindowRecovery {
  #reloads: number[] = [];

  constructor(private readonly now: () => number = Date.now) {}

  decide(trouble: PageTrouble, logFile?: string): Recovery {
    if (trouble.kind === 'load_failed') {
      if (!trouble.mainFrame || trouble.errorCode === ERR_ABORTED) return { action: 'ignore' };
    } else if (trouble.reason === 'clean-exit') {
      return { action: 'ignore' };
    }
    const what =
      trouble.kind === 'load_failed'
        ? `the page ${trouble.url} did not load: ${trouble.errorDescription} (${trouble.errorCode})`
        : `the window's renderer process ended: ${trouble.reason} (exit code ${trouble.exitCode})`;
    const t = this.now();
    this.#reloads = this.#reloads.filter((at) => t - at < RELOAD_WINDOW_MS);
    if (this.#reloads.length < MAX_RELOADS) {
      this.#reloads.push(t);
      return { action: 'reload', log: `${what}; reloading (${this.#reloads.length} of ${MAX_RELOADS})` };
    }
    return {
      action: 'explain',
      log: `${what}; ${MAX_RELOADS} reloads within a minute did not help, the window shows what happened`,
      title: 'Rein’s window could not be shown',
      message: `${capitalise(what)}. Reloading did not help. Quit Rein from the menu bar and open it again${logFile ? `; the log is ${logFile}` : ''}.`,
    };
  }

  /** The page loaded: earlier trouble is over. */
  loaded(): void {
    this.#reloads = [];
  }
}

const capitalise = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/** A self-contained page (no script) that says what happened: shown as a data: URL by the shell. */
export function troublePage(title: string, message: string, dark: boolean): string {
  const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  const [bg, fg] = dark ? ['#1c1c1e', '#e6e6e6'] : ['#ffffff', '#1d1d1f'];
  return (
    `<!doctype html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">` +
    `<title>${esc(title)}</title><style>body{font:14px -apple-system,system-ui,sans-serif;background:${bg};color:${fg};margin:32px}</style></head>` +
    `<body><h1 style="font-size:18px">${esc(title)}</h1><p>${esc(message)}</p></body></html>`
  );
}

/** The window's colour before the page paints (no white flash in dark mode); matches styles.css. */
export const windowBackground = (dark: boolean): string => (dark ? '#1c1c1e' : '#ffffff');
