/**
 * `rein doctor`: one look at everything a run, a schedule or the app depends on, each with what to do
 * when it is not right. Local and quick: it reads files and asks the platform, never the model, never
 * an MCP server, and changes nothing — unless `online`: then one request of one token goes to the
 * model and every enabled MCP server is connected once (and let go). Each check is `ok`, `warn` (works, but something a person may not
 * expect) or `fail` (something will not work).
 */
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { listAgents, resolveAgentRuntimeConfig } from '../agents/index.js';
import { locateHelper } from '../ax/helperProcess.js';
import { listKeys, printable, shellWord, untrustedWarning } from '../config/folderTrust.js';
import { loadConfig, type LoadedOverlay } from '../config/load.js';
import { paths } from '../config/paths.js';
import type { GlobalConfig } from '../config/schema.js';
import { runningDaemon } from '../daemon/daemonFile.js';
import { errorMessage, isReinError } from '../errors.js';
import { resolveServer } from '../mcpClient/config.js';
import { isNotifier, systemNotifier } from '../notify/systemNotifier.js';
import { resolveModelAccess } from '../runtime/runtime.js';
import { apiKeyStatus, storeName } from '../secrets/apiKey.js';
import { scheduleBackend, type ScheduleBackendName } from '../schedule/backend.js';
import { resolveLaunchAgentsDir, type Launchd } from '../schedule/launchctl.js';
import { launchdPlistPath } from '../schedule/launchdPlist.js';
import { missedFireTime } from '../schedule/cronCheck.js';
import { ScheduleStore, type Schedule } from '../schedule/store.js';
import { scheduleJobChecks } from './launchdChecks.js';
import { pendingFile } from '../search/pendingIndex.js';
import { testModelConnection } from '../service/connectionTest.js';
import { watchCheck } from './watchCheck.js';
import { leftoversChecks } from './leftoversCheck.js';

export type CheckStatus = 'ok' | 'warn' | 'fail';

export interface Check {
  name: string;
  status: CheckStatus;
  message: string;
  /** What to do about it (warn and fail). */
  hint?: string;
}

export interface DoctorReport {
  ok: boolean;
  checks: Check[];
}

export interface DoctorOptions {
  home: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  /** Also one model request and a connection to each MCP server. */
  online?: boolean;
  /** launchctl (tests bring a stand-in; REIN_LAUNCHCTL does too). */
  launchd?: Launchd;
}

const ok = (name: string, message: string): Check => ({ name, status: 'ok', message });
const warn = (name: string, message: string, hint: string): Check => ({ name, status: 'warn', message, hint });
const fail = (name: string, message: string, hint: string): Check => ({ name, status: 'fail', message, hint });

export async function runDoctor(o: DoctorOptions): Promise<DoctorReport> {
  const platform = o.platform ?? process.platform;
  const checks: Check[] = [await homeCheck(o.home)];
  let config: GlobalConfig | undefined;
  try {
    // Nobody is asked here: an overlay `rein trust` did not trust is checked without its raising settings,
    // so `--online` never starts the MCP command a repository put in its .rein/config.yaml.
    const told: string[] = [];
    const loaded = await loadConfig({ home: o.home, cwd: o.cwd, trust: 'stored', warn: (m) => told.push(m) });
    config = loaded.config;
    checks.push(
      ok(
        'config',
        existsSync(paths.globalConfig(o.home))
          ? `${paths.globalConfig(o.home)} is valid`
          : `no ${paths.globalConfig(o.home)}: the defaults apply`,
      ),
    );
    checks.push(...overlayChecks(loaded.overlay, told));
  } catch (e) {
    checks.push(fail('config', errorMessage(e), 'fix the field it names; Rein never rewrites a broken file'));
  }
  if (config) {
    const model = await modelCheck(o.env, config, o.home);
    checks.push(model);
    if (o.online && model.status !== 'fail') checks.push(await modelOnlineCheck(o, config));
    checks.push(...(await agentChecks(o, config)));
    if (o.online) checks.push(...(await mcpOnlineChecks(o, config)));
    checks.push(await watchCheck({ home: o.home, platform }, config));
    checks.push(...(await scheduleChecks(o, config, platform)));
  }
  checks.push(await daemonCheck(o.home));
  checks.push(axCheck(o.env, platform));
  checks.push(notificationCheck(o.env, platform, config));
  checks.push(await indexCheck(o.home));
  checks.push(...(await leftoversChecks(o.home)));
  return { ok: checks.every((c) => c.status !== 'fail'), checks };
}

