/**
 * `12345` → `"12,345"`, as `toLocaleString('en-US')` writes an integer, without it: the first
 * `toLocaleString` of a process initialises ICU's number formatting (~5 ms of CPU), and a tool
 * description built at import time made every `rein` start pay for it (docs/architecture.md, *Startup*).
 */
export function groupDigits(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  const rounded = Math.round(n * 1000) / 1000; // toLocaleString keeps at most three decimals
  const [int, frac] = Math.abs(rounded).toString().split('.');
  return `${rounded < 0 ? '-' : ''}${int!.replace(/\B(?=(\d{3})+$)/g, ',')}${frac ? `.${frac}` : ''}`;
}
