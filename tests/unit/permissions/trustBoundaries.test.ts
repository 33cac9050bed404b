// Issue 23, item 10: searches for key material ask however they are spelt; other users' homes, root's and
// the folders above ours are as protected as our home for the hard blocks; diskutil's deletions are
// `disk-erase`. More lines of each kind are in tests/fixtures/commands/secrets-homes-disks.tsv.
import { beforeAll, describe, expect, it } from 'vitest';
import { keyMaterialIn, normalisePattern } from '../../../src-main/core/permissions/secretSearch.js';
import { initShellParser } from '../../../src-main/core/permissions/shell/parser.js';
import { grepTool } from '../../../src-main/core/tools/builtin/grep.js';
import { bash, engineFor } from './helpers.js';

beforeAll(async () => {
  await initShellParser();
});

const trusted = {
  autoApprove: true,
  yes: true,
  permissions: { always_allow_tools: ['bash'], allowed_commands: ['*'] },
};

describe('searches for key material', () => {
  it('reads a pattern the way the list compares it: lower case, escapes and one-letter classes undone, separators one dash', () => {
    expect(normalisePattern('SK_ANT')).toBe('sk-ant');
    expect(normalisePattern('sk\\-ant')).toBe('sk-ant');
    expect(normalisePattern('[Ss][Kk].?[Aa]nt')).toBe('sk-ant');
    expect(normalisePattern('BEGIN\\s+RSA')).toBe('begin-rsa');
    expect(normalisePattern('api[-_]key')).toBe('api-key');
  });

  it.each([
    ['sk-ant', 'Anthropic API keys'],
    ['sk_ant', 'Anthropic API keys'],
    ['skant', 'Anthropic API keys'],
    ['sk-ant-api03', 'Anthropic API keys'],
    ['ANTHROPIC_API_KEY', 'API keys and tokens'],
    ['-----BEGIN', 'private keys'],
    ['-{5}BEGIN', 'private keys'],
    ['BEGIN OPENSSH PRIVATE KEY', 'private keys'],
    ['ghp', 'GitHub tokens'],
    ['xoxb-', 'Slack tokens'],
    ['AKIA[0-9A-Z]{16}', 'AWS access keys'],
    ['aws_access_key_id', 'AWS credentials'],
    ['apikey', 'API keys and tokens'],
    ['secret_key', 'API keys and tokens'],
    ['token=', 'tokens and passwords'],
    ['password', 'passwords'],
    ['passwd', 'passwords'],
  ])('%s is key material (%s)', (pattern, what) => {
    expect(keyMaterialIn(pattern)).toBe(what);
  });

  it.each([
    'token',
    'secret',
    'TODO',
    'BEGIN',
    'BEGIN CERTIFICATE',
    'gh-pages',
    'ghost',
    'task-ant',
    'nc -e',
    'keyboard',
  ])('%s is not', (pattern) => {
    expect(keyMaterialIn(pattern)).toBeUndefined();
  });

  it('asks for every spelling and every place a pattern can be given, even when allowed_commands matches', async () => {
    for (const line of [
      'grep -r sk-ant .',
      'grep -r sk_ant .',
      'grep -ri SK-ANT .',
      'grep -e sk-ant -r .',
      'grep --regexp=sk-ant -r .',
      'grep -rie skant .',
      'rg sk-ant',
      'rg -e sk-ant src',
      'git grep -e sk_ant',
      'git log -S sk-ant -p',
    ]) {
      const d = await bash(line, { permissions: { allowed_commands: ['*'] } });
      expect(d.decision, line).toBe('ask');
      expect(d.reason, line).toMatch(/searches for Anthropic API keys/);
    }
    const fromFile = await bash('grep -f patterns.txt -r .');
    expect(fromFile).toMatchObject({
      decision: 'ask',
      reason: expect.stringMatching(/reads the patterns it searches for from `patterns.txt`/),
    });
  });

  it("a search of Rein's own folder is a hard block; of the home folder with rg (hidden folders skipped) it asks", async () => {
    for (const line of ['grep -r sk-ant ~/.rein', 'rg sk-ant ~/.rein', 'rg --hidden sk_ant ~', 'grep -r SK-ANT ~']) {
      expect(await bash(line, trusted, 'bypassPermissions'), line).toMatchObject({
        decision: 'deny',
        layer: 'hard_block',
        reason: expect.stringMatching(/rein-secrets/),
      });
    }
    expect(await bash('rg sk-ant ~')).toMatchObject({
      decision: 'ask',
      reason: expect.stringMatching(/Anthropic API keys/),
    });
  });

  it('the grep tool asks too when its pattern is key material, and runs for other patterns', async () => {
    const check = engineFor();
    expect(await check({ tool: grepTool, input: { pattern: 'sk_ant' } })).toMatchObject({
      decision: 'ask',
      reason: expect.stringMatching(/searches .* for Anthropic API keys/),
    });
    expect(await check({ tool: grepTool, input: { pattern: '-----BEGIN', path: 'src' } })).toMatchObject({
      decision: 'ask',
      risk: 'medium',
    });
    expect((await check({ tool: grepTool, input: { pattern: 'TODO' } })).decision).toBe('allow');
  });

  it('leaves plain searches alone: the word token, a file named password', async () => {
    for (const line of [
      'grep -r token src',
      'grep -n foo password_reset.py',
      'git log --oneline -- src/auth/password.ts',
      'grep -r "BEGIN CERTIFICATE" .',
    ]) {
      expect((await bash(line)).decision, line).toBe('allow');
    }
  });
});