/** The project overlay of the working folder: applied, or its raising settings left out until the folder is trusted. */
function overlayChecks(overlay: LoadedOverlay | undefined, told: readonly string[]): Check[] {
  const out: Check[] = [];
  // A damaged trust file (the one warning besides the overlay's own).
  const own = overlay && !overlay.applied ? untrustedWarning(overlay) : undefined;
  for (const m of told)
    if (m !== own) out.push(warn('trusted folders', m, 'fix or remove the file; `rein trust` writes it anew'));
  if (!overlay) return out;
  if (overlay.applied) {
    out.push(
      ok(
        'project overlay',
        overlay.raising.length > 0
          ? `${printable(overlay.file)} applies (the folder is trusted)`
          : `${printable(overlay.file)} applies (it sets nothing that needs trust)`,
      ),
    );
  } else {
    out.push(
      warn(
        'project overlay',
        `${printable(overlay.file)}: ${listKeys(overlay.raising)} left out: this folder is not trusted`,
        `rein trust ${shellWord(overlay.folder)} shows what it sets and asks`,
      ),
    );
  }
  return out;
}

async function homeCheck(home: string): Promise<Check> {
  let st;
  try {
    st = await stat(home);
  } catch {
    return ok('home', `${home} does not exist yet: the first run makes it`);
  }
  if (!st.isDirectory())
    return fail(
      'home',
      `${home} is not a folder`,
      'move it away; Rein keeps its settings, sessions and secrets in that folder',
    );
  if ((st.mode & 0o077) !== 0) {
    return warn(
      'home',
      `${home} can be read by other users (mode ${(st.mode & 0o777).toString(8)})`,
      `chmod 700 ${home}: it holds sessions, memory and tokens`,
    );
  }
  return ok('home', `${home} (mode 700)`);
}

/**
 * The model, its address, and where the key comes from (the environment, the Keychain, the Secret
 * Service, the file). A key only in this shell's environment works here but not for a launchd job or the
 * app, which start without it: a warning.
 */
async function modelCheck(env: NodeJS.ProcessEnv, config: GlobalConfig, home: string): Promise<Check> {
  const setKey =
    'run `rein auth set-key` (it reads the key on stdin: `printenv ANTHROPIC_API_KEY | rein auth set-key`)';
  let stored;
  try {
    stored = await apiKeyStatus(env, home);
  } catch (e) {
    stored = { status: { stored: false, store: null, env: false }, problems: [errorMessage(e)] };
  }
  try {
    const access = await resolveModelAccess(env, config, home);
    const where = access.baseURL ? `at ${access.baseURL}` : 'at the Anthropic API';
    const inStore = stored.where ? ` (a key is also stored in ${stored.where}; the environment's wins)` : '';
    const key =
      access.keySource === 'none'
        ? 'no key (a server on this machine)'
        : access.keySource === 'env'
          ? `${env.ANTHROPIC_API_KEY?.trim() ? 'the key in ANTHROPIC_API_KEY' : 'the token in ANTHROPIC_AUTH_TOKEN'}${inStore}`
          : `the key stored in ${stored.where ?? storeName(access.keySource)}`;
    const message = `${config.model} ${where}, with ${key}`;
    if (access.keySource === 'env' && !stored.status.stored) {
      return warn(
        'model',
        `${message}; no key is stored, and a launchd job or the app will not see this shell's environment${stored.problems.length > 0 ? ` (${stored.problems.join('; ')})` : ''}`,
        setKey,
      );
    }
    return ok('model', message);
  } catch (e) {
    return fail(
      'model',
      errorMessage(e),
      isReinError(e, 'no_api_key') ? setKey : 'fix the base URL (base_url in config.yaml, or ANTHROPIC_BASE_URL)',
    );
  }
}

async function modelOnlineCheck(o: DoctorOptions, config: GlobalConfig): Promise<Check> {
  const r = await testModelConnection({}, { env: o.env, config, home: o.home });
  return r.ok
    ? ok('model online', `${r.model} answered${r.latency_ms !== undefined ? ` in ${r.latency_ms} ms` : ''}`)
    : fail(
        'model online',
        r.message,
        'check the key, the base URL and the model name (Settings → Test connection does the same)',
      );
}

