/**
 * `rein mcp add | remove | import claude-desktop` as a user runs them: the built CLI editing
 * `mcp_servers` in config.yaml files — comments kept, every field checked (exit 2 naming it), names
 * already there reported and never overwritten unasked.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { parseLayer } from '../../src-main/core/config/load.js';
import { rein, tempHome } from '../support/cli.js';

let home: string;
let cwd: string;
let userHome: string;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  ({ home, cwd } = await tempHome());
  userHome = join(cwd, 'user');
  await mkdir(userHome, { recursive: true });
  await mkdir(home, { recursive: true });
  env = { PATH: process.env.PATH, HOME: userHome, REIN_HOME: home, LANG: 'C.UTF-8' };
});

const mcp = (...args: string[]) => rein(['mcp', ...args], { env, cwd });
const config = () => readFile(join(home, 'config.yaml'), 'utf8');

const MINE = `# my Rein
model: claude-sonnet-5-5 # everyday

mcp_servers:
  # the notes server
  notes:
    type: http
    url: http://127.0.0.1:9000/mcp
`;

describe('rein mcp add', () => {
  it('adds a program server with arguments and environment, keeping the file’s comments', async () => {
    await writeFile(join(home, 'config.yaml'), MINE);
    const r = await mcp(
      'add',
      'fs',
      '--command',
      'npx',
      '--env',
      'DEBUG=1',
      '--context',
      'my files',
      '--',
      '-y',
      '@modelcontextprotocol/server-filesystem',
      '/tmp',
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /^added fs in .*config\.yaml \(stdio: npx -y @modelcontextprotocol\/server-filesystem \/tmp\)/,
    );
    const text = await config();
    for (const c of ['# my Rein', '# everyday', '# the notes server']) expect(text).toContain(c);
    const loaded = parseLayer('config.yaml', text);
    expect(loaded.ok).toBe(true);
    expect((loaded as { raw: any }).raw.mcp_servers.fs).toEqual({
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'],
      env: { DEBUG: '1' },
      context: 'my files',
    });
    expect(
      (
        await mcp(
          'add',
          'web',
          '--url',
          'https://mcp.example.com/mcp',
          '--header',
          'Authorization: Bearer ${WEB_TOKEN}',
          '--disabled',
        )
      ).code,
    ).toBe(0);
    expect((parseLayer('config.yaml', await config()) as { raw: any }).raw.mcp_servers.web).toEqual({
      type: 'http',
      url: 'https://mcp.example.com/mcp',
      headers: { Authorization: 'Bearer ${WEB_TOKEN}' },
      disabled: true,
    });
  });

  it('--transport sse writes type: sse (the legacy HTTP+SSE transport only); --transport http is the default', async () => {
    await writeFile(join(home, 'config.yaml'), MINE);
    const r = await mcp(
      'add',
      'old',
      '--url',
      'http://localhost:3001/sse',
      '--transport',
      'sse',
      '--header',
      'X-Key: ${OLD_KEY}',
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^added old in .*config\.yaml \(sse: http:\/\/localhost:3001\/sse\)/);
    const servers = (parseLayer('config.yaml', await config()) as { raw: any }).raw.mcp_servers;
    expect(servers.old).toEqual({ type: 'sse', url: 'http://localhost:3001/sse', headers: { 'X-Key': '${OLD_KEY}' } });
    // The same name and URL with the other transport is other settings: a clash, not a silent change.
    expect((await mcp('add', 'old', '--url', 'http://localhost:3001/sse')).code).toBe(1);
    // `--transport http` is what a bare --url writes: the same settings as the entry already there.
    const same = await mcp('add', 'notes', '--url', 'http://127.0.0.1:9000/mcp', '--transport', 'http');
    expect(same.code, same.stderr).toBe(0);
    expect(same.stdout).toMatch(/already in .* with these settings/);
  });

  it('never overwrites a name unasked: the same settings are fine, others are a clash until --replace', async () => {
    await writeFile(join(home, 'config.yaml'), MINE);
    const same = await mcp('add', 'notes', '--url', 'http://127.0.0.1:9000/mcp');
    expect(same.code).toBe(0);
    expect(same.stdout).toMatch(/already in .* with these settings/);
    const clash = await mcp('add', 'notes', '--url', 'http://127.0.0.1:9999/mcp');
    expect(clash.code).toBe(1);
    expect(clash.stderr).toMatch(/"notes" is already in .* with other settings; nothing was written \(--replace/);
    expect(await config()).toBe(MINE);
    const replaced = await mcp('add', 'notes', '--url', 'http://127.0.0.1:9999/mcp', '--replace');
    expect(replaced.code, replaced.stderr).toBe(0);
    expect(await config()).toContain(
      '# the notes server\n  notes:\n    type: http\n    url: http://127.0.0.1:9999/mcp\n',
    );
  });

  it('exits 2 naming the flag that is wrong, and writes nothing', async () => {
    await writeFile(join(home, 'config.yaml'), MINE);
    const cases: Array<[string[], RegExp]> = [
      [['add', 'x', '--url', 'not a url'], /--url: "not a url" is not a URL/],
      [['add', 'x', '--url', 'ftp://h/x'], /--url: only http and https/],
      [['add', 'x', '--command', 'a', '--url', 'http://h/'], /either --command/],
      [['add', 'x'], /either --command/],
      [['add', 'x', '--command', 'a', '--env', 'NOEQUALS'], /--env: "NOEQUALS" is not KEY=VALUE/],
      [['add', 'x', '--command', 'a', '--env', 'BAD-KEY=1'], /--env: "BAD-KEY" is not an environment variable name/],
      [['add', 'bad name', '--command', 'a'], /NAME: "bad name" is not a server name/],
      [['add', '--command', 'a'], /NAME: give the server a name/],
      [['add', 'x', '--url', 'http://h/', '--arg', 'y'], /--arg: only a --command server/],
      [['add', 'x', '--command', 'a', '--header', 'A: b'], /--header: only a --url server sends headers/],
      [['add', 'x', '--url', 'http://h/', '--header', 'no colon'], /--header: "no colon" is not 'Name: value'/],
      [['add', 'x', '--url', 'http://h/', '--header', 'Bad Name: v'], /--header: "Bad Name" is not a header name/],
      [['add', 'x', '--url', 'http://h/', '--transport', 'websocket'], /--transport: "websocket" is not http or sse/],
      [['add', 'x', '--command', 'a', '--transport', 'sse'], /--transport: only a --url server has one/],
      [['add', 'x', '--command', 'a', '--agent', 'ghost'], /no agent named "ghost"/],
      [['add', 'x', '--command', 'a', '--bogus'], /Unknown option '--bogus'/],
    ];
    for (const [args, message] of cases) {
      const r = await mcp(...args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(message);
    }
    expect(await config()).toBe(MINE);
  }, 90_000);

  it('refuses to edit a config.yaml that does not load, and leaves it as it is', async () => {
    await writeFile(join(home, 'config.yaml'), 'max_iterations: lots\n');
    const r = await mcp('add', 'x', '--command', 'a');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/has problems to fix first \(nothing was written\): line 1: max_iterations/);
    expect(await config()).toBe('max_iterations: lots\n');
  });

  it('writes into a named agent’s config.yaml and says which global servers it stops getting', async () => {
    await writeFile(join(home, 'config.yaml'), MINE);
    await mkdir(join(home, 'agents', 'ops'), { recursive: true });
    await writeFile(join(home, 'agents', 'ops', 'AGENT.md'), 'You run ops.\n');
    await writeFile(join(home, 'agents', 'ops', 'config.yaml'), '# ops agent\nmodel: claude-haiku-5-5\n');
    const r = await mcp('add', 'k8s', '--agent', 'ops', '--command', 'kubectl-mcp');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/no longer gets: notes/);
    expect(await readFile(join(home, 'agents', 'ops', 'config.yaml'), 'utf8')).toBe(
      '# ops agent\nmodel: claude-haiku-5-5\nmcp_servers:\n  k8s:\n    command: kubectl-mcp\n',
    );
    expect(await config()).toBe(MINE);
  });
});

describe('rein mcp remove', () => {
  it('removes a server, keeping the comments, and names the servers there when the name is unknown', async () => {
    await writeFile(
      join(home, 'config.yaml'),
      MINE.replace('  # the notes server\n', '  # the notes server\n  extra:\n    command: x\n'),
    );
    const r = await mcp('remove', 'extra');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^removed extra from /);
    expect(await config()).toBe(MINE);
    const unknown = await mcp('remove', 'nope');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no MCP server "nope" in .* \(it has: notes\)/);
  });

  it('points at the global file when an agent does not have the server itself', async () => {
    await writeFile(join(home, 'config.yaml'), MINE);
    await mkdir(join(home, 'agents', 'ops'), { recursive: true });
    await writeFile(join(home, 'agents', 'ops', 'AGENT.md'), 'You run ops.\n');
    const r = await mcp('remove', 'notes', '--agent', 'ops');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/"notes" is a global server \(remove it without --agent/);
  });
});

describe('rein mcp import claude-desktop', () => {
  const claude = {
    mcpServers: {
      filesystem: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/Users/me/Desktop'] },
      notes: { type: 'http', url: 'https://elsewhere.example/mcp' },
      remote: { url: 'https://mcp.example.com/mcp' },
      secret: { type: 'http', url: 'https://x.example/mcp', headers: { Authorization: 'Bearer t' } },
      odd: { command: 'x', cwd: '/tmp' },
    },
  };

  it('imports from the app’s own file, reports clashes without overwriting, and skips what it cannot hold', async () => {
    await writeFile(join(home, 'config.yaml'), MINE);
    const dir = join(userHome, '.config', 'Claude');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'claude_desktop_config.json'), JSON.stringify(claude));
    const dry = await mcp('import', 'claude-desktop', '--dry-run');
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/would add\s+filesystem/);
    expect(dry.stdout).toMatch(/nothing was written \(--dry-run\)/);
    expect(await config()).toBe(MINE);

    const r = await mcp('import', 'claude-desktop');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`Imported from ${join(dir, 'claude_desktop_config.json')}`);
    expect(r.stdout).toMatch(
      /added\s+filesystem \(stdio: npx -y @modelcontextprotocol\/server-filesystem \/Users\/me\/Desktop\)/,
    );
    expect(r.stdout).toMatch(/added\s+remote \(http: https:\/\/mcp\.example\.com\/mcp\)/);
    expect(r.stdout).toMatch(/clash\s+notes: already there with other settings, kept as it is/);
    expect(r.stdout).toMatch(/added\s+secret \(http: https:\/\/x\.example\/mcp\)/);
    expect(r.stdout).toMatch(/skipped\s+odd: unknown keys cwd/);
    expect(r.stdout).toMatch(/3 added, 0 the same, 1 clashing, 1 skipped/);
    const text = await config();
    expect(text).toContain('# the notes server\n  notes:\n    type: http\n    url: http://127.0.0.1:9000/mcp\n');
    expect((parseLayer('config.yaml', text) as { raw: any }).raw.mcp_servers.remote).toEqual({
      type: 'http',
      url: 'https://mcp.example.com/mcp',
    });

    const again = await mcp('import', 'claude-desktop');
    expect((parseLayer('config.yaml', text) as { raw: any }).raw.mcp_servers.secret).toEqual({
      type: 'http',
      url: 'https://x.example/mcp',
      headers: { Authorization: 'Bearer t' },
    });
    expect(again.stdout).toMatch(/0 added, 3 the same, 1 clashing, 1 skipped/);
    expect(await config()).toBe(text);
  });

  it('reads --file, and says so when there is nothing to read', async () => {
    const file = join(cwd, 'elsewhere.json');
    await writeFile(file, JSON.stringify({ mcpServers: { one: { command: 'one-mcp' } } }));
    const r = await mcp('import', 'claude-desktop', '--file', 'elsewhere.json');
    expect(r.code, r.stderr).toBe(0);
    expect(await config()).toBe('mcp_servers:\n  one:\n    command: one-mcp\n');
    const missing = await mcp('import', 'claude-desktop', '--file', 'nope.json');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/nope\.json does not exist/);
    expect((await mcp('import', 'cursor')).code).toBe(2);
  });
});
