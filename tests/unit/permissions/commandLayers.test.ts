// Layers 2–4 for bash with real configuration: denied_commands, the always-ask constructs that
// allowed_commands cannot override, allowed_commands (exact or glob) and the built-in read-only list.
import { beforeAll, describe, expect, it } from 'vitest';
import { commandGlob, firstMatchingPattern } from '../../../src-main/core/permissions/commandPatterns.js';
import { gitIsReadOnly, sedScriptIsSafe } from '../../../src-main/core/permissions/readOnlyCommands.js';
import { initShellParser } from '../../../src-main/core/permissions/shell/parser.js';
import { bash } from './helpers.js';

beforeAll(async () => {
  await initShellParser();
});

describe('command patterns', () => {
  it('* spans spaces and slashes, ? is one character, everything else is literal', () => {
    expect(commandGlob('rm *').test('rm -rf /tmp/x')).toBe(true);
    expect(commandGlob('git log ?').test('git log x')).toBe(true);
    expect(commandGlob('git log ?').test('git log xy')).toBe(false);
    expect(commandGlob('echo (a|b)').test('echo (a|b)')).toBe(true);
    expect(commandGlob('echo {a,b}').test('echo a')).toBe(false);
  });

  it('compares whitespace runs as one space and can ignore case', () => {
    expect(firstMatchingPattern(['npm  run  *'], ['npm run   build'])).toBe('npm  run  *');
    expect(firstMatchingPattern(['GIT PUSH*'], ['git push'], { caseInsensitive: true })).toBe('GIT PUSH*');
    expect(firstMatchingPattern(['rm'], ['rm -rf x'], { bareNameMatchesAnyArgs: true })).toBe('rm');
    expect(firstMatchingPattern(['rm'], ['rm -rf x'])).toBeUndefined();
  });
});

describe('denied_commands', () => {
  const denied = { permissions: { denied_commands: ['git push*', 'terraform', 'npm publish'] } };
  it('denies wherever the command appears in the line, however it is written', async () => {
    for (const line of [
      'git push',
      'cd x && git push origin main',
      'GIT PUSH',
      "g''it push",
      'echo $(terraform apply)',
      "bash -c 'npm publish'",
      'terraform destroy',
    ]) {
      const d = await bash(line, denied);
      expect(d.decision, line).toBe('deny');
      expect(d.layer, line).toBe('denied_commands');
      expect(d.reason, line).toMatch(/denied_commands pattern/);
    }
  });

  it('merges agent lists with global ones', async () => {
    const d = await bash('make deploy', {
      permissions: { denied_commands: ['x'] },
      agentPermissions: { denied_commands: ['make deploy'] },
    });
    expect(d).toMatchObject({ decision: 'deny', layer: 'denied_commands' });
  });
});

describe('always-ask constructs', () => {
  const everything = { permissions: { allowed_commands: ['*'] } };
  it.each([
    'echo hi > out.txt',
    'echo $(date)',
    'diff <(ls a) <(ls b)',
    'eval ls',
    'bash -c ls',
    'sh -c "ls"',
    'python3 -c "print(1)"',
    'node -e "1"',
    'osascript -e "beep"',
    'npx cowsay',
    'npm install',
    'pnpm add x',
    'yarn',
    'pip install x',
    'brew install jq',
    'apt-get install x',
    'git push',
    'git push --dry-run',
    'git reset --hard',
    'git clean -n',
    'sudo ls',
    'PATH=/tmp ls',
    'ls )(',
    '$CMD',
  ])('%s asks even when allowed_commands matches everything', async (line) => {
    const d = await bash(line, everything);
    expect(d.decision).toBe('ask');
    expect(d.layer).toBe('compound');
  });
});

