/**
 * Folder trust at the terminal: what a project overlay would set, and the one question `rein run` and
 * `rein trust` ask about it (core/config/folderTrust.ts decides what needs asking). A yes is
 * remembered in `$REIN_HOME/trusted-folders.json` with the overlay's sha256, so the same bytes are not
 * asked about again and changed bytes are.
 */
import { createInterface } from 'node:readline/promises';
import type { Readable, Writable } from 'node:stream';
import { describeSetting, printable, shellWord } from '../core/config/folderTrust.js';
import type { FolderTrustDecider, OverlayCandidate } from '../core/config/load.js';
import { TrustedFolders, trustFolder } from '../core/config/trustedFolders.js';

/** The overlay's raising settings, one per line, for a person to decide on. */
export function describeOverlay(o: Pick<OverlayCandidate, 'file' | 'settings'>): string {
  return (
    `${printable(o.file)} sets what can run programs, widen what the agent may do or send your API key elsewhere:\n` +
    o.settings.map((s) => `  ${describeSetting(s)}\n`).join('')
  );
}

export type TrustAnswer = 'yes' | 'no' | 'interrupted';

/** Asks once on the terminal; Enter, n or anything but y is no; Ctrl-C is `interrupted`. */
export async function askTrust(
  io: { input: Readable; output: Writable },
  o: Pick<OverlayCandidate, 'folder' | 'file' | 'settings'>,
): Promise<TrustAnswer> {
  io.output.write(`\n${describeOverlay(o)}`);
  const rl = createInterface({ input: io.input, output: io.output, terminal: true });
  const interrupted = new AbortController();
  rl.once('SIGINT', () => interrupted.abort());
  try {
    const answer = (
      await rl.question(
        `Trust ${shellWord(o.folder)} and apply these? Rein remembers it until the file changes. [y]es / [N]o: `,
        { signal: interrupted.signal },
      )
    )
      .trim()
      .toLowerCase();
    return answer === 'y' || answer === 'yes' ? 'yes' : 'no';
  } catch {
    return interrupted.signal.aborted ? 'interrupted' : 'no';
  } finally {
    rl.close();
  }
}

export interface TerminalTrustOptions {
  home: string;
  /** Whether a person can be asked (a terminal on stdin and stdout, an attended run). */
  ask: boolean;
  input: Readable;
  output: Writable;
  warn: (message: string) => void;
}

/**
 * The trust decision of `rein run`: the trust file first; an overlay it does not trust is asked about
 * when a person is at the terminal (a yes is remembered), else left out. `interrupted` says the person
 * pressed Ctrl-C at the question.
 */
export function terminalTrust(o: TerminalTrustOptions): FolderTrustDecider & { interrupted: boolean } {
  const decider = {
    interrupted: false,
    async decide(overlay: OverlayCandidate): Promise<boolean> {
      const stored = await TrustedFolders.load(o.home, o.warn);
      if (stored.decide(overlay)) return true;
      if (!o.ask) return false;
      const answer = await askTrust({ input: o.input, output: o.output }, overlay);
      if (answer === 'interrupted') decider.interrupted = true;
      if (answer !== 'yes') return false;
      await trustFolder(o.home, overlay.folder, overlay.hash, o.warn);
      return true;
    },
  };
  return decider;
}

/**
 * The loadConfig options of a command that never asks (`rein doctor`, `rein mcp`, `rein schedule`…): the
 * trust file decides, and an overlay it does not trust is left out with one warning line on stderr.
 */
export function storedTrust(io: { stderr: Writable }): { trust: 'stored'; warn: (message: string) => void } {
  return { trust: 'stored', warn: (m) => void io.stderr.write(`rein: ${m}\n`) };
}
