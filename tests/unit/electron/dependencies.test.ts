// What ships: `dependencies` go into the packaged app, so a test-only or type-only package listed there
// is dead weight in every install (issue 18).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '../../../package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

describe('package.json', () => {
  it('ships no type packages and no browser driver', () => {
    const shipped = Object.keys(pkg.dependencies);
    expect(shipped.filter((d) => d.startsWith('@types/'))).toEqual([]);
    expect(shipped).not.toContain('playwright-core');
    expect(Object.keys(pkg.devDependencies)).toEqual(
      expect.arrayContaining(['playwright-core', '@types/ws', '@types/picomatch']),
    );
  });
});
