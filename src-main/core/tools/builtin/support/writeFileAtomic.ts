/**
 * write-file-atomic, loaded by the first file tool that writes: it brings signal-exit and worker_threads
 * with it, which a run that never writes a file should not pay for (docs/architecture.md, *Startup*).
 */
import type WriteFileAtomic from 'write-file-atomic';

let loading: Promise<typeof WriteFileAtomic> | undefined;

export async function writeFileAtomic(file: string, data: string, options: WriteFileAtomic.Options): Promise<void> {
  loading ??= import('write-file-atomic').then(
    (m) => (m as { default?: typeof WriteFileAtomic }).default ?? (m as unknown as typeof WriteFileAtomic),
  );
  const write = await loading;
  await write(file, data, options);
}
