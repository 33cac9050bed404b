import { describe, expect, it } from 'vitest';
import { mergeConfigLayers } from '../../../src-main/core/config/merge.js';

describe('mergeConfigLayers', () => {
  it('lets overlay scalars win and keeps base keys the overlay does not name', () => {
    expect(mergeConfigLayers({ model: 'a', max_tokens: 10 }, { model: 'b' })).toEqual({ model: 'b', max_tokens: 10 });
  });

  it('merges nested mappings key by key at any depth', () => {
    const base = { daemon: { port: 1, host: 'h' }, budget: { max_usd_per_run: 3 } };
    const overlay = { daemon: { port: 2 } };
    expect(mergeConfigLayers(base, overlay)).toEqual({
      daemon: { port: 2, host: 'h' },
      budget: { max_usd_per_run: 3 },
    });
  });

  it('appends lists, dropping items already present by value (objects too)', () => {
    const base = { hooks: { Stop: [{ command: 'a' }, { command: 'b' }] }, tools: { allowed: ['x', 'y'] } };
    const overlay = { hooks: { Stop: [{ command: 'b' }, { command: 'c' }] }, tools: { allowed: ['y', 'z', 'x'] } };
    expect(mergeConfigLayers(base, overlay)).toEqual({
      hooks: { Stop: [{ command: 'a' }, { command: 'b' }, { command: 'c' }] },
      tools: { allowed: ['x', 'y', 'z'] },
    });
  });

  it('replaces whole entries of mcp_servers and prices by name', () => {
    const base = {
      mcp_servers: { fs: { command: 'npx', args: ['fs'], env: { A: '1' } }, keep: { command: 'k' } },
      prices: { local: { input: 1, output: 2, cache_read: 0.1 } },
    };
    const overlay = { mcp_servers: { fs: { command: 'node' } }, prices: { local: { input: 0, output: 0 } } };
    expect(mergeConfigLayers(base, overlay)).toEqual({
      mcp_servers: { fs: { command: 'node' }, keep: { command: 'k' } },
      prices: { local: { input: 0, output: 0 } },
    });
  });

  it('lets the overlay replace a value of another shape', () => {
    expect(mergeConfigLayers({ x: [1] }, { x: { a: 1 } })).toEqual({ x: { a: 1 } });
    expect(mergeConfigLayers({ x: { a: 1 } }, { x: 'plain' })).toEqual({ x: 'plain' });
  });

  it('does not modify its inputs', () => {
    const base = { tools: { allowed: ['a'] }, mcp_servers: { s: { command: 'c' } } };
    const overlay = { tools: { allowed: ['b'] }, mcp_servers: { t: { command: 'd' } } };
    const before = structuredClone({ base, overlay });
    mergeConfigLayers(base, overlay);
    expect({ base, overlay }).toEqual(before);
  });

  it('treats a __proto__ server name as a plain key, never as the prototype', () => {
    const overlay = JSON.parse('{"mcp_servers": {"__proto__": {"command": "evil"}}}') as Record<string, unknown>;
    const merged = mergeConfigLayers({ mcp_servers: {} }, overlay);
    const servers = merged.mcp_servers as Record<string, unknown>;
    expect(Object.getPrototypeOf(servers)).toBe(Object.prototype);
    expect(Object.keys(servers)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).command).toBeUndefined();
  });
});
