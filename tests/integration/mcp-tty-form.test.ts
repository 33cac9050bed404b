/**
 * A question from an MCP server asked at a real terminal (`script` gives `rein mcp call` a
 * pseudo-terminal): the person agrees to fill it in, types one field, takes a default with Enter,
 * answers a yes/no, and the server gets those values.
 */
import { spawn, spawnSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, REIN_BIN, tempHome } from '../support/cli.js';
import { useLeakCheck } from '../support/leaks.js';
import { startSdkServer, type SdkServer } from '../support/mcpPeers.js';

useLeakCheck();

const hasScript = spawnSync('script', ['--version']).status === 0;
let server: SdkServer;

beforeEach(async () => {
  server = await startSdkServer({
    setup: (s) =>
      s.registerTool('ask', { description: 'Asks three things', inputSchema: {} }, async () => {
        const r = await s.server.elicitInput({
          message: 'Tell me about you',
          requestedSchema: {
            type: 'object',
            properties: {
              name: { type: 'string', title: 'Your name' },
              color: { type: 'string', title: 'Colour', enum: ['red', 'blue'], default: 'blue' },
              ok: { type: 'boolean', title: 'Agree' },
            },
            required: ['name'],
          },
        });
        return { content: [{ type: 'text', text: `${r.action} ${JSON.stringify(r.content ?? {})}` }] };
      }),
  });
});
afterEach(async () => {
  await server.close();
});

describe.skipIf(!hasScript)('an MCP server’s question at the terminal', () => {
  it('is asked field by field; Enter takes the default', async () => {
    const { home, cwd } = await tempHome();
    const env = cleanEnv({ REIN_HOME: home, TERM: 'dumb' });
    const cmd = `${JSON.stringify(process.execPath)} ${JSON.stringify(REIN_BIN)} mcp call ${server.url} ask`;
    const child = spawn('script', ['-qfec', cmd, '/dev/null'], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    const script: [string, string][] = [
      ['Fill it in?', 'y'],
      ['Your name *', 'Ada'],
      ['Colour (Enter for blue)', ''],
      ['Agree (y/n', 'y'],
    ];
    let screen = '';
    let from = 0;
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      screen += d;
      const next = script[0];
      if (!next) return;
      const at = screen.indexOf(next[0], from);
      if (at >= 0) {
        from = at + next[0].length;
        script.shift();
        child.stdin.write(`${next[1]}\r`);
      }
    });
    const code = await new Promise<number | null>((ok) => child.on('close', ok));
    expect(screen).toContain(`[input requested] 127.0.0.1:${new URL(server.url).port} asks: Tell me about you`);
    expect(script).toEqual([]);
    expect(screen).toContain('accept {"name":"Ada","color":"blue","ok":true}');
    expect(code).toBe(0);
  });
});