describe("other users' homes and the folders above ours", () => {
  const homes = ['/Users/tester', '/home/tester', '/srv/people/tester'];

  it.each(homes)('are hard blocks for a home at %s', async (home) => {
    const lines = [
      'rm -rf ~root',
      'rm -rf ~nobody/',
      'rm -rf ~alice/Documents',
      'chmod -R 777 ~root',
      'rm -rf ~/..',
      'rm -rf ~/../..',
      'rm -rf "$HOME/.."',
      'mv ~/.. /tmp/x',
      'find ~root -delete',
      'rsync -a --delete /tmp/empty/ ~nobody/',
      'rm -rf /var/root/.ssh',
    ];
    for (const line of lines) {
      const d = await bash(line, { ...trusted, home }, 'bypassPermissions', `${home}/project`);
      expect(d, `${line} (home ${home})`).toMatchObject({ decision: 'deny', layer: 'hard_block' });
    }
  });

  it("names root's real home and the folder that holds ours", async () => {
    expect((await bash('mv ~root /tmp/x')).reason).toMatch(/the home folder \/(var\/)?root\b/);
    expect(
      (await bash('rm -rf ~/..', { home: '/srv/people/tester' }, 'default', '/srv/people/tester/project')).reason,
    ).toMatch(/the folder \/srv\/people, which holds your home/);
  });

  it('still asks (no hard block) for a project folder in another home, or a sibling of a deep home', async () => {
    expect(await bash('rm -rf ~alice/project/build')).toMatchObject({ decision: 'ask' });
    expect(
      await bash('rm -rf ~/../other-project', { home: '/srv/people/tester' }, 'default', '/srv/people/tester/project'),
    ).toMatchObject({ decision: 'ask' });
  });
});

describe('diskutil deletions', () => {
  it.each([
    'diskutil cs delete 12345678-ABCD-EF00-1234-567890ABCDEF',
    'diskutil coreStorage delete 12345678-ABCD-EF00-1234-567890ABCDEF',
    'diskutil cs deleteVolume 12345678-ABCD-EF00-1234-567890ABCDEF',
    'diskutil appleRAID delete disk3',
    'diskutil ar delete disk3',
    'diskutil apfs deleteVolume disk2s1',
    'diskutil apfs deleteVolumeGroup 12345678-ABCD-EF00-1234-567890ABCDEF',
  ])('%s is disk-erase in every mode', async (line) => {
    expect(await bash(line, trusted, 'bypassPermissions')).toMatchObject({
      decision: 'deny',
      layer: 'hard_block',
      reason: expect.stringMatching(/^hard block "disk-erase"/),
    });
  });

  it('lists still run', async () => {
    for (const line of ['diskutil cs list', 'diskutil ar list', 'diskutil apfs list'])
      expect((await bash(line)).decision, line).toBe('allow');
  });
});
