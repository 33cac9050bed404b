/**
 * The daemon prints the page's address with its token in the fragment (`http://127.0.0.1:7533/#token=…`):
 * a fragment never reaches a server log or a Referer header. The page reads it once, keeps it in
 * memory only, and takes it out of the address bar and the history entry at once, so it is not left
 * on screen, in a bookmark or in a screenshot.
 */
export interface LaunchToken {
  token?: string;
}

export function takeLaunchToken(
  location: Pick<Location, 'hash' | 'href'>,
  history: Pick<History, 'replaceState' | 'state'>,
): LaunchToken {
  const hash = location.hash.startsWith('#') ? location.hash.slice(1) : location.hash;
  if (!hash) return {};
  const params = new URLSearchParams(hash);
  const token = params.get('token') ?? undefined;
  if (token === undefined) return {};
  params.delete('token');
  const rest = params.toString();
  const url = new URL(location.href);
  url.hash = rest ? `#${rest}` : '';
  // An empty fragment would leave a bare "#" behind; write the address without it.
  history.replaceState(history.state, '', rest ? url.href : url.href.replace(/#$/, ''));
  return token.trim() ? { token: token.trim() } : {};
}
