/**
 * Does a launchd job's program start Rein? Run the way launchd runs it — with only the plist's
 * environment, from `/` — but with arguments that only print: the launcher's `--check` (it must find a
 * node and Rein's script), then `<program…> schedule --help`, which must exit 0 and print Rein's help.
 * For `rein doctor` (core/doctor/launchdChecks.ts); changes nothing.
 */
import { runProcess, type ProcessResult } from '../process/subprocess.js';
import { programFilesExist, type PlistProgram } from './resync.js';

export type ProbeResult = { ok: true; uses: string } | { ok: false; problem: string };

export const PROBE_TIMEOUT_MS = 20_000;

const lastLines = (s: string): string => s.trim().split('\n').filter(Boolean).slice(-3).join(' / ').slice(0, 400);

function describeEnd(r: ProcessResult): string {
  if (r.kind === 'spawn_failed') return r.error.message;
  if (r.kind === 'timed_out') return 'it did not finish in time';
  return `exit ${r.exitCode ?? r.exitSignal}`;
}

export async function probeJobProgram(
  p: PlistProgram,
  env: Readonly<Record<string, string>>,
  timeoutMs = PROBE_TIMEOUT_MS,
): Promise<ProbeResult> {
  if (!programFilesExist(p)) {
    const gone = [p.prefix[0], ...(p.kind === 'launcher' ? [p.prefix[2]] : [])].filter(
      (f): f is string => f !== undefined,
    );
    return {
      ok: false,
      problem: `the job starts ${gone.join(' with ')}, and ${gone.length > 1 ? 'one of them is' : 'it is'} gone (Rein or node moved, updated or uninstalled)`,
    };
  }
  const file = p.prefix[0]!;
  const run = (args: string[]) => runProcess({ file, args, env: { ...env }, cwd: '/', timeoutMs, lingering: 'kill' });
  let uses = file;
  if (p.kind === 'launcher') {
    const r = await run(['--check', ...p.prefix.slice(1)]);
    if (r.kind !== 'exited' || r.exitCode !== 0)
      return {
        ok: false,
        problem: `${file} cannot start Rein with the job's environment: ${lastLines(r.stderr || r.stdout) || describeEnd(r)}`,
      };
    const node = /^node: (.*)$/m.exec(r.stdout)?.[1];
    if (node) uses = `${file} → node ${node}`;
  }
  const r = await run([...p.prefix.slice(1), 'schedule', '--help']);
  if (r.kind !== 'exited' || r.exitCode !== 0 || !r.stdout.includes('rein schedule')) {
    return {
      ok: false,
      problem: `${p.prefix.join(' ')} schedule --help did not run with the job's environment: ${lastLines(r.stderr || r.stdout) || describeEnd(r)}`,
    };
  }
  return { ok: true, uses };
}
