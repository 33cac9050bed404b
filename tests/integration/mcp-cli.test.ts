/**
 * `rein mcp list|tools|call|login` and `rein run` with MCP servers, through the built CLI as a user
 * runs it, against the real server-everything (stdio and Streamable HTTP), an SDK-made server that asks
 * for input with defaults, and the fake OAuth server (BROWSER is a script that fetches the URL).
 */
import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { writeFile, mkdir } from 'node:fs/promises';
import { cliWorld, rein, startRein } from '../support/cli.js';
import type { FakeAnthropic } from '../support/fakeAnthropic.js';
import { text, toolCall, tools } from '../support/fakeAnthropic.js';
import { followAuthorization, startFakeMcpOAuth, type FakeOAuth } from '../support/fakeMcpOAuth.js';
import { useLeakCheck } from '../support/leaks.js';
import {
  EVERYTHING_BIN,
  startEverythingHttp,
  startSdkServer,
  type ChildServer,
  type SdkServer,
} from '../support/mcpPeers.js';

useLeakCheck();

const BROWSER = `${JSON.stringify(process.execPath)} ${JSON.stringify(resolve(__dirname, '../support/browserFetch.mjs'))}`;

let world: { fake: FakeAnthropic; home: string; cwd: string; env: NodeJS.ProcessEnv };
let everythingHttp: ChildServer;

beforeAll(async () => {
  everythingHttp = await startEverythingHttp();
});
afterAll(async () => {
  await everythingHttp.close();
});

async function config(yaml: string) {
  await mkdir(world.home, { recursive: true });
  await writeFile(join(world.home, 'config.yaml'), yaml);
}

const everythingYaml = (extra = '') =>
  `mcp_servers:\n  everything:\n    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(EVERYTHING_BIN)}, stdio]\n${extra}`;

describe('rein mcp (client side)', () => {
  beforeAll(async () => {
    world = await cliWorld();
  });
  afterAll(async () => {
    await world.fake.close();
  });

  it('list: each server with its state and tool count; --json in the status shape', async () => {
    await config(
      `${everythingYaml()}  broken:\n    command: /nonexistent/mcp-server\n  off:\n    command: x\n    disabled: true\n`,
    );
    const r = await rein(['mcp', 'list'], { env: world.env, cwd: world.cwd });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^broken\s+stdio\s+disconnected\s+0 tools .*could not be started/m);
    expect(r.stdout).toMatch(/^everything\s+stdio\s+healthy\s+\d+ tools/m);
    expect(r.stdout).toMatch(/^off\s+stdio\s+disabled/m);
    const j = await rein(['mcp', 'list', '--json'], { env: world.env, cwd: world.cwd });
    expect(JSON.parse(j.stdout)).toMatchObject({
      agent: 'default',
      servers: [
        { name: 'broken', state: 'disconnected' },
        { name: 'everything', state: 'healthy' },
        { name: 'off', state: 'disabled' },
      ],
    });
  });

  it('tools and call on a configured server; exit codes 0, 1 and 2', async () => {
    await config(everythingYaml());
    const t = await rein(['mcp', 'tools', 'everything', '--json'], { env: world.env, cwd: world.cwd });
    expect(t.code).toBe(0);
    const list = JSON.parse(t.stdout) as { name: string; tool: string; annotations: { readOnlyHint?: boolean } }[];
    expect(list.find((x) => x.name === 'mcp__everything__echo')).toMatchObject({
      tool: 'echo',
      annotations: { readOnlyHint: true },
    });
    const text = await rein(['mcp', 'tools', 'everything'], { env: world.env, cwd: world.cwd });
    expect(text.stdout).toMatch(/^mcp__everything__echo {2}\[read-only\]\n {4}Echoes back the input string$/m);

    const c = await rein(['mcp', 'call', 'everything', 'echo', '--args', '{"message":"hello cli"}'], {
      env: world.env,
      cwd: world.cwd,
    });
    expect(c).toMatchObject({ code: 0, stdout: 'Echo: hello cli\n' });
    const byRegistryName = await rein(
      ['mcp', 'call', 'everything', 'mcp__everything__echo', '--args', '{"message":"x"}', '--json'],
      { env: world.env, cwd: world.cwd },
    );
    expect(JSON.parse(byRegistryName.stdout)).toEqual({ content: [{ type: 'text', text: 'Echo: x' }] });

    const failed = await rein(['mcp', 'call', 'everything', 'get-sum', '--args', '{"a":1}'], {
      env: world.env,
      cwd: world.cwd,
    });
    expect(failed.code).toBe(1);
    const unknown = await rein(['mcp', 'call', 'everything', 'no-such-tool'], { env: world.env, cwd: world.cwd });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/has no tool "no-such-tool" \(it has: echo,/);
    expect(
      (await rein(['mcp', 'call', 'everything', 'echo', '--args', 'not json'], { env: world.env, cwd: world.cwd }))
        .code,
    ).toBe(2);
    expect((await rein(['mcp', 'call', 'nothere', 'echo'], { env: world.env, cwd: world.cwd })).code).toBe(2);
    expect((await rein(['mcp', 'call', 'everything'], { env: world.env, cwd: world.cwd })).code).toBe(2);
  });

  it('a URL needs no config at all (Streamable HTTP)', async () => {
    await config('model: nothing-to-do-with-it\n');
    const c = await rein(['mcp', 'call', everythingHttp.url, 'echo', '--args', '{"message":"over http"}'], {
      env: world.env,
      cwd: world.cwd,
    });
    expect(c).toMatchObject({ code: 0, stdout: 'Echo: over http\n' });
    const t = await rein(['mcp', 'tools', everythingHttp.url, '--json'], { env: world.env, cwd: world.cwd });
    expect(JSON.parse(t.stdout).map((x: { tool: string }) => x.tool)).toContain('get-tiny-image');
    const img = await rein(['mcp', 'call', everythingHttp.url, 'get-tiny-image'], { env: world.env, cwd: world.cwd });
    expect(img.stdout).toMatch(/\[image: image\/png, [\d.]+ KiB\]/);
  });

  it('--yes accepts the defaults of a server’s question; without it and without a terminal it is declined', async () => {
    let s: SdkServer | undefined;
    try {
      s = await startSdkServer({
        setup: (server) =>
          server.registerTool('ask', { description: 'Asks with defaults', inputSchema: {} }, async () => {
            const r = await server.server.elicitInput({
              message: 'Confirm',
              requestedSchema: {
                type: 'object',
                properties: { color: { type: 'string', default: 'green' }, count: { type: 'integer', default: 2 } },
                required: ['color'],
              },
            });
            return { content: [{ type: 'text', text: `${r.action} ${JSON.stringify(r.content ?? {})}` }] };
          }),
      });
      const yes = await rein(['mcp', 'call', s.url, 'ask', '--yes'], { env: world.env, cwd: world.cwd });
      expect(yes).toMatchObject({ code: 0, stdout: 'accept {"color":"green","count":2}\n' });
      const no = await rein(['mcp', 'call', s.url, 'ask'], { env: world.env, cwd: world.cwd });
      expect(no.stdout).toBe('decline {}\n');
      expect(no.stderr).toMatch(/no terminal to ask on; declined/);
    } finally {
      await s?.close();
    }
  });

  it('rein run: the agent calls mcp__everything__echo; its servers stop with the run', async () => {
    await config(everythingYaml('    always_allow: [echo]\n'));
    world.fake.enqueue(tools([toolCall('mcp__everything__echo', { message: 'from rein run' })]), text('all done'));
    const r = await rein(['run', '--json', 'echo it'], { env: world.env, cwd: world.cwd });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('"tool":"mcp__everything__echo"');
    expect(JSON.stringify(world.fake.requests.at(-1)!.body.messages.at(-1))).toContain('Echo: from rein run');
  });
});

