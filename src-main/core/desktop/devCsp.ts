/**
 * The page under `npm run dev` (electron-vite's dev server) within the same CSP as the build, less one
 * thing. The dev server would otherwise show a blank window (measured in Chromium with the shell's
 * header): @vitejs/plugin-react writes an inline module script (its Fast Refresh preamble) at the top
 * of index.html, which `script-src 'self'` refuses, and Vite puts every imported stylesheet into a
 * `<style>` element, which `style-src 'self'` refuses.
 *
 * - The preamble becomes a module file: the plugin serves the same code as the virtual module
 *   `@vitejs/plugin-react/preamble` (for pages without an index.html), so `script-src` stays `'self'`
 *   — no hash, no nonce, no `'unsafe-inline'` for scripts, not even in dev.
 * - Styles: `'unsafe-inline'` in `style-src`, in dev only (csp.ts adds it to the shell's header when a
 *   dev server is followed; this plugin adds it to the page's meta tag). The build keeps `'self'`.
 * - Any other inline script the dev server writes (a plugin upgrade) fails the page load with a message
 *   naming it, instead of a blank window.
 *
 * A Vite plugin written as a plain object (no import of vite: core stays free of build tools), applied
 * only by the dev server (`apply: 'serve'`), so the built index.html is untouched.
 */

/** Where the dev server serves plugin-react's preamble as a module (Vite's `/@id/` prefix for a bare id). */
export const PREAMBLE_MODULE_URL = '/@id/@vitejs/plugin-react/preamble';

const INLINE_SCRIPT = /<script\b([^>]*)>([\s\S]*?)<\/script>/gi;
const CSP_META = /(<meta\s+http-equiv="Content-Security-Policy"\s+content=")([^"]*)(")/i;

/** Adds `'unsafe-inline'` to the style-src of a policy (once); every other directive is kept as it is. */
export function withInlineStyles(policy: string): string {
  return policy
    .split(';')
    .map((d) => d.trim())
    .filter((d) => d !== '')
    .map((d) => {
      const [name, ...values] = d.split(/\s+/);
      if (name !== 'style-src' || values.includes("'unsafe-inline'")) return d;
      return [name, ...values, "'unsafe-inline'"].join(' ');
    })
    .join('; ');
}

/**
 * index.html as the dev server sends it, made to fit the CSP: the preamble as a module file, inline
 * styles allowed in the meta policy. Throws on any other inline script, naming its start.
 */
export function devIndexHtml(html: string): string {
  const out = html.replace(INLINE_SCRIPT, (whole, attrs: string, body: string) => {
    if (/\bsrc\s*=/.test(attrs) || body.trim() === '') return whole;
    if (body.includes('injectIntoGlobalHook')) return `<script type="module" src="${PREAMBLE_MODULE_URL}"></script>`;
    throw new Error(
      `the dev server wrote an inline script into index.html, which Rein's CSP refuses (script-src 'self'): ${JSON.stringify(body.trim().slice(0, 80))}; ` +
        'serve it as a module file in src-main/core/desktop/devCsp.ts',
    );
  });
  if (!CSP_META.test(out))
    throw new Error('index.html has no Content-Security-Policy meta tag to adjust for the dev server');
  return out.replace(
    CSP_META,
    (_m, head: string, policy: string, tail: string) => `${head}${withInlineStyles(policy)}${tail}`,
  );
}

/** The Vite plugin (structurally typed): `plugins: [react(), reinDevCsp()]` in the renderer's config. */
export function reinDevCsp(): {
  name: string;
  apply: 'serve';
  transformIndexHtml: { order: 'post'; handler(html: string): string };
} {
  return { name: 'rein:dev-csp', apply: 'serve', transformIndexHtml: { order: 'post', handler: devIndexHtml } };
}
