/**
 * The daemon as the desktop app runs it: in its own main process, with one more approval face beside
 * the daemon's desk (the native dialog), so the broker's first-answer-wins race decides between the
 * dialog, the in-app card and any remote client. The daemon itself is unchanged: its `createRuntime`
 * hook gets a wrapper that adds the faces.
 */
import { startDaemon, type DaemonHandle, type DaemonOptions } from '../daemon/daemon.js';
import type { ApprovalFace } from '../permissions/types.js';
import { createRuntime } from '../runtime/runtime.js';

/** The daemon desk's face is named `daemon`; runs without it (unattended ones) have nobody to ask. */
const ASKS_PEOPLE = (faces: readonly ApprovalFace[]): boolean => faces.some((f) => f.name === 'daemon');

export function withExtraFaces(create: typeof createRuntime, extra: () => readonly ApprovalFace[]): typeof createRuntime {
  return (opts) => create(ASKS_PEOPLE(opts.faces) ? { ...opts, faces: [...opts.faces, ...extra()] } : opts);
}

export interface EmbeddedDaemonOptions extends DaemonOptions {
  /** Faces added to every run that asks a person; read per run, so they can change while the app runs. */
  extraFaces?: () => readonly ApprovalFace[];
}

export function startEmbeddedDaemon({ extraFaces, ...opts }: EmbeddedDaemonOptions): Promise<DaemonHandle> {
  const base = opts.createRuntime ?? createRuntime;
  return startDaemon({ ...opts, createRuntime: extraFaces ? withExtraFaces(base, extraFaces) : base });
}