/** Each agent's enabled MCP servers connected once (the global ones once for all), then stopped. */
async function mcpOnlineChecks(o: DoctorOptions, config: GlobalConfig): Promise<Check[]> {
  const { McpManager } = await import('../mcpClient/manager.js');
  const out: Check[] = [];
  const seen = new Set<string>();
  for (const name of [
    'default',
    ...(await listAgents(o.home).catch(() => [] as string[])).filter((n) => n !== 'default'),
  ]) {
    const rc = await resolveAgentRuntimeConfig(o.home, config, name).catch(() => undefined);
    if (!rc) continue;
    const servers = Object.fromEntries(
      Object.entries(rc.effective.mcpServers).filter(
        ([s, cfg]) => !cfg.disabled && !seen.has(`${s}\0${JSON.stringify(cfg)}`),
      ),
    );
    for (const [s, cfg] of Object.entries(servers)) seen.add(`${s}\0${JSON.stringify(cfg)}`);
    if (Object.keys(servers).length === 0) continue;
    const manager = new McpManager({
      servers,
      env: o.env,
      home: o.home,
      cwd: rc.cwd ?? o.cwd,
      envPassthrough: rc.effective.config.tools.env_passthrough,
    });
    try {
      await manager.ready();
      for (const s of manager.status()) {
        const label = `mcp ${s.name}${name === 'default' ? '' : ` (${name})`}`;
        if (s.state === 'healthy' || s.state === 'degraded')
          out.push(ok(label, `connected: ${s.tools} tool${s.tools === 1 ? '' : 's'}`));
        else if (s.sign_in_required)
          out.push(
            warn(
              label,
              'asks for a sign-in',
              `rein mcp login ${s.name}${name === 'default' ? '' : ` --agent ${name}`}`,
            ),
          );
        else
          out.push(
            fail(
              label,
              `${s.state}${s.last_error ? `: ${s.last_error}` : ''}`,
              'rein mcp list shows the entry; fix its command, URL or environment',
            ),
          );
      }
    } finally {
      await manager.dispose();
    }
  }
  return out;
}

async function agentChecks(o: DoctorOptions, config: GlobalConfig): Promise<Check[]> {
  const out: Check[] = [];
  let names: string[];
  try {
    names = await listAgents(o.home);
  } catch (e) {
    return [fail('agents', `the agents cannot be listed: ${errorMessage(e)}`, `check ${join(o.home, 'agents')}`)];
  }
  const broken: string[] = [];
  const mcpProblems: string[] = [];
  let servers = 0;
  for (const name of ['default', ...names.filter((n) => n !== 'default')]) {
    try {
      const rc = await resolveAgentRuntimeConfig(o.home, config, name);
      for (const [server, cfg] of Object.entries(rc.effective.mcpServers)) {
        servers++;
        if (cfg.disabled) continue;
        const r = resolveServer(server, cfg, o.env);
        if (!r.ok) mcpProblems.push(`${name}: ${r.error}`);
      }
    } catch (e) {
      broken.push(`${name}: ${errorMessage(e)}`);
    }
  }
  out.push(
    broken.length === 0
      ? ok(
          'agents',
          names.length === 0
            ? 'only the built-in agent'
            : `${names.length} agent${names.length === 1 ? '' : 's'} load: ${names.join(', ')}`,
        )
      : fail('agents', broken.join('; '), 'fix the file and field each line names (rein agents show NAME)'),
  );
  out.push(
    mcpProblems.length === 0
      ? ok(
          'mcp',
          servers === 0
            ? 'no MCP servers configured'
            : `${servers} MCP server entr${servers === 1 ? 'y' : 'ies'} resolve (not connected here; rein mcp list does)`,
        )
      : fail(
          'mcp',
          mcpProblems.join('; '),
          'fix the entry under mcp_servers, or set the environment variable it names',
        ),
  );
  return out;
}

