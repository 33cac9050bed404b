/**
 * `rein mcp tools|call|import` against the peers their interop gaps were found with (issue 28), through
 * the built CLI: server-everything over stdio, Streamable HTTP and its legacy `sse` mode, and the fake
 * OAuth server in step-up and URL-client-ID modes. A page a server asks the person to open (URL mode) is
 * shown and opened only on a yes; a closed pipe ends `mcp tools` quietly; `--yes` meets a sampling
 * request with a true reason; `"3"` is a number where the schema asks for one; an ad-hoc URL goes by its
 * host, not `url`; `type: sse` survives the import from Claude Desktop and works.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliWorld, REIN_BIN, rein, startRein } from '../support/cli.js';
import type { FakeAnthropic } from '../support/fakeAnthropic.js';
import { startFakeMcpOAuth } from '../support/fakeMcpOAuth.js';
import { useLeakCheck } from '../support/leaks.js';
import {
  EVERYTHING_BIN,
  freePort,
  startEverythingHttp,
  startEverythingSse,
  type ChildServer,
} from '../support/mcpPeers.js';

useLeakCheck();

const hasScript = spawnSync('script', ['--version']).status === 0;
let world: { fake: FakeAnthropic; home: string; cwd: string; env: NodeJS.ProcessEnv };
let everythingHttp: ChildServer;
let everythingSse: ChildServer;

beforeAll(async () => {
  world = await cliWorld();
  [everythingHttp, everythingSse] = await Promise.all([startEverythingHttp(), startEverythingSse()]);
});
afterAll(async () => {
  await Promise.all([everythingHttp.close(), everythingSse.close(), world.fake.close()]);
});

async function config(yaml: string) {
  await mkdir(world.home, { recursive: true });
  await writeFile(join(world.home, 'config.yaml'), yaml);
}
const everythingYaml = `mcp_servers:\n  everything:\n    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(EVERYTHING_BIN)}, stdio]\n`;

/** A $BROWSER that writes the address it was given to a file: it stands in for the person's browser. */
async function recordingBrowser(name: string): Promise<{ command: string; file: string }> {
  const file = join(world.cwd, `${name}.opened`);
  const script = join(world.cwd, `${name}.mjs`);
  await writeFile(
    script,
    `import { appendFileSync } from 'node:fs';\nappendFileSync(${JSON.stringify(file)}, process.argv[2] + '\\n');\n`,
  );
  return { command: `${JSON.stringify(process.execPath)} ${JSON.stringify(script)}`, file };
}
const opened = (file: string) => readFile(file, 'utf8').catch(() => '');

