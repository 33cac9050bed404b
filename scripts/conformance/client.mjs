#!/usr/bin/env node
/**
 * The MCP conformance suite's client under test (`conformance client --command "node
 * scripts/conformance/client.mjs"`): the suite starts a test server for a scenario, runs this with the
 * server's URL as the last argument and the scenario's name in MCP_CONFORMANCE_SCENARIO, and judges what
 * the client sent. This runs Rein's real MCP client, the built CLI (`out/cli`, `npm run build:cli`):
 *
 *   rein mcp tools URL --json                          initialize: connect, list the tools
 *   rein mcp call  URL TOOL [--args JSON] --yes --json  a tool call; --yes takes an elicitation's defaults
 *
 * A server that asks for a sign-in gets one: $BROWSER is browser.mjs, which fetches the authorization URL
 * like a person's browser would (the suite's authorization server grants at once). Scenarios that hand
 * pre-registered credentials (MCP_CONFORMANCE_CONTEXT) get them as a configured server's `oauth` block in
 * a throwaway REIN_HOME. Rein's URL-based client ID (a client ID metadata document's URL) is the one the
 * suite's authorization server expects (`auth/basic-cimd`), given as REIN_MCP_CLIENT_METADATA_URL; the
 * suite never fetches it, and an authorization server that does not advertise
 * `client_id_metadata_document_supported` makes Rein register dynamically as before. Exit code: the CLI's.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const url = process.argv[process.argv.length - 1];
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
if (!/^https?:\/\//.test(url ?? '')) {
  process.stderr.write('usage: client.mjs SERVER_URL (with MCP_CONFORMANCE_SCENARIO set)\n');
  process.exit(2);
}

/** What Rein does for each scenario: the tool it calls (none: list the tools) and its arguments. */
function plan(name) {
  if (name === 'initialize') return { tool: undefined };
  if (name === 'tools_call') return { tool: 'add_numbers', args: { a: 5, b: 3 } };
  if (name === 'elicitation-sep1034-client-defaults') return { tool: 'test_client_elicitation_defaults', args: {} };
  if (name === 'sse-retry') return { tool: 'test_reconnection', args: {} };
  // Every auth scenario's server has `test-tool` behind its sign-in.
  if (name.startsWith('auth/')) return { tool: 'test-tool', args: {} };
  return { tool: undefined };
}

const home = mkdtempSync(join(tmpdir(), 'rein-conformance-'));
let target = url;
let context = {};
try {
  context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}');
} catch {
  // no context
}
if (typeof context.client_id === 'string') {
  // Pre-registered credentials come through a configured server, as a user would give them.
  const oauth = {
    client_id: context.client_id,
    ...(typeof context.client_secret === 'string' ? { client_secret: context.client_secret } : {}),
  };
  writeFileSync(
    join(home, 'config.yaml'),
    JSON.stringify({ mcp_servers: { conformance: { type: 'http', url, oauth } } }),
  );
  target = 'conformance';
}

/** The client ID metadata document URL the suite's `auth/basic-cimd` expects as the client_id. */
const CONFORMANCE_CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';

const { tool, args } = plan(scenario);
const argv = tool
  ? ['mcp', 'call', target, tool, '--args', JSON.stringify(args), '--yes', '--json']
  : ['mcp', 'tools', target, '--json'];
const env = {
  ...process.env,
  HOME: home,
  REIN_HOME: home,
  BROWSER: `${JSON.stringify(process.execPath)} ${JSON.stringify(join(here, 'browser.mjs'))}`,
  NO_COLOR: '1',
  REIN_MCP_CLIENT_METADATA_URL: CONFORMANCE_CLIENT_METADATA_URL,
};
const child = spawn(process.execPath, [join(root, 'bin/rein.js'), ...argv], {
  env,
  stdio: ['ignore', 'inherit', 'inherit'],
});
const code = await new Promise((ok) => child.on('exit', (c, s) => ok(c ?? (s ? 1 : 0))));
rmSync(home, { recursive: true, force: true });
process.exit(code);
