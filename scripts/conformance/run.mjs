#!/usr/bin/env node
/**
 * Runs the MCP conformance suite (@modelcontextprotocol/conformance, a devDependency) against Rein, all
 * on loopback:
 *
 * - its **client** scenarios against Rein's MCP client: for each scenario the suite starts its test
 *   server and runs `node scripts/conformance/client.mjs <url>` (the built CLI's `rein mcp tools|call`);
 * - its **server** scenarios against `rein mcp serve --http` (a throwaway REIN_HOME, the built-in agent).
 *
 * Each scenario gets a status from its checks: `pass` (some SUCCESS, no FAILURE or WARNING), `warning`
 * (no FAILURE, some WARNING: a SHOULD, or a timing the suite found slightly late) or `fail` (a FAILURE,
 * or no check at all). tests/conformance/conformance.test.ts compares them with
 * tests/conformance/expected.json; docs/mcp.md, *Conformance*, has the table.
 *
 *   node scripts/conformance/run.mjs [--client NAME]… [--server NAME]… [--json FILE]
 *
 * Needs the CLI built (`npm run build:cli`). Without arguments it runs every scenario the suite lists
 * (a few minutes); the test runs only those expected.json does not mark out of scope. Client scenarios
 * run three at a time, except the ones the suite times, which run alone.
 */
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const ROOT = resolve(here, '../..');

/** The suite's CLI, or undefined when it is not installed. */
export function suiteCli() {
  try {
    const require = createRequire(join(ROOT, 'package.json'));
    const pkg = require.resolve('@modelcontextprotocol/conformance/package.json');
    const cli = join(dirname(pkg), 'dist/index.js');
    return existsSync(cli) ? { cli, version: JSON.parse(readFileSync(pkg, 'utf8')).version } : undefined;
  } catch {
    return undefined;
  }
}

/** Runs a command; resolves with its exit code and output (never rejects on a non-zero exit). */
function run(argv, opts = {}) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(argv[0], argv.slice(1), {
      cwd: opts.cwd ?? ROOT,
      env: opts.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const timer = opts.timeoutMs ? setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs) : undefined;
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code: code ?? (signal ? 128 : 0), stdout: out, stderr: err });
    });
  });
}

/** The suite's CLI as a command line: on Node 20 with node20.mjs preloaded (see there). */
function suite(cli, ...args) {
  return [process.execPath, '--import', join(here, 'node20.mjs'), cli, ...args];
}

/** The scenarios the suite knows: `server` ones test a server, `client` ones a client. */
export async function listScenarios(cli) {
  const r = await run(suite(cli, 'list'), { timeoutMs: 60_000 });
  if (r.code !== 0) throw new Error(`conformance list failed (${r.code}): ${r.stderr.slice(0, 2000)}`);
  const out = { server: [], client: [] };
  let into;
  for (const line of r.stdout.split('\n')) {
    if (/^Server scenarios/.test(line)) into = out.server;
    else if (/^Client scenarios/.test(line)) into = out.client;
    const m = /^\s+-\s+(\S+)/.exec(line);
    if (m && into) into.push(m[1]);
  }
  return out;
}

function findChecks(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (name === 'checks.json') return [p];
  }
  return readdirSync(dir)
    .map((n) => join(dir, n))
    .filter((p) => statSync(p).isDirectory())
    .flatMap((p) => findChecks(p));
}

/** A scenario's status from its checks (see the file's comment). */
export function summarize(scenario, checks, note) {
  const count = (s) => checks.filter((c) => c.status === s).length;
  const success = count('SUCCESS');
  const failure = count('FAILURE');
  const warning = count('WARNING');
  const status = failure > 0 || (success === 0 && warning === 0) ? 'fail' : warning > 0 ? 'warning' : 'pass';
  const problems = checks
    .filter((c) => c.status === 'FAILURE' || c.status === 'WARNING')
    .map((c) => `${c.status} ${c.id}: ${(c.errorMessage ?? c.description ?? '').slice(0, 300)}`);
  return {
    scenario,
    status,
    success,
    failure,
    warning,
    problems: note && problems.length === 0 ? [note] : problems,
    checks: checks.filter((c) => c.status !== 'INFO').map((c) => ({ id: c.id, status: c.status })),
  };
}

