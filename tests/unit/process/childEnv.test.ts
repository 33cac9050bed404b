// The environment Rein gives the programs it starts for a run: its own, without its credentials and
// without what looks secret, plus the names tools.env_passthrough lets through.
import { describe, expect, it } from 'vitest';
import {
  childEnvironment,
  isReinCredential,
  looksSecretName,
  looksSecretValue,
  withheldNames,
} from '../../../src-main/core/process/childEnv.js';
import { runProcess } from '../../../src-main/core/process/subprocess.js';

describe('which names look secret', () => {
  it.each([
    'ANTHROPIC_API_KEY',
    'OPENAI_API_KEY',
    'GITHUB_TOKEN',
    'GH_TOKEN',
    'AWS_SECRET_ACCESS_KEY',
    'AWS_SESSION_TOKEN',
    'NPM_TOKEN',
    'DB_PASSWORD',
    'PGPASSWORD',
    'MYSQL_PASSWD',
    'SECRET_KEY_BASE',
    'STRIPE_KEY',
    'GITHUB_PAT',
    'GOOGLE_APPLICATION_CREDENTIALS',
    'REIN_SLACK_HOOK_SECRET',
    'HF_TOKEN',
    'gpg_passphrase',
    'SENTRY_AUTH_TOKEN',
  ])('%s does', (name) => expect(looksSecretName(name)).toBe(true));

  it.each([
    'PATH',
    'HOME',
    'LANG',
    'SSH_AUTH_SOCK',
    'TOKENIZERS_PARALLELISM',
    'KEYTIMEOUT',
    'PWD',
    'ANTHROPIC_BASE_URL',
    'REIN_HOME',
    'TERM',
    'XDG_CONFIG_HOME',
  ])('%s does not', (name) => expect(looksSecretName(name)).toBe(false));

  it('knows secret values by their shape', () => {
    expect(looksSecretValue('sk-ant-api03-abcdefghij')).toBe(true);
    expect(looksSecretValue('postgres://me:pw@db.example.com/app')).toBe(true);
    expect(looksSecretValue('-----BEGIN OPENSSH PRIVATE KEY-----\nx')).toBe(true);
    expect(looksSecretValue('https://proxy.example.com:3128')).toBe(false);
    expect(looksSecretValue('/usr/bin:/bin')).toBe(false);
  });
});

describe('childEnvironment', () => {
  const base = {
    PATH: '/usr/bin:/bin',
    HOME: '/Users/me',
    ANTHROPIC_API_KEY: 'sk-ant-api03-secret',
    ANTHROPIC_AUTH_TOKEN: 'oauth-x',
    ANTHROPIC_BASE_URL: 'http://127.0.0.1:9999',
    REIN_DAEMON_TOKEN: 'daemon',
    REIN_SLACK_HOOK_SECRET: 'hook',
    REIN_HOME: '/Users/me/.rein',
    GITHUB_TOKEN: 'ghp_x',
    AWS_ACCESS_KEY_ID: 'AKIA',
    AWS_SECRET_ACCESS_KEY: 'aws-secret',
    HTTPS_PROXY: 'http://user:pass@proxy:3128',
    SOMETHING: 'sk-ant-api03-hidden-in-a-plain-name',
  };

  it("drops Rein's credentials and secret-looking names and values, keeps the rest", () => {
    const env = childEnvironment(base);
    expect(Object.keys(env).sort()).toEqual(['ANTHROPIC_BASE_URL', 'AWS_ACCESS_KEY_ID', 'HOME', 'PATH', 'REIN_HOME']);
    expect(withheldNames(base)).toEqual([
      'ANTHROPIC_API_KEY',
      'ANTHROPIC_AUTH_TOKEN',
      'AWS_SECRET_ACCESS_KEY',
      'GITHUB_TOKEN',
      'HTTPS_PROXY',
      'REIN_DAEMON_TOKEN',
      'REIN_SLACK_HOOK_SECRET',
      'SOMETHING',
    ]);
  });

  it("passes what tools.env_passthrough names (exact or a * glob), but never Rein's own credentials", () => {
    const env = childEnvironment(base, { passthrough: ['GITHUB_TOKEN', 'AWS_*', 'ANTHROPIC_API_KEY', 'REIN_*'] });
    expect(env.GITHUB_TOKEN).toBe('ghp_x');
    expect(env.AWS_SECRET_ACCESS_KEY).toBe('aws-secret');
    expect(env.ANTHROPIC_API_KEY).toBeUndefined();
    expect(env.REIN_DAEMON_TOKEN).toBeUndefined();
    expect(env.REIN_SLACK_HOOK_SECRET).toBeUndefined();
    expect(isReinCredential('ANTHROPIC_AUTH_TOKEN')).toBe(true);
    expect(isReinCredential('REIN_HOME')).toBe(false);
  });

  it('is what a child started without an environment gets', async () => {
    const saved = process.env.ANTHROPIC_API_KEY;
    process.env.ANTHROPIC_API_KEY = 'sk-ant-api03-default-env-leak';
    try {
      const run = await runProcess({ file: '/bin/sh', args: ['-c', 'env'] });
      expect(run.stdout).toContain('PATH=');
      expect(run.stdout).not.toContain('sk-ant-api03-default-env-leak');
    } finally {
      if (saved === undefined) delete process.env.ANTHROPIC_API_KEY;
      else process.env.ANTHROPIC_API_KEY = saved;
    }
  });
});