describe('allowed_commands and the read-only list', () => {
  it('allows a line only when every simple command is allowed', async () => {
    const opts = { permissions: { allowed_commands: ['npm test', 'npm run *', 'make'] } };
    expect((await bash('npm test', opts)).decision).toBe('allow');
    expect((await bash('npm run lint && npm test', opts)).decision).toBe('allow');
    expect(await bash('make && git status | head -3', opts)).toMatchObject({ decision: 'allow', layer: 'allowed' });
    expect((await bash('npm test && npm publish', opts)).decision).toBe('ask');
    expect((await bash('npm test; touch x', opts)).decision).toBe('ask');
  });

  it('allows a whole line saved exactly by "always allow", but never widens a glob to whole lines', async () => {
    const saved = { permissions: { allowed_commands: ['npm test && npm run lint', 'npm test*'] } };
    expect(await bash('npm test  &&  npm run lint', saved)).toMatchObject({ decision: 'allow', layer: 'allowed' });
    expect((await bash('npm test && npm run lint && touch x', saved)).decision).toBe('ask');
    expect((await bash('npm test; rm -f x', saved)).decision).toBe('ask');
  });

  it('does not let a pattern for a command allow it under sudo', async () => {
    expect((await bash('sudo make', { permissions: { allowed_commands: ['make'] } })).decision).toBe('ask');
  });

  it('still asks when an allowed command reads a sensitive file', async () => {
    expect((await bash('cat .env', { permissions: { allowed_commands: ['cat *'] } })).decision).toBe('ask');
    expect((await bash('grep -r token ~/.aws', {})).decision).toBe('ask');
  });

  it.each([
    ['find . -name x', 'allow'],
    ['find . -name x -delete', 'ask'],
    ['find . -exec cat {} \\;', 'ask'],
    ['find . -execdir ls \\;', 'ask'],
    ['find . -ok rm {} \\;', 'ask'],
    ['find . -fprint x', 'ask'],
    ['sed -n 1p f', 'allow'],
    ['sed -i s/a/b/ f', 'ask'],
    ['sed -i.bak s/a/b/ f', 'ask'],
    ['sed --in-place s/a/b/ f', 'ask'],
    ['sed -ne s/a/b/p f', 'allow'],
    ['git status', 'allow'],
    ['git diff --output=x', 'ask'],
    ['git branch -a', 'allow'],
    ['git branch topic', 'ask'],
    ['git tag', 'allow'],
    ['git tag v2', 'ask'],
    ['git stash', 'ask'],
    ['git stash list', 'allow'],
    ['git remote add x y', 'ask'],
    ['git config --get a.b', 'allow'],
    ['git config a.b c', 'ask'],
    ['sort -o out in', 'ask'],
    ['uniq in out', 'ask'],
    ['rg --pre=cat x', 'ask'],
    ['LANG=C ls', 'allow'],
    ['FOO=1 ls', 'ask'],
    ['env', 'ask'],
    ['env ls', 'allow'],
    ['hostname', 'allow'],
    ['hostname evil', 'ask'],
  ])('%s → %s', async (line, expected) => {
    expect((await bash(line)).decision).toBe(expected);
  });
});

describe('sed scripts', () => {
  it.each(['1,10p', 's/a/b/g', 's|a|b|', '/x/d', '$!N;s/\\n/ /', 'y/abc/xyz/', '10q', 's/w/e/'])('%s is safe', (s) => {
    expect(sedScriptIsSafe(s)).toBe(true);
  });
  it.each(['w out', 's/a/b/w out', 's/a/b/e', 'e ls', '1W out', '/x/w file'])('%s is not', (s) => {
    expect(sedScriptIsSafe(s)).toBe(false);
  });
});

describe('git', () => {
  it('knows read-only sub-commands after global options', () => {
    expect(gitIsReadOnly(['-C', 'repo', '--no-pager', 'log'])).toBe(true);
    expect(gitIsReadOnly(['-c', 'core.pager=x', 'log'])).toBe(false);
    expect(gitIsReadOnly(['commit'])).toBe(false);
    expect(gitIsReadOnly([])).toBe(false);
  });
});

describe('paths compare case-insensitively where the volume does', () => {
  it.each([
    ['rm -rf ~/DOCUMENTS', true, 'deny'],
    ['rm -rf ~/DOCUMENTS', false, 'ask'],
    ['rm -rf /USERS/tester', true, 'deny'],
    ["rm -rf ~/'Library/APPLICATION SUPPORT'", false, 'ask'],
    ["rm -rf ~/'Library/APPLICATION SUPPORT'", true, 'deny'],
    ['rm -rf ~/desktop', false, 'deny'],
    ['rm -rf /tmp/X/..', false, 'deny'],
  ] as const)('%s with caseInsensitivePaths=%s → %s', async (line, ci, expected) => {
    expect((await bash(line, { caseInsensitivePaths: ci })).decision).toBe(expected);
  });
});

describe('reasons a person understands', () => {
  it.each([
    ['sort --outp=~/x f', /`--outp=~\/x` \(read as --output\) writes to a file/],
    ['dig data.example.com', /looks up DNS names/],
    ['printenv GITHUB_TOKEN', /prints GITHUB_TOKEN, whose name says it holds a secret/],
    ['cat ~/.ss?/id_*', /can match ~\/.ssh\/id_rsa/],
    ["echo 'x' >> ~/.zshrc", /shell startup file/],
    ['rm --rec -f ~', /would delete your home folder/],
  ])('%s', async (line, reason) => {
    expect((await bash(line)).reason).toMatch(reason);
  });
});