describe('a server asks the person to open a page (URL mode) during rein mcp call', () => {
  const url = 'https://auth.example.com/connect?account=ada&state=7f3';
  const args = JSON.stringify({ url, message: 'Connect your account.' });

  it('without a terminal: the whole address is shown, nothing is opened, the server hears a decline; --yes opens nothing either', async () => {
    await config(everythingYaml);
    const browser = await recordingBrowser('no-tty');
    for (const extra of [[], ['--yes']]) {
      const r = await rein(['mcp', 'call', 'everything', 'trigger-url-elicitation', '--args', args, ...extra], {
        env: { ...world.env, BROWSER: browser.command },
        cwd: world.cwd,
      });
      expect(r.stderr).toContain(`everything asks you to open ${url} ("Connect your account.")`);
      expect(r.stderr).toMatch(/no terminal to ask on; declined/);
      if (extra.length > 0) expect(r.stderr).toContain('--yes never opens a page');
      // Before: the server was told "accept" with nobody asked.
      expect(r.stdout).toMatch(/declined/);
      expect(r.stdout).not.toMatch(/completed the URL elicitation/);
    }
    expect(await opened(browser.file)).toBe('');
  });

  it.skipIf(!hasScript)(
    'at a terminal: asked with the whole address; yes opens it in $BROWSER and the server hears accept',
    async () => {
      await config(everythingYaml);
      const browser = await recordingBrowser('tty');
      const cmd = `${JSON.stringify(process.execPath)} ${JSON.stringify(REIN_BIN)} mcp call everything trigger-url-elicitation --args '${args}'`;
      const child = spawn('script', ['-qfec', cmd, '/dev/null'], {
        cwd: world.cwd,
        env: { ...world.env, BROWSER: browser.command, TERM: 'dumb' },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let screen = '';
      let answered = false;
      child.stdout.setEncoding('utf8').on('data', (d: string) => {
        screen += d;
        if (!answered && /Allow\? \[y\]/.test(screen)) {
          answered = true;
          child.stdin.write('y\r');
        }
      });
      const code = await new Promise<number | null>((ok) => child.on('close', ok));
      expect(screen).toContain(`everything asks you to open ${url}`);
      expect(screen).toContain('Opening in your browser, as an MCP server asked:');
      expect(screen).toMatch(/completed the URL elicitation|accept/i);
      expect(code).toBe(0);
      expect((await opened(browser.file)).trim()).toBe(url);
    },
  );
});

describe('rein mcp tools|call, smaller things', () => {
  it('a reader that closes the pipe (| head) ends mcp tools quietly, exit 0, no stack trace', async () => {
    await config(everythingYaml);
    const { child, done } = startRein(['mcp', 'tools', 'everything'], { env: world.env, cwd: world.cwd });
    child.stdout!.once('data', () => child.stdout!.destroy());
    const r = await done;
    expect(r.code).toBe(0);
    expect(r.stderr).not.toMatch(/EPIPE|Error:|at .*\.js:\d+/);
  });

  it('"3" is a number where the tool’s schema asks for one, as in runs; a missing field is refused (exit 1)', async () => {
    await config(everythingYaml);
    const r = await rein(['mcp', 'call', 'everything', 'get-sum', '--args', '{"a":"3","b":4}'], {
      env: world.env,
      cwd: world.cwd,
    });
    expect(r).toMatchObject({ code: 0, stdout: 'The sum of 3 and 4 is 7.\n' });
    const missing = await rein(['mcp', 'call', 'everything', 'get-sum', '--args', '{"a":1}'], {
      env: world.env,
      cwd: world.cwd,
    });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/--args: invalid input for get-sum: .*b/);
  });

  it('--yes with a sampling request says why it cannot be answered (no model in mcp call)', async () => {
    await config(everythingYaml);
    const r = await rein(
      ['mcp', 'call', 'everything', 'trigger-sampling-request', '--yes', '--args', '{"prompt":"hi"}'],
      { env: world.env, cwd: world.cwd },
    );
    expect(`${r.stdout}${r.stderr}`).toMatch(/rein mcp call has no model to answer with/);
    expect(`${r.stdout}${r.stderr}`).not.toMatch(/nobody could be asked/);
  });

  it('an ad-hoc URL goes by its host (or a configured server’s name), never “url”', async () => {
    await config('model: nothing-to-do-with-it\n');
    const port = new URL(everythingHttp.url).port;
    const t = await rein(['mcp', 'tools', everythingHttp.url, '--json'], { env: world.env, cwd: world.cwd });
    const names = (JSON.parse(t.stdout) as { name: string }[]).map((x) => x.name);
    expect(names).toContain(`mcp__127_0_0_1_${port}__echo`);
    expect(names.some((n) => n.startsWith('mcp__url__'))).toBe(false);
    const none = await rein(['mcp', 'call', everythingHttp.url, 'no-such-tool'], { env: world.env, cwd: world.cwd });
    expect(none.stderr).toContain(`MCP server 127.0.0.1:${port} has no tool "no-such-tool"`);
    await config(`mcp_servers:\n  evh:\n    type: http\n    url: ${everythingHttp.url}\n`);
    const named = await rein(['mcp', 'tools', everythingHttp.url, '--json'], { env: world.env, cwd: world.cwd });
    expect((JSON.parse(named.stdout) as { name: string }[]).map((x) => x.name)).toContain('mcp__evh__echo');
  });

  it('a URL that is not an MCP endpoint: the error is a status line, not the server’s HTML page', async () => {
    await config('model: x\n');
    const bad = everythingHttp.url.replace(/\/mcp$/, '/nothing-here');
    const r = await rein(['mcp', 'tools', bad], { env: world.env, cwd: world.cwd });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/404 Not Found/);
    expect(r.stderr).not.toMatch(/<html|<!DOCTYPE|<pre>/i);
  });
});

