/** The URL when it is an absolute http(s) URL, otherwise undefined: the only links the page follows. */
export function safeUrl(url: string | undefined | null): string | undefined {
  if (!url) return undefined;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : undefined;
  } catch {
    return undefined; // relative or malformed
  }
}
