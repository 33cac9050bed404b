import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { FakeReply } from '../tests/support/fakeAnthropic.js';

export interface RemoteFake {
  pid: number | undefined;
  url: string;
  stats(): Promise<{
    raw: string[];
    accounting: { cacheRead: number; cacheWrite: number; uncached: number; output: number };
  }>;
  close(): void;
}

export async function startRemoteFake(script: FakeReply[], opts: { light?: boolean } = {}): Promise<RemoteFake> {
  const entry = fileURLToPath(new URL('./fakeServerProcess.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    env: { ...process.env, REIN_FAKE_SCRIPT: JSON.stringify(script), ...(opts.light ? { REIN_FAKE_LIGHT: '1' } : {}) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let buf = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      buf += d;
      const nl = buf.indexOf('\n');
      if (nl >= 0) resolve(buf.slice(0, nl).trim());
    });
    child.once('exit', (code) => reject(new Error(`fake server exited early (${code})`)));
  });
  return {
    pid: child.pid,
    url,
    stats: async () =>
      (await (await fetch(`${url}/_fake/requests`)).json()) as Awaited<ReturnType<RemoteFake['stats']>>,
    close: () => child.kill('SIGTERM'),
  };
}

export function commonPrefixLength(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

export function median(xs: number[]): number {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

export function percentile(xs: number[], p: number): number {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
}

export const fmt = (n: number, digits = 1) => n.toFixed(digits);
