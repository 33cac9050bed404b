/**
 * The audit log: one JSON line per tool call decision, in `<REIN_HOME>/logs/audit.jsonl`, so a person can
 * later see what ran, who allowed it and why. Several processes (the app, the daemon, CLI runs) append to
 * the same file, so every append — and the rotation that keeps the log bounded — happens under an
 * inter-process lock; lines never interleave and none are lost.
 *
 * The lock is owner-checked (util/ownedLock.ts): one left by a process that was killed while appending is
 * taken over at once, so the next append (and the run that waits for it before saving, harness/executor.ts)
 * is never held up. Why a lock for every append, rather than lock-free `O_APPEND` writes: rotation must see
 * the file's true size and rename it with nobody writing meanwhile (else files end up over the limit or
 * nearly empty), and repairing a torn last line must know that no other line is being added at that moment.
 * Each line still goes out in one write() of the whole line, in `O_APPEND` mode.
 *
 * A line cut short (a kill mid-write, a full disk) is left as it is — nothing already written is changed —
 * but ended with a newline before the next append, so the next line starts on its own line and parses.
 * Readers skip lines that do not parse (`jq -R 'fromjson?'`, docs/hooks.md).
 *
 * Rotation: when the next line would push the file past `maxBytes`, audit.jsonl becomes audit.1.jsonl,
 * audit.1 becomes audit.2, and so on; `keep` counts every file including the live one, so the oldest
 * beyond it is dropped.
 */
import { mkdir, open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { z } from 'zod';
import { ReinError, errorMessage } from '../errors.js';
import { describeWriteError, isStorageFailure } from '../util/diskErrors.js';
import { withOwnedLock, type OwnedLockOptions } from '../util/ownedLock.js';
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
  /** The lock's wait, clock and pause (tests inject a clock). */
  lock?: Pick<OwnedLockOptions, 'waitMs' | 'now' | 'sleep'>;
}

/**
 * A lock older than this is taken over even when its pid looks alive: an append holds it for a few
 * system calls, so only a reused pid (on a system without process start times) keeps one that long.
 */
const AUDIT_LOCK_STALE_MS = 10_000;

/** Appends from this process go one at a time per file (every runtime of the daemon has its own AuditLog). */
const queues = new Map<string, Promise<void>>();

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
  private readonly lock: AuditLogOptions['lock'];

  constructor(
    readonly file: string,
    opts: AuditLogOptions = {},
  ) {
    this.maxBytes = opts.maxBytes ?? AUDIT_MAX_BYTES;
    this.keep = Math.max(1, Math.floor(opts.keep ?? AUDIT_KEEP));
    this.lock = opts.lock;
    if (!(this.maxBytes > 0))
      throw new ReinError('invalid_input', `audit log maxBytes must be positive, got ${opts.maxBytes}`);
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
    // The in-process queue orders this process's appends; the file lock orders them against other processes.
    const done = (queues.get(this.file) ?? Promise.resolve()).then(() => this.write(text));
    const tail = done.catch(() => undefined);
    queues.set(this.file, tail);
    void tail.then(() => {
      if (queues.get(this.file) === tail) queues.delete(this.file);
    });
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
    const line = Buffer.from(text, 'utf8');
    try {
      await mkdir(dirname(this.file), { recursive: true, mode: 0o700 });
      await withOwnedLock(`${this.file}.lock`, () => this.appendLocked(line), {
        holder: 'an audit log append',
        staleMs: AUDIT_LOCK_STALE_MS,
        ...this.lock,
      });
    } catch (e) {
      // A full or failing disk as util/diskErrors.ts says it (`disk_full` / `io_error`, the file named).
      if (isStorageFailure(e)) throw describeWriteError(e, this.file, `write the audit log ${this.file}`);
      throw new ReinError(
        'internal',
        `could not write the audit log ${this.file}: ${errorMessage(e)}`,
        { file: this.file },
        { cause: e },
      );
    }
  }

  private async appendLocked(line: Buffer): Promise<void> {
    let fh = await open(this.file, 'a+', 0o600);
    try {
      let { size } = await fh.stat();
      // A torn last line (a kill or a full disk mid-write) is ended first, so this line is not glued to it.
      let torn = size > 0 && !(await endsWithNewline(fh, size));
      if (size > 0 && size + (torn ? 1 : 0) + line.length > this.maxBytes) {
        if (torn) await writeAll(fh, Buffer.from('\n'));
        await fh.close();
        await this.rotate();
        fh = await open(this.file, 'a+', 0o600);
        size = (await fh.stat()).size;
        torn = size > 0 && !(await endsWithNewline(fh, size));
      }
      await writeAll(fh, torn ? Buffer.concat([Buffer.from('\n'), line]) : line);
    } finally {
      await fh.close().catch(() => undefined);
    }
  }

  private async rotate(): Promise<void> {
    const names = this.files();
    await unlink(names[names.length - 1]!).catch(ignoreMissing);
    for (let i = names.length - 2; i >= 0; i--) await rename(names[i]!, names[i + 1]!).catch(ignoreMissing);
  }
}

async function endsWithNewline(fh: FileHandle, size: number): Promise<boolean> {
  const last = Buffer.alloc(1);
  const { bytesRead } = await fh.read(last, 0, 1, size - 1);
  return bytesRead === 1 && last[0] === 0x0a;
}

/** One write() of the whole buffer (O_APPEND: lands at the end as one piece); a short write continues. */
async function writeAll(fh: FileHandle, data: Buffer): Promise<void> {
  let off = 0;
  while (off < data.length) {
    const { bytesWritten } = await fh.write(data, off, data.length - off);
    if (bytesWritten <= 0) throw new Error(`wrote ${off} of ${data.length} bytes`);
    off += bytesWritten;
  }
}

function ignoreMissing(e: unknown): void {
  if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
}
