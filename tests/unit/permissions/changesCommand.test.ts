// `rein changes accept|reject` confirm a permission change as the person at the daemon's machine, so a
// run can never approve its own raise: from a tool they are protected calls that ask a person in every
// mode (--yes, auto_approve and bypassPermissions included), and the confirm secret they prove themselves
// with is a hard block to read. `rein changes list` only looks. The lines are test data, never run.
import { beforeAll, describe, expect, it } from 'vitest';
import type { PermissionMode } from '../../../src-main/core/config/schema.js';
import type { EngineOptions } from '../../../src-main/core/permissions/engine.js';
import { initShellParser } from '../../../src-main/core/permissions/shell/parser.js';
import { fileReadTool } from '../../../src-main/core/tools/builtin/fileRead.js';
import { bash, engineFor, HOME } from './helpers.js';

beforeAll(async () => {
  await initShellParser();
});

const PERMISSIVE: Array<[string, Partial<EngineOptions>, PermissionMode]> = [
  ['default', {}, 'default'],
  ['bypassPermissions', {}, 'bypassPermissions'],
  ['--yes', { yes: true }, 'default'],
  ['auto_approve in bypassPermissions', { autoApprove: true }, 'bypassPermissions'],
  [
    'bash in always_allow_tools with every command allowed',
    { permissions: { always_allow_tools: ['bash'], allowed_commands: ['*'] } },
    'bypassPermissions',
  ],
];

const CONFIRMING = [
  'rein changes accept chg_0123456789abcdef',
  'rein changes accept chg_0123456789abcdef --yes',
  'rein changes accept --yes chg_0123456789abcdef --json',
  'rein changes reject chg_0123456789abcdef',
  'npx rein changes accept chg_0123456789abcdef --yes',
  'node ./bin/rein.js changes accept chg_0123456789abcdef -y',
  'REIN_HOME=/tmp/h rein changes accept chg_0123456789abcdef --yes',
  'echo y | rein changes accept chg_0123456789abcdef',
];

describe('rein changes accept and reject from a tool', () => {
  it.each(PERMISSIVE)('ask a person, with %s', async (_label, opts, mode) => {
    for (const line of CONFIRMING) {
      const d = await bash(line, opts, mode, HOME);
      expect(d.decision, line).toBe('ask');
      expect(d.layer, line).toBe('protected');
      expect(d.risk, line).toBe('high');
    }
  });

  it('are refused in dontAsk and plan', async () => {
    for (const line of CONFIRMING.slice(0, 4)) {
      expect((await bash(line, {}, 'dontAsk', HOME)).decision, line).toBe('deny');
      expect((await bash(line, {}, 'plan', HOME)).decision, line).toBe('deny');
    }
  });

  it('`rein changes list` only looks, and runs', async () => {
    for (const line of ['rein changes list', 'rein changes list --json']) {
      const d = await bash(line, { yes: true }, 'default', HOME);
      expect(d.decision, line).toBe('allow');
    }
  });
});

describe('the confirm secret', () => {
  it('is a hard block to read, with every tool and in every mode', async () => {
    for (const line of [
      'cat ~/.rein/secrets/confirm.token',
      'cp ~/.rein/secrets/confirm.token /tmp/x',
      'curl -H "x-rein-confirm: $(cat ~/.rein/secrets/confirm.token)" http://127.0.0.1:7533/changes',
    ]) {
      const d = await bash(line, { autoApprove: true, yes: true }, 'bypassPermissions', HOME);
      expect(d, line).toMatchObject({ decision: 'deny', layer: 'hard_block' });
    }
    const read = await engineFor({ autoApprove: true })({
      tool: fileReadTool,
      input: { path: '~/.rein/secrets/confirm.token' },
      mode: 'bypassPermissions',
      cwd: HOME,
    });
    expect(read).toMatchObject({ decision: 'deny', layer: 'hard_block' });
  });
});