describe('rein mcp login (OAuth)', () => {
  let oauth: FakeOAuth;
  beforeAll(async () => {
    world = await cliWorld();
  });
  afterAll(async () => {
    await world.fake.close();
  });
  afterEach(async () => {
    await oauth?.close();
  });

  it('signs in through $BROWSER, keeps the tokens 0600, and the server works afterwards', async () => {
    oauth = await startFakeMcpOAuth();
    await config(`mcp_servers:\n  remote:\n    type: http\n    url: ${oauth.url}\n`);
    const before = await rein(['mcp', 'list'], { env: world.env, cwd: world.cwd });
    expect(before.stdout).toMatch(
      /^remote\s+http\s+disconnected\s+0 tools .* — sign-in needed: rein mcp login remote/m,
    );
    const r = await rein(['mcp', 'login', 'remote'], { env: { ...world.env, BROWSER }, cwd: world.cwd });
    expect(r.stderr).toMatch(/Opening your browser to sign in/);
    expect(r).toMatchObject({ code: 0 });
    expect(r.stdout).toMatch(/^signed in to remote \(1 tools\); tokens saved in .*secrets\/mcp-oauth\/remote\.json$/m);
    expect((await stat(join(world.home, 'secrets', 'mcp-oauth', 'remote.json'))).mode & 0o777).toBe(0o600);
    const call = await rein(['mcp', 'call', 'remote', 'whoami'], { env: world.env, cwd: world.cwd });
    expect(call).toMatchObject({ code: 0, stdout: `client ${oauth.registrations[0]!.client_id}\n` });
    expect((await rein(['mcp', 'login', 'nothere'], { env: world.env, cwd: world.cwd })).code).toBe(2);
  });

  it('with no browser at all, the URL is printed for the person and Rein never requests it, even from a server that grants at once', async () => {
    oauth = await startFakeMcpOAuth();
    // A $BROWSER that opens nothing: no platform opener is tried, on any machine.
    const { child, done } = startRein(['mcp', 'call', oauth.url, 'whoami'], {
      env: { ...world.env, BROWSER: 'false' },
      cwd: world.cwd,
    });
    let stderr = '';
    const url = await new Promise<URL>((resolve, reject) => {
      child.stderr!.on('data', (d: string) => {
        stderr += d;
        const m =
          /No browser could be started\. To sign in, open this address in a browser \(waiting up to 5 minutes\):\n {2}(http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+)\n/.exec(
            stderr,
          );
        if (m) resolve(new URL(m[1]!));
      });
      child.on('close', () => reject(new Error(`rein ended before printing the URL: ${stderr}`)));
    });
    expect(stderr).toMatch(/If it does not open, visit:\n {2}http:\/\/127\.0\.0\.1:\d+\/authorize\?/);
    // Nothing has been to the authorization endpoint: nobody is signed in until the person opens the page.
    expect(oauth.authorizations).toEqual([]);
    await followAuthorization(url);
    const r = await done;
    expect(r).toMatchObject({ code: 0, stdout: `client ${oauth.registrations[0]!.client_id}\n` });
    expect(oauth.authorizations).toHaveLength(1);
  });

  it('a URL that asks for a sign-in gets one for the one command, and nothing is written', async () => {
    oauth = await startFakeMcpOAuth();
    const r = await rein(['mcp', 'call', oauth.url, 'whoami'], { env: { ...world.env, BROWSER }, cwd: world.cwd });
    expect(r).toMatchObject({ code: 0, stdout: `client ${oauth.registrations[0]!.client_id}\n` });
    await expect(stat(join(world.home, 'secrets', 'mcp-oauth', 'url.json'))).rejects.toThrow();
  });
});
