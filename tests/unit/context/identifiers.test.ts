import { describe, expect, it } from 'vitest';
import {
  ensureIdentifiers,
  findIdentifiers,
  IDENTIFIERS_HEADING,
  pickIdentifiers,
} from '../../../src-main/core/context/identifiers.js';

describe('identifier extraction', () => {
  it('finds paths, URLs, host:port, hashes, uuids, tickets and long numbers, once each', () => {
    const text =
      'Edited /srv/app/config/prod.yaml and src/app/main.ts, see https://example.com/runbook?id=7. ' +
      'DB at db.internal:5432 and 10.0.0.12:8080; commit 4f2a9c1e, run 3f2b8a4e-1c2d-4e5f-8a9b-0c1d2e3f4a5b, ticket OPS-1234, order 99812345, deploy-7f3a9c2e.';
    expect(findIdentifiers(text)).toEqual([
      '/srv/app/config/prod.yaml',
      'src/app/main.ts',
      'https://example.com/runbook?id=7',
      'db.internal:5432',
      '10.0.0.12:8080',
      '4f2a9c1e',
      '3f2b8a4e-1c2d-4e5f-8a9b-0c1d2e3f4a5b',
      'OPS-1234',
      '99812345',
      'deploy-7f3a9c2e',
    ]);
  });

  it('ignores ordinary words, short numbers, lone slashes and single-segment folders', () => {
    expect(findIdentifiers('and/or the cafe added 12345 items to /tmp in 2024 / deadbeef')).toEqual([]);
  });

  it('picks at most 12, preferring what people and the model said over tool output, in order of appearance', () => {
    const noise = Array.from({ length: 20 }, (_, i) => `/var/log/noise${i}.log`).join(' ');
    const picked = pickIdentifiers([
      { text: noise, weight: 1 },
      { text: 'use /srv/keep/me.yaml', weight: 3 },
      { text: 'and https://keep.example/x', weight: 2 },
    ]);
    expect(picked).toHaveLength(12);
    expect(picked).toContain('/srv/keep/me.yaml');
    expect(picked).toContain('https://keep.example/x');
  });

  it('appends only the identifiers the summary lacks, verbatim', () => {
    const r = ensureIdentifiers('We edited /a/b.ts.', ['/a/b.ts', 'db.internal:5432']);
    expect(r.appended).toEqual(['db.internal:5432']);
    expect(r.text).toBe(`We edited /a/b.ts.\n\n${IDENTIFIERS_HEADING}\n- db.internal:5432`);
    expect(ensureIdentifiers('x /a/b.ts', ['/a/b.ts']).text).toBe('x /a/b.ts');
  });
});
