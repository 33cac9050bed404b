/**
 * What an MCP server's refusal says, short. The SDK puts a refused request's whole body into its error
 * text (`Error POSTing to endpoint: <!DOCTYPE html>…`), and that text is what `rein mcp list`, the app
 * and the daemon's status show. A fetch wrapped here hands the SDK, for every 4xx/5xx answer, a body that
 * is the status line and a short reason instead of an HTML page: the page's `<title>` (or first heading)
 * when it has one, else nothing; a non-HTML body (a JSON-RPC error, a plain sentence) is kept, cut to
 * 300 characters. Headers stay as they were (`WWW-Authenticate` still reaches the OAuth code).
 */

const MAX_REASON = 300;

const looksLikeHtml = (contentType: string, body: string): boolean =>
  /html/i.test(contentType) || /^\s*<(!doctype|html|head|body)\b/i.test(body);

/** Words a page says about its status: its `<title>`, first heading or `<pre>`, skipping ones that say nothing ("Error"). */
function htmlReason(body: string, line: string): string | undefined {
  for (const re of [/<title[^>]*>([\s\S]*?)<\/title>/i, /<h1[^>]*>([\s\S]*?)<\/h1>/i, /<pre[^>]*>([\s\S]*?)<\/pre>/i]) {
    const text = re
      .exec(body)?.[1]
      ?.replace(/<[^>]*>/g, ' ')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&')
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/\s+/g, ' ')
      .trim();
    if (!text || /^(error|not found|\d{3})$/i.test(text) || line.endsWith(text) || text === line) continue;
    return text.slice(0, MAX_REASON);
  }
  return undefined;
}

/** `404 Not Found` plus a short reason taken from the body (never an HTML page). */
export function shortRefusal(status: number, statusText: string, contentType: string, body: string): string {
  const line = `${status}${statusText ? ` ${statusText}` : ''}`;
  if (looksLikeHtml(contentType, body)) {
    const reason = htmlReason(body, line);
    return reason ? `${line} (${reason})` : line;
  }
  const flat = body.replace(/\s+/g, ' ').trim();
  if (!flat) return line;
  return `${line}: ${flat.length > MAX_REASON ? `${flat.slice(0, MAX_REASON - 1)}…` : flat}`;
}

/** `fetch` whose error answers carry a short plain-text body (see above). */
export function politeFetch(base: typeof fetch): typeof fetch {
  return async (input, init) => {
    const res = await base(input, init);
    if (res.status < 400) return res;
    const contentType = res.headers.get('content-type') ?? '';
    // An event stream is never an error page; leave it (and anything the SDK reads as a stream) alone.
    if (/text\/event-stream/i.test(contentType)) return res;
    const body = await res.text().catch(() => '');
    const html = looksLikeHtml(contentType, body);
    const headers = new Headers(res.headers);
    for (const h of ['content-length', 'content-encoding', 'transfer-encoding']) headers.delete(h);
    if (html) headers.set('content-type', 'text/plain; charset=utf-8');
    const text = html
      ? shortRefusal(res.status, res.statusText, contentType, body)
      : body.length > MAX_REASON * 4
        ? `${body.slice(0, MAX_REASON * 4)}…`
        : body;
    return new Response(text, { status: res.status, statusText: res.statusText, headers });
  };
}
