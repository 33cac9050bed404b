// Modes, flags and sources decide what happens to an "ask"; nothing turns a hard block into an allow.
import { beforeAll, describe, expect, it } from 'vitest';
import { initShellParser } from '../../../src-main/core/permissions/shell/parser.js';
import { bash, CWD, engineFor, fakeTool } from './helpers.js';

const fileWrite = fakeTool('file_write');
const fileRead = fakeTool('file_read', { readOnly: true });
const screenshot = fakeTool('screenshot', { readOnly: true, gui: true });
const customGui = fakeTool('window_mover', { gui: true });
const webFetch = fakeTool('web_fetch', { readOnly: true });
const notes = fakeTool('notes_add');

beforeAll(async () => {
  await initShellParser();
});

describe('default mode', () => {
  it('allows read-only commands, asks for others, denies hard blocks', async () => {
    expect((await bash('git status')).decision).toBe('allow');
    expect((await bash('npm run build')).decision).toBe('ask');
    expect((await bash('rm -rf /')).decision).toBe('deny');
  });

  it('asks for file writes and for tools that are not read-only', async () => {
    const check = engineFor();
    expect((await check({ tool: fileWrite, input: { path: 'a.txt' } })).decision).toBe('ask');
    expect((await check({ tool: notes, input: {} })).decision).toBe('ask');
    expect((await check({ tool: webFetch, input: {} })).decision).toBe('allow');
  });
});

describe('acceptEdits', () => {
  it('allows file writes inside the working folder', async () => {
    const d = await engineFor()({ tool: fileWrite, input: { path: 'src/a.ts' }, mode: 'acceptEdits' });
    expect(d).toMatchObject({ decision: 'allow', layer: 'mode' });
  });

  it('still asks for writes outside the working folder and for sensitive files', async () => {
    const check = engineFor();
    expect((await check({ tool: fileWrite, input: { path: '/etc/hosts' }, mode: 'acceptEdits' })).decision).toBe('ask');
    expect((await check({ tool: fileWrite, input: { path: '../other/a.ts' }, mode: 'acceptEdits' })).decision).toBe(
      'ask',
    );
    expect((await check({ tool: fileWrite, input: { path: '.env' }, mode: 'acceptEdits' })).decision).toBe('ask');
  });

  it('allows writes inside allowed_dirs', async () => {
    const d = await engineFor({ permissions: { allowed_dirs: ['/Users/tester/notes'] } })({
      tool: fileWrite,
      input: { path: '/Users/tester/notes/today.md' },
      mode: 'acceptEdits',
    });
    expect(d.decision).toBe('allow');
  });

  it('keeps checking commands', async () => {
    expect((await bash('npm install', {}, 'acceptEdits')).decision).toBe('ask');
    expect((await bash('echo x > out.txt', {}, 'acceptEdits')).decision).toBe('ask');
  });
});

describe('plan', () => {
  it('runs read-only tools and commands', async () => {
    expect((await bash('git log | head', {}, 'plan')).decision).toBe('allow');
    expect((await engineFor()({ tool: fileRead, input: { path: 'README.md' }, mode: 'plan' })).decision).toBe('allow');
  });

  it('refuses everything else with a message telling the model it is planning', async () => {
    for (const d of [
      await bash('npm test', {}, 'plan'),
      await bash('echo hi > x', {}, 'plan'),
      await engineFor()({ tool: fileWrite, input: { path: 'a.ts' }, mode: 'plan' }),
      await engineFor()({ tool: notes, input: {}, mode: 'plan' }),
    ]) {
      expect(d.decision).toBe('deny');
      expect(d.layer).toBe('mode');
      expect(d.reason).toMatch(/plan mode/);
      expect(d.reason).toMatch(/only read and plan/);
    }
  });

  it('does not let --yes, auto_approve or always_allow_tools push a write through', async () => {
    expect((await bash('npm test', { yes: true }, 'plan')).decision).toBe('deny');
    expect((await bash('npm test', { autoApprove: true }, 'plan')).decision).toBe('deny');
    expect((await bash('npm test', { permissions: { always_allow_tools: ['bash'] } }, 'plan')).decision).toBe('deny');
    expect((await engineFor({ yes: true })({ tool: fileWrite, input: { path: 'a.ts' }, mode: 'plan' })).decision).toBe(
      'deny',
    );
  });

  it('lets a person (or --yes) approve a read that asks, such as a sensitive file', async () => {
    expect((await engineFor()({ tool: fileRead, input: { path: '.env' }, mode: 'plan' })).decision).toBe('ask');
    expect((await engineFor({ yes: true })({ tool: fileRead, input: { path: '.env' }, mode: 'plan' })).decision).toBe(
      'allow',
    );
  });
});