describe('the legacy HTTP+SSE transport', () => {
  it('an SSE URL is reached by falling back from Streamable HTTP', async () => {
    await config('model: x\n');
    const r = await rein(['mcp', 'call', everythingSse.url, 'echo', '--args', '{"message":"over sse"}'], {
      env: world.env,
      cwd: world.cwd,
    });
    expect(r).toMatchObject({ code: 0, stdout: 'Echo: over sse\n' });
  });

  it('mcp import claude-desktop keeps a type: sse server one, and it works', async () => {
    await config('model: x\n');
    const file = join(world.cwd, 'claude_desktop_config.json');
    await writeFile(file, JSON.stringify({ mcpServers: { legacy: { type: 'sse', url: everythingSse.url } } }));
    const imp = await rein(['mcp', 'import', 'claude-desktop', '--file', file], { env: world.env, cwd: world.cwd });
    expect(imp.code).toBe(0);
    expect(await readFile(join(world.home, 'config.yaml'), 'utf8')).toContain(
      `  legacy:\n    type: sse\n    url: ${everythingSse.url}\n`,
    );
    const list = await rein(['mcp', 'list'], { env: world.env, cwd: world.cwd });
    expect(list.stdout).toMatch(/^legacy\s+sse\s+healthy\s+\d+ tools/m);
    // The JSON reports the configured transport too: sse, not the http it used to be folded into.
    const json = await rein(['mcp', 'list', '--json'], { env: world.env, cwd: world.cwd });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      agent: 'default',
      servers: [{ name: 'legacy', type: 'sse', state: 'healthy' }],
    });
    const r = await rein(['mcp', 'call', 'legacy', 'echo', '--args', '{"message":"imported"}'], {
      env: world.env,
      cwd: world.cwd,
    });
    expect(r).toMatchObject({ code: 0, stdout: 'Echo: imported\n' });
  });
});

describe('OAuth from the command line', () => {
  const BROWSER = `${JSON.stringify(process.execPath)} ${JSON.stringify(join(__dirname, '../support/browserFetch.mjs'))}`;

  it('a 403 insufficient_scope during the call signs in again with the union of scopes and the call runs', async () => {
    const oauth = await startFakeMcpOAuth({ stepUp: { basic: 'mcp:basic', write: 'mcp:write' } });
    try {
      const r = await rein(['mcp', 'call', oauth.url, 'whoami'], { env: { ...world.env, BROWSER }, cwd: world.cwd });
      expect(r.stderr).toMatch(/asks for more permission \(scope "mcp:basic mcp:write"\); signing in again/);
      expect(r).toMatchObject({ code: 0, stdout: expect.stringMatching(/^client /) });
      expect(oauth.authorizations.map((a) => a.scopes)).toEqual([['mcp:basic'], ['mcp:basic', 'mcp:write']]);
    } finally {
      await oauth.close();
    }
  });

  it('REIN_MCP_CLIENT_METADATA_URL is the client ID where the authorization server supports it (no registration)', async () => {
    const port = await freePort();
    const oauth = await startFakeMcpOAuth({ cimd: { redirect_uri: `http://127.0.0.1:${port}/callback` } });
    try {
      await config(
        `mcp_servers:\n  remote:\n    type: http\n    url: ${oauth.url}\n    oauth: { redirect_port: ${port} }\n`,
      );
      const id = 'https://rein.example/oauth/client-metadata.json';
      const r = await rein(['mcp', 'login', 'remote'], {
        env: { ...world.env, BROWSER, REIN_MCP_CLIENT_METADATA_URL: id },
        cwd: world.cwd,
      });
      expect(r.code).toBe(0);
      expect(oauth.registrations).toEqual([]);
      const call = await rein(['mcp', 'call', 'remote', 'whoami'], { env: world.env, cwd: world.cwd });
      expect(call).toMatchObject({ code: 0, stdout: `client ${id}\n` });
    } finally {
      await oauth.close();
    }
  });
});
