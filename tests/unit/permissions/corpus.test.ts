// The labelled corpus through the real engine: no deny-label may come out ask or allow, no ask-label may come
// out allow; and every deny stays deny in bypassPermissions, with --yes, with auto_approve, with bash in
// always_allow_tools and with allowed_commands matching everything.
import { beforeAll, describe, expect, it } from 'vitest';
import { createPermissionEngine, type EngineOptions } from '../../../src-main/core/permissions/engine.js';
import { initShellParser } from '../../../src-main/core/permissions/shell/parser.js';
import type { PermissionDecision } from '../../../src-main/core/permissions/types.js';
import type { PermissionMode } from '../../../src-main/core/config/schema.js';
import { bashTool } from '../../../src-main/core/tools/builtin/bash.js';
import { CORPUS_CWD, CORPUS_HOME, loadCorpus } from './corpusFile.js';

const corpus = loadCorpus();

function decideAll(opts: Partial<EngineOptions>, mode: PermissionMode, rows = corpus) {
  const engine = createPermissionEngine({ permissions: {}, home: CORPUS_HOME, ...opts });
  return rows.map((row) => ({
    row,
    d: engine.check({
      tool: bashTool,
      input: { command: row.command },
      cwd: CORPUS_CWD,
      mode,
      source: 'cli',
      origin: 'attended',
      agent: 'default',
    }) as PermissionDecision,
  }));
}

const show = (
  xs: { row: { file: string; line: number; command: string; expected: string }; d: PermissionDecision }[],
) =>
  xs
    .map(
      (x) =>
        `${x.row.file}:${x.row.line}: expected ${x.row.expected}, got ${x.d.decision} (${x.d.layer}): ${JSON.stringify(x.row.command)}`,
    )
    .join('\n');

beforeAll(async () => {
  await initShellParser();
});

describe('command corpus', () => {
  it('has at least 300 labelled lines covering every label', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(300);
    for (const label of ['deny', 'ask', 'allow'] as const)
      expect(corpus.filter((r) => r.expected === label).length).toBeGreaterThan(50);
  });

  it('never lets a deny-label through, nor allows an ask-label (mode default)', () => {
    const results = decideAll({}, 'default');
    const leakedDenies = results.filter((x) => x.row.expected === 'deny' && x.d.decision !== 'deny');
    const allowedAsks = results.filter((x) => x.row.expected === 'ask' && x.d.decision === 'allow');
    expect(show(leakedDenies)).toBe('');
    expect(show(allowedAsks)).toBe('');
    const overCautious = results.filter((x) => x.row.expected === 'allow' && x.d.decision !== 'allow');
    // Not a failure: an allow-label that asks only costs a prompt. Reported so regressions are visible.
    console.info(
      `corpus: ${overCautious.length} of ${results.filter((x) => x.row.expected === 'allow').length} allow-labels came out ask`,
    );
  });

  it('every deny is a hard block or a tool-level refusal that names its rule', () => {
    for (const { row, d } of decideAll({}, 'default').filter((x) => x.row.expected === 'deny')) {
      expect(d.layer, row.command).toBe('hard_block');
      expect(d.reason, row.command).toMatch(/^hard block "[a-z-]+"/);
      expect(d.risk, row.command).toBe('high');
    }
  });

  const denies = corpus.filter((r) => r.expected === 'deny');
  const stillDenied = (label: string, opts: Partial<EngineOptions>, mode: PermissionMode) => {
    it(`keeps every deny-label denied with ${label}`, () => {
      const leaked = decideAll(opts, mode, denies).filter((x) => x.d.decision !== 'deny');
      expect(show(leaked)).toBe('');
    });
  };
  stillDenied('bypassPermissions', {}, 'bypassPermissions');
  stillDenied('--yes', { yes: true }, 'default');
  stillDenied('auto_approve', { autoApprove: true }, 'bypassPermissions');
  stillDenied('bash in always_allow_tools', { permissions: { always_allow_tools: ['bash'] } }, 'default');
  stillDenied('allowed_commands ["*"]', { permissions: { allowed_commands: ['*'] } }, 'acceptEdits');
  stillDenied('paths compared case-sensitively (a Linux volume)', { caseInsensitivePaths: false }, 'default');
  stillDenied('paths compared case-insensitively (a macOS volume)', { caseInsensitivePaths: true }, 'default');

  it('an auto_approve agent in bypassPermissions, with --yes and everything allowed, runs no hard-blocked payload', () => {
    const trusted: Partial<EngineOptions> = {
      autoApprove: true,
      yes: true,
      permissions: { always_allow_tools: ['bash'], allowed_commands: ['*'], mode: 'bypassPermissions' },
    };
    const results = decideAll(trusted, 'bypassPermissions', denies);
    expect(show(results.filter((x) => x.d.decision !== 'deny' || x.d.layer !== 'hard_block'))).toBe('');
  });

  it('asks about at most 5% of the allow-labels (approval fatigue), and says which', () => {
    const allows = decideAll({}, 'default').filter((x) => x.row.expected === 'allow');
    const asked = allows.filter((x) => x.d.decision !== 'allow');
    if (asked.length > 0) console.info(`allow-labels asked:\n${show(asked)}`);
    console.info(
      `corpus over-ask rate: ${asked.length} of ${allows.length} (${((100 * asked.length) / allows.length).toFixed(1)}%)`,
    );
    expect(asked.length / allows.length).toBeLessThanOrEqual(0.05);
  });

  it('grew in issue 14 by many lines per label, outside the original file', () => {
    const added = corpus.filter((r) => r.file !== 'corpus.tsv');
    const count = (label: string) => added.filter((r) => r.expected === label).length;
    expect(count('deny')).toBeGreaterThanOrEqual(40);
    expect(count('ask')).toBeGreaterThanOrEqual(60);
    expect(count('allow')).toBeGreaterThanOrEqual(80);
    for (const file of ['classes.tsv', 'options.tsv', 'reads.tsv', 'persistence.tsv'])
      expect(
        added.some((r) => r.file === file),
        file,
      ).toBe(true);
  });
});