/** The schedules at a glance, then each enabled one's job as launchd will run it (launchdChecks.ts). */
async function scheduleChecks(o: DoctorOptions, config: GlobalConfig, platform: NodeJS.Platform): Promise<Check[]> {
  let list;
  try {
    list = await new ScheduleStore(o.home).list();
  } catch (e) {
    return [fail('schedules', errorMessage(e), 'fix schedules.json as the message says')];
  }
  const backend = scheduleBackend(o.env, config, platform);
  const summary = await scheduleCheck(o, list, backend);
  const jobs =
    list.length === 0
      ? []
      : await scheduleJobChecks({
          home: o.home,
          env: o.env,
          config,
          backend,
          schedules: list,
          ...(o.launchd ? { launchd: o.launchd } : {}),
        });
  return [summary, ...jobs];
}

async function scheduleCheck(o: DoctorOptions, list: Schedule[], backend: ScheduleBackendName): Promise<Check> {
  const enabled = list.filter((s) => s.enabled);
  if (list.length === 0) return ok('schedules', `none (backend: ${backend})`);
  if (backend === 'daemon') {
    // The daemon is the daemon backend's launchd: without it no schedule fires.
    if (enabled.length > 0 && !(await runningDaemon(o.home))) {
      return fail(
        'schedules',
        `${enabled.length} of ${list.length} enabled, and no daemon is running to fire them (backend: daemon)`,
        'start the desktop app or `rein daemon` (and keep it running: a login item, a systemd user service)',
      );
    }
    return ok(
      'schedules',
      `${enabled.length} of ${list.length} enabled; they fire while the daemon or the app runs (backend: daemon)`,
    );
  }
  const dir = resolveLaunchAgentsDir(o.env);
  const missing = enabled.filter((s) => !existsSync(launchdPlistPath(dir, s.id))).map((s) => s.id);
  if (missing.length > 0) {
    return fail(
      'schedules',
      `no launchd job for ${missing.join(', ')} in ${dir}`,
      '`rein schedule sync` writes the missing jobs again',
    );
  }
  // A time that passed (more than 10 minutes ago) with no run since: launchd did not start the job.
  const now = new Date();
  const late = enabled.flatMap((s) => {
    const at = missedFireTime(s, now, 10 * 60_000);
    return at ? [`${s.id} (due ${at.toISOString()})`] : [];
  });
  if (late.length > 0) {
    return warn(
      'schedules',
      `missed with no run since: ${late.join(', ')}`,
      'rein schedule logs ID shows the last runs; launchd catches a missed time up at the next wake or login, or run it now: rein schedule run ID',
    );
  }
  return ok('schedules', `${enabled.length} of ${list.length} enabled, each with its launchd job in ${dir}`);
}

async function daemonCheck(home: string): Promise<Check> {
  const d = await runningDaemon(home);
  if (d) return ok('daemon', `running: pid ${d.pid}, http://${d.host}:${d.port}, version ${d.version}`);
  return warn(
    'daemon',
    'not running',
    'start the desktop app or `rein daemon`: heartbeats, file watchers and daemon-backend schedules run only then',
  );
}

function axCheck(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): Check {
  const found = locateHelper({ env, platform });
  if (found.ok)
    return ok(
      'accessibility',
      `helper: ${found.spec.file}${found.spec.args[0] ? ` ${found.spec.args[0]}` : ''} (rein ax permissions checks the grants)`,
    );
  return warn(
    'accessibility',
    `no accessibility helper: ${found.reason}`,
    'the GUI tools (accessibility, screenshot, computer) are unavailable until it is there',
  );
}

function notificationCheck(env: NodeJS.ProcessEnv, platform: NodeJS.Platform, config: GlobalConfig | undefined): Check {
  if (config && !config.daemon.notifications) return ok('notifications', 'turned off (daemon.notifications: false)');
  const n = systemNotifier({ env, platform });
  if (isNotifier(n)) return ok('notifications', `system notifications through ${n.program} where no window shows them`);
  return warn(
    'notifications',
    n.why,
    'runs without the app (a launchd run, rein daemon) cannot tell you how they went',
  );
}

async function indexCheck(home: string): Promise<Check> {
  const text = await readFile(pendingFile(home), 'utf8').catch(() => '');
  const pending = text.split('\n').filter((l) => l.trim()).length;
  if (pending === 0) return ok('search', 'the index is up to date with every saved run');
  return ok(
    'search',
    `${pending} run${pending === 1 ? '' : 's'} wait${pending === 1 ? 's' : ''} to be indexed; the next search or the daemon does it`,
  );
}