/** One client scenario against Rein's client. */
export async function runClientScenario(cli, scenario, workDir, env = process.env) {
  const out = mkdtempSync(join(workDir, 'client-'));
  const started = Date.now();
  const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(join(here, 'client.mjs'))}`;
  const r = await run(
    suite(cli, 'client', '--command', command, '--scenario', scenario, '-o', out, '--timeout', '30000'),
    { env, timeoutMs: 90_000 },
  );
  const files = findChecks(out);
  const result =
    files.length === 0
      ? summarize(scenario, [], `no results (exit ${r.code}): ${(r.stderr || r.stdout).slice(-500)}`)
      : summarize(scenario, JSON.parse(readFileSync(files[0], 'utf8')));
  // What Rein said, for a scenario that did not pass (the suite keeps the client's stderr beside its checks).
  const said = files.length > 0 && result.status !== 'pass' ? join(dirname(files[0]), 'stderr.txt') : undefined;
  const stderr = said && existsSync(said) ? readFileSync(said, 'utf8').slice(-1500) : undefined;
  return { ...result, ms: Date.now() - started, ...(stderr ? { stderr } : {}) };
}

/** Scenarios the suite times (sse-retry measures the reconnect delay): run alone, after the others. */
const TIMED = new Set(['sse-retry']);

/** `one` for each scenario, `concurrency` at a time, then the timed ones alone; results in the order asked. */
async function pooled(scenarios, concurrency, one) {
  const results = new Map();
  const queue = scenarios.filter((s) => !TIMED.has(s));
  const workers = Array.from({ length: Math.max(1, Math.min(concurrency, queue.length)) }, async () => {
    for (let s = queue.shift(); s !== undefined; s = queue.shift()) results.set(s, await one(s));
  });
  await Promise.all(workers);
  for (const s of scenarios.filter((x) => TIMED.has(x))) results.set(s, await one(s));
  return scenarios.map((s) => results.get(s));
}

/** Client scenarios against Rein's client, `concurrency` at a time (the timed ones alone). */
export function runClientScenarios(cli, scenarios, workDir, env = process.env, concurrency = 3) {
  return pooled(scenarios, concurrency, (s) => runClientScenario(cli, s, workDir, env));
}

/** `rein mcp serve --http --port 0` in a throwaway home; resolves once it printed its URL. */
export async function startReinServer(workDir, env = process.env) {
  const home = mkdtempSync(join(workDir, 'serve-home-'));
  const cwd = mkdtempSync(join(workDir, 'serve-cwd-'));
  const child = spawn(process.execPath, [join(ROOT, 'bin/rein.js'), 'mcp', 'serve', '--http', '--port', '0'], {
    cwd,
    env: { ...env, HOME: home, REIN_HOME: home, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const url = await new Promise((ok, fail) => {
    let out = '';
    const timer = setTimeout(() => fail(new Error(`rein mcp serve printed no URL within 60 s: ${stderr}`)), 60_000);
    child.stdout.on('data', (d) => {
      out += d;
      const line = out.split('\n').find((l) => /^http:\/\//.test(l.trim()));
      if (line) {
        clearTimeout(timer);
        ok(line.trim());
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`rein mcp serve exited (${code}) before serving: ${stderr}`));
    });
  });
  return {
    url,
    stop: () =>
      new Promise((ok) => {
        if (child.exitCode !== null || child.signalCode !== null) return ok();
        child.once('exit', () => ok());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
      }),
  };
}

/** One server scenario against a running server (each in its own MCP session). */
export async function runServerScenario(cli, url, scenario, workDir, env = process.env) {
  const out = mkdtempSync(join(workDir, 'server-'));
  const started = Date.now();
  const r = await run(suite(cli, 'server', '--url', url, '--scenario', scenario, '-o', out), {
    env,
    timeoutMs: 90_000,
  });
  const files = findChecks(out);
  const result =
    files.length === 0
      ? summarize(scenario, [], `no results (exit ${r.code}): ${(r.stderr || r.stdout).slice(-500)}`)
      : summarize(scenario, JSON.parse(readFileSync(files[0], 'utf8')));
  return { ...result, ms: Date.now() - started };
}

/** Server scenarios against a running server, `concurrency` at a time. */
export function runServerScenarios(cli, url, scenarios, workDir, env = process.env, concurrency = 3) {
  return pooled(scenarios, concurrency, (s) => runServerScenario(cli, url, s, workDir, env));
}

/** Everything asked for; `client`/`server` undefined: every scenario the suite lists. */
export async function runConformance(o = {}) {
  const found = suiteCli();
  if (!found) throw new Error('@modelcontextprotocol/conformance is not installed (npm install)');
  if (!existsSync(join(ROOT, 'out/cli/rein.js'))) throw new Error('the CLI is not built (npm run build:cli)');
  const listed = await listScenarios(found.cli);
  const workDir = mkdtempSync(join(o.tmp ?? tmpdir(), 'rein-conformance-'));
  try {
    const client = await runClientScenarios(found.cli, o.client ?? listed.client, workDir, o.env, o.concurrency);
    let server = [];
    const wanted = o.server ?? listed.server;
    if (wanted.length > 0) {
      const rein = await startReinServer(workDir, o.env);
      try {
        server = await runServerScenarios(found.cli, rein.url, wanted, workDir, o.env, o.concurrency);
      } finally {
        await rein.stop();
      }
    }
    return { suite: `@modelcontextprotocol/conformance@${found.version}`, listed, client, server };
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

/** The results as a Markdown table. */
export function table(results) {
  const rows = [...results.client.map((r) => ['client', r]), ...results.server.map((r) => ['server', r])];
  return [
    '| side | scenario | status | checks (ok/fail/warn) |',
    '|---|---|---|---|',
    ...rows.map(
      ([side, r]) => `| ${side} | \`${r.scenario}\` | ${r.status} | ${r.success}/${r.failure}/${r.warning} |`,
    ),
  ].join('\n');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const pick = (flag) => args.flatMap((a, i) => (args[i - 1] === flag ? [a] : []));
  const client = pick('--client');
  const server = pick('--server');
  const only = client.length > 0 || server.length > 0;
  const results = await runConformance(only ? { client, server } : {});
  process.stdout.write(`${results.suite}\n\n${table(results)}\n`);
  for (const r of [...results.client, ...results.server])
    for (const p of r.problems) process.stdout.write(`  ${r.scenario}: ${p}\n`);
  const json = pick('--json')[0];
  if (json) {
    mkdirSync(dirname(resolve(json)), { recursive: true });
    writeFileSync(json, `${JSON.stringify(results, null, 2)}\n`);
  }
}
