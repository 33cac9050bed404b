/** Whether two base URLs name the same server and path (`https://x/` and `https://X` do). */
export function sameBaseUrl(a: string, b: string): boolean {
  return normalBaseUrl(a) === normalBaseUrl(b);
}

function normalBaseUrl(u: string): string {
  try {
    const url = new URL(u.trim());
    return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
  } catch {
    return u.trim();
  }
}
