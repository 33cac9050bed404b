import { useEffect, useState } from 'react';
import type { ReinApi, ReinStatus } from '../../src-main/core/api/index.js';

export type View =
  | { kind: 'no-bridge' }
  | { kind: 'loading' }
  | { kind: 'ready'; status: ReinStatus }
  | { kind: 'failed'; message: string };

/** `api` is `window.rein`; it is undefined when the page is opened in a plain browser. */
export function App({ api }: { api: ReinApi | undefined }) {
  const [view, setView] = useState<View>(api ? { kind: 'loading' } : { kind: 'no-bridge' });

  useEffect(() => {
    if (!api) return;
    let current = true;
    api.status().then(
      (status) => current && setView({ kind: 'ready', status }),
      (err: unknown) => current && setView({ kind: 'failed', message: err instanceof Error ? err.message : String(err) }),
    );
    return () => {
      current = false;
    };
  }, [api]);

  return (
    <main className="app">
      <h1>Rein</h1>
      <p className="status" role="status">
        {statusLine(view)}
      </p>
    </main>
  );
}

/** The one line under the title: which agent is active, or why we cannot tell. */
export function statusLine(view: View): string {
  switch (view.kind) {
    case 'no-bridge':
      return 'The desktop bridge is not available: open this page in the Rein app.';
    case 'loading':
      return 'Connecting…';
    case 'ready':
      return `Active agent: ${view.status.activeAgent} (Rein ${view.status.version})`;
    case 'failed':
      return `Rein did not answer: ${view.message}`;
  }
}
