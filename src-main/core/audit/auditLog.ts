/**
 * The audit log: one JSON line per tool call decision, in `<REIN_HOME>/logs/audit.jsonl`, so a person can
 * later see what ran, who allowed it and why. Several processes (the app, the daemon, CLI runs) append to
 * the same file, so every append — and the rotation that keeps the log bounded — happens under an
 * inter-process lock; lines never interleave and none are lost.
 *
 * Rotation: when the next line would push the file past `maxBytes`, audit.jsonl becomes audit.1.jsonl,
 * audit.1 becomes audit.2, and so on; `keep` counts every file including the live one, so the oldest
 * beyond it is dropped.
 */
import { appendFile, mkdir, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { z } from 'zod';
import { ReinError, errorMessage } from '../errors.js';
import { withFileLock } from '../util/fileLock.js';
import { describeIssues } from '../util/zodIssues.js';
import { maskSecrets } from './maskSecrets.js';

export const AUDIT_MAX_BYTES = 10 * 1024 * 1024;
export const AUDIT_KEEP = 5;
/** Longest argument summary in a line. */
export const AUDIT_ARGS_MAX = 500;

export const AuditEntry = z.strictObject({
  /** ISO time; now when absent. */
  time: z.string().optional(),
  session: z.string(),
  agent: z.string().min(1),
  /** Where the run came from: cli, desktop, daemon, schedule, heartbeat, watcher, webhook… */
  source: z.string().min(1),
  tool: z.string().min(1),
  /** The tool input (or a summary of it); summarised to AUDIT_ARGS_MAX characters with secrets masked. */
  args: z.unknown(),
  /** Whether the call was let through. */
  decision: z.enum(['allow', 'deny']),
  /** Which layer decided: hard_block, denied_commands, allowed, mode, hook, user… */
  layer: z.string().min(1),
  /** Who approved: the policy itself (`policy`), a face (`terminal`, `desktop`…), `always_allow`; null when denied without asking. */
  approved_by: z.string().nullable().default(null),
  /** How long the call ran; null when it never ran. */
  duration_ms: z.number().nonnegative().nullable().default(null),
  /** Whether the call succeeded, when it ran. */
  ok: z.boolean().optional(),
});
export type AuditEntryInput = z.input<typeof AuditEntry>;

export interface AuditLogOptions {
  maxBytes?: number;
  keep?: number;
}

/** The argument summary: stringified, secrets masked, cut to AUDIT_ARGS_MAX characters. */
export function summarizeArgs(args: unknown): string {
  let text: string;
  if (typeof args === 'string') text = args;
  else {
    try {
      text = JSON.stringify(args) ?? String(args);
    } catch {
      text = String(args);
    }
  }
  // Mask before cutting, so a key straddling the cut is still recognised; a generous head keeps that cheap.
  const masked = maskSecrets(text.slice(0, AUDIT_ARGS_MAX * 4));
  return masked.length > AUDIT_ARGS_MAX ? `${masked.slice(0, AUDIT_ARGS_MAX - 1)}…` : masked;
}

export class AuditLog {
  private readonly maxBytes: number;
  private readonly keep: number;
  /** Appends from this process go one at a time; the file lock orders them against other processes. */
  private queue: Promise<void> = Promise.resolve();

  constructor(
    readonly file: string,
    opts: AuditLogOptions = {},
  ) {
    this.maxBytes = opts.maxBytes ?? AUDIT_MAX_BYTES;
    this.keep = Math.max(1, Math.floor(opts.keep ?? AUDIT_KEEP));
    if (!(this.maxBytes > 0)) throw new ReinError('invalid_input', `audit log maxBytes must be positive, got ${opts.maxBytes}`);
  }

  append(entry: AuditEntryInput): Promise<void> {
    const parsed = AuditEntry.safeParse(entry);
    if (!parsed.success) {
      const problems = describeIssues(parsed.error.issues, entry).map((p) => `${p.field}: ${p.message}`);
      return Promise.reject(new ReinError('invalid_input', `bad audit entry: ${problems.join('; ')}`, { problems }));
    }
    const e = parsed.data;
    const line: Record<string, unknown> = {
      time: e.time ?? new Date().toISOString(),
      session: e.session,
      agent: e.agent,
      source: e.source,
      tool: e.tool,
      args: summarizeArgs(e.args),
      decision: e.decision,
      layer: e.layer,
      approved_by: e.approved_by,
      duration_ms: e.duration_ms,
    };
    if (e.ok !== undefined) line.ok = e.ok;
    const text = `${JSON.stringify(line)}\n`;
    const done = this.queue.then(() => this.write(text));
    this.queue = done.catch(() => undefined);
    return done;
  }

  /** The file names from newest to oldest: audit.jsonl, audit.1.jsonl, … */
  files(): string[] {
    return Array.from({ length: this.keep }, (_, i) => this.rotated(i));
  }

  private rotated(index: number): string {
    if (index === 0) return this.file;
    const ext = extname(this.file);
    return join(dirname(this.file), `${basename(this.file, ext)}.${index}${ext}`);
  }

  private async write(text: string): Promise<void> {
    try {
      await mkdir(dirname(this.file), { recursive: true, mode: 0o700 });
      await withFileLock(this.file, async () => {
        const size = await stat(this.file).then(
          (s) => s.size,
          () => 0,
        );
        if (size > 0 && size + Buffer.byteLength(text) > this.maxBytes) await this.rotate();
        await appendFile(this.file, text, { mode: 0o600 });
      });
    } catch (e) {
      throw new ReinError('internal', `could not write the audit log ${this.file}: ${errorMessage(e)}`, { file: this.file }, { cause: e });
    }
  }

  private async rotate(): Promise<void> {
    const names = this.files();
    await unlink(names[names.length - 1]!).catch(ignoreMissing);
    for (let i = names.length - 2; i >= 0; i--) await rename(names[i]!, names[i + 1]!).catch(ignoreMissing);
  }
}

function ignoreMissing(e: unknown): void {
  if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
}