describe('dontAsk', () => {
  it('turns every ask into a deny and keeps allows', async () => {
    const d = await bash('npm install', {}, 'dontAsk');
    expect(d).toMatchObject({ decision: 'deny', layer: 'mode' });
    expect(d.reason).toMatch(/dontAsk/);
    expect((await bash('ls', {}, 'dontAsk')).decision).toBe('allow');
    expect((await engineFor()({ tool: fileWrite, input: { path: 'a' }, mode: 'dontAsk' })).decision).toBe('deny');
  });
});

describe('bypassPermissions', () => {
  it('allows everything but hard blocks and denied_commands', async () => {
    expect((await bash('npm install', {}, 'bypassPermissions')).decision).toBe('allow');
    expect((await bash('sudo rm -rf /tmp/x', {}, 'bypassPermissions')).decision).toBe('allow');
    expect((await bash('curl x | sh', {}, 'bypassPermissions')).decision).toBe('deny');
    expect(
      (await bash('git push', { permissions: { denied_commands: ['git push*'] } }, 'bypassPermissions')).decision,
    ).toBe('deny');
  });
});

describe('flags and always_allow_tools', () => {
  it('--yes and auto_approve turn asks into allows (layer flag) but never pass hard blocks', async () => {
    expect(await bash('npm install', { yes: true })).toMatchObject({ decision: 'allow', layer: 'flag' });
    expect(await bash('npm install', { autoApprove: true })).toMatchObject({ decision: 'allow', layer: 'flag' });
    expect((await bash('mkfs.ext4 /dev/sda1', { yes: true })).decision).toBe('deny');
  });

  it('always_allow_tools allows that tool only, never past hard blocks', async () => {
    const opts = { permissions: { always_allow_tools: ['bash', 'notes_add'] } };
    expect(await bash('npm install', opts)).toMatchObject({ decision: 'allow', layer: 'always_allow_tools' });
    expect((await bash('dd if=/dev/zero of=/dev/disk0', opts)).decision).toBe('deny');
    expect((await engineFor(opts)({ tool: notes, input: {} })).decision).toBe('allow');
    expect((await engineFor(opts)({ tool: fileWrite, input: { path: 'a' } })).decision).toBe('ask');
  });
});

describe('unattended runs and GUI tools', () => {
  const gui = [
    screenshot,
    customGui,
    fakeTool('accessibility', { gui: true }),
    fakeTool('computer', { gui: true }),
    fakeTool('applescript', { gui: true }),
  ];

  it.each(['schedule', 'heartbeat', 'watcher'])(
    'denies GUI tools in %s runs, even in bypassPermissions or with --yes',
    async (source) => {
      for (const tool of gui) {
        for (const [mode, opts] of [
          ['default', {}],
          ['bypassPermissions', {}],
          ['default', { yes: true }],
        ] as const) {
          const d = await engineFor(opts)({ tool, input: {}, mode, source });
          expect(d, `${tool.name} ${mode}`).toMatchObject({ decision: 'deny', layer: 'unattended_gui' });
        }
      }
    },
  );

  it('allows a GUI tool listed in gui_unattended, following the usual rules', async () => {
    const check = engineFor({ permissions: { gui_unattended: ['screenshot'] } });
    expect((await check({ tool: screenshot, input: {}, source: 'schedule' })).decision).toBe('allow');
    expect((await check({ tool: fakeTool('computer', { gui: true }), input: {}, source: 'schedule' })).decision).toBe(
      'deny',
    );
  });

  it('does not touch GUI tools in attended runs or non-GUI tools in unattended runs', async () => {
    expect((await engineFor()({ tool: screenshot, input: {}, source: 'desktop' })).decision).toBe('allow');
    expect((await bash('ls', {}, 'default')).decision).toBe('allow');
    expect((await engineFor()({ tool: fileRead, input: { path: 'a' }, source: 'schedule' })).decision).toBe('allow');
  });
});

describe('every decision explains itself', () => {
  it('carries layer, reason and a deterministic risk with a one-line explanation', async () => {
    const a = await bash('rm -rf node_modules', {}, 'default', CWD);
    const b = await bash('rm -rf node_modules', {}, 'default', CWD);
    expect(a).toEqual(b);
    expect(a.risk).toBe('high');
    expect(a.riskExplanation).not.toMatch(/\n/);
    expect((await bash('ls')).risk).toBe('low');
    expect((await bash('npm test')).risk).toBe('medium');
  });
});
