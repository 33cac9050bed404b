/**
 * Settings that only the desktop app has (hotkey, Dock icon, dialogs, notifications), in
 * `<REIN_HOME>/desktop.json`. They live apart from config.yaml because the CLI and the daemon have no
 * use for them and config.yaml refuses keys it does not know. A missing file means the defaults; a
 * broken one is an error naming the file and the field, and is never overwritten: a change is refused
 * until the file is fixed or removed. The schema is part of the page's contract (core/api/desktopApi).
 */
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DesktopSettings, type DesktopSettingsPatch } from '../api/desktopApi.js';
import { ReinError } from '../errors.js';
import { atomicWriteFile } from '../util/atomicWrite.js';
import { describeIssues } from '../util/zodIssues.js';

export const desktopSettingsFile = (home: string): string => join(home, 'desktop.json');

export async function loadDesktopSettings(home: string): Promise<DesktopSettings> {
  const file = desktopSettingsFile(home);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return DesktopSettings.parse({});
    throw new ReinError('config_io', `cannot read ${file}: ${(e as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new ReinError('config_invalid', `${file} is not valid JSON: ${(e as Error).message}`);
  }
  const parsed = DesktopSettings.safeParse(raw);
  if (!parsed.success) {
    const problems = describeIssues(parsed.error.issues, raw).map((p) => `${p.field}: ${p.message}`);
    throw new ReinError('config_invalid', `${file}: ${problems.join('; ')}`, { file });
  }
  return parsed.data;
}

/** Applies `patch` to the settings on disk (validated as a whole) and writes them atomically. */
export async function updateDesktopSettings(home: string, patch: DesktopSettingsPatch): Promise<DesktopSettings> {
  const next = DesktopSettings.parse({ ...(await loadDesktopSettings(home)), ...patch });
  await mkdir(home, { recursive: true, mode: 0o700 });
  await atomicWriteFile(desktopSettingsFile(home), `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
  return next;
}
