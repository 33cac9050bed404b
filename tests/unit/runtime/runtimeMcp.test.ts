import { describe, expect, it } from 'vitest';
import { GlobalConfig } from '../../../src-main/core/config/schema.js';
import { mcpAlwaysAllow, untilStopped } from '../../../src-main/core/runtime/runtimeMcp.js';

describe('untilStopped', () => {
  it('is the work itself without a signal, or while the signal stays quiet', async () => {
    await expect(untilStopped(Promise.resolve(7), undefined)).resolves.toBe(7);
    await expect(untilStopped(Promise.resolve(8), new AbortController().signal)).resolves.toBe(8);
  });

  it('fails with llm_cancelled at once when the signal is already aborted or aborts meanwhile', async () => {
    const aborted = new AbortController();
    aborted.abort();
    await expect(untilStopped(new Promise(() => undefined), aborted.signal)).rejects.toMatchObject({
      code: 'llm_cancelled',
    });
    const later = new AbortController();
    const waiting = untilStopped(new Promise(() => undefined), later.signal);
    later.abort();
    await expect(waiting).rejects.toMatchObject({ code: 'llm_cancelled' });
  });
});

describe('mcpAlwaysAllow', () => {
  it('lists only the servers that have an always_allow list', () => {
    const config = GlobalConfig.parse({
      mcp_servers: {
        files: { command: 'files-server', always_allow: ['read'] },
        web: { command: 'web-server' },
      },
    });
    expect(mcpAlwaysAllow(config)).toEqual({ files: ['read'] });
  });
});
