// Lint: the recommended JavaScript and TypeScript rules (syntax only, no type information, so it stays
// fast), plus the layering of architecture.md as errors: only the desktop shell touches Electron, and
// lower layers never import higher ones.
import { dirname, relative, resolve, sep } from 'node:path';
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

const root = import.meta.dirname;

/** Who may not import what. Paths are relative to the project root; `except` carves holes in `from`. */
const layers = [
  {
    target: 'src-main/core',
    from: ['src-main/electron', 'src-main/cli', 'src-main/index.ts'],
    why: 'core/ is the bottom layer; the shell and the CLI build on it, never the reverse',
  },
  {
    target: 'src-main',
    from: ['src-preload', 'src-renderer'],
    why: 'the preload and the page build on src-main, never the reverse; code both sides share lives in src-main/core/api',
  },
  {
    target: 'src-renderer',
    from: ['src-main', 'src-preload'],
    except: ['src-main/core/api'],
    why: 'the page talks to Rein through the ReinApi contract (src-main/core/api) only',
  },
  {
    target: 'src-preload',
    from: ['src-main', 'src-renderer'],
    except: ['src-main/core/api'],
    why: 'the preload only bridges the ReinApi contract (src-main/core/api)',
  },
];

const inside = (path, dir) => path === dir || path.startsWith(dir + '/');
const posix = (path) => path.split(sep).join('/');

/** Resolves each relative import against the importing file, so `../shell` means the same folder wherever it is written. */
const layeringRule = {
  meta: {
    type: 'problem',
    docs: { description: 'keep imports pointing down the layers of architecture.md' },
    messages: { upward: '{{file}} may not import {{target}}: {{why}}.' },
    schema: [],
  },
  create(context) {
    const file = posix(relative(root, context.filename));
    const zones = layers.filter((zone) => inside(file, zone.target));
    if (zones.length === 0) return {};
    const check = (node) => {
      const source = node.source;
      if (!source || source.type !== 'Literal' || typeof source.value !== 'string' || !source.value.startsWith('.'))
        return;
      const target = posix(relative(root, resolve(dirname(context.filename), source.value)));
      for (const zone of zones) {
        if (!zone.from.some((f) => inside(target, f)) || zone.except?.some((e) => inside(target, e))) continue;
        context.report({ node: source, messageId: 'upward', data: { file, target, why: zone.why } });
      }
    };
    return {
      ImportDeclaration: check,
      ExportNamedDeclaration: check,
      ExportAllDeclaration: check,
      ImportExpression: check,
    };
  },
};

/**
 * Inside core, which area may import which (areas are the folders of src-main/core; `errors` is the
 * file errors.ts). An import between areas not listed here is an error, and so is a file in an area the
 * table does not know: a new area gets its line here, where its place in the layers is decided.
 * Lower areas first; an area lists only areas above it in this table.
 */
const coreAreas = {
  api: [],
  base: [],
  errors: [],
  util: ['errors', 'base'],
  process: ['base', 'errors', 'util'],
  // Rein's own credentials: the stored model API key (Keychain, Secret Service, REIN_HOME/secrets), read by every run and
  // written by `rein auth` and the app, and the one list of Rein's secret files the guards refuse (secrets/reinSecrets.ts).
  secrets: ['api', 'errors', 'process', 'util'],
  config: ['api', 'errors', 'util'],
  llm: ['api', 'base', 'errors', 'util'],
  audit: ['errors', 'util'],
  sessions: ['api', 'errors', 'util'],
  search: ['api', 'base', 'config', 'errors', 'sessions', 'util'],
  skills: ['api', 'config', 'errors', 'util'],
  instructions: ['api', 'config', 'errors', 'util'],
  commands: ['api', 'config', 'errors', 'skills', 'util'],
  hooks: ['api', 'config', 'errors', 'process', 'util'],
  memory: ['api', 'config', 'errors', 'llm', 'util'],
  agents: ['api', 'config', 'errors', 'util'],
  // Schedules' store, cron and launchd jobs: low, so the schedule tools and the service can both use them.
  schedule: ['agents', 'api', 'base', 'config', 'errors', 'process', 'util'],
  tools: [
    'api',
    'base',
    'config',
    'errors',
    'memory',
    'process',
    'schedule',
    'search',
    'secrets',
    'sessions',
    'skills',
    'util',
  ],
  context: ['api', 'config', 'errors', 'llm', 'memory', 'sessions', 'skills', 'tools', 'util'],
  permissions: ['api', 'base', 'config', 'errors', 'secrets', 'tools', 'util'],
  harness: [
    'api',
    'audit',
    'base',
    'config',
    'context',
    'errors',
    'hooks',
    'llm',
    'permissions',
    'sessions',
    'tools',
    'util',
  ],
  // Tool providers of ring 4 and the accessibility bridge: below the runtime, which assembles them.
  mcpClient: ['api', 'base', 'config', 'errors', 'permissions', 'process', 'tools', 'util'],
  cloud: ['api', 'base', 'config', 'errors', 'llm', 'secrets', 'tools', 'util'],
  ax: ['api', 'base', 'errors', 'permissions', 'process', 'tools', 'util'],
  runtime: [
    'agents',
    'api',
    'audit',
    'ax',
    'base',
    'cloud',
    'config',
    'context',
    'errors',
    'harness',
    'hooks',
    'instructions',
    'llm',
    'mcpClient',
    'memory',
    'permissions',
    'secrets',
    'sessions',
    'skills',
    'tools',
    'util',
  ],
  // mcpClient: the app's MCP server list, connect and sign-in (service/mcpServers.ts).
  service: [
    'agents',
    'api',
    'audit',
    'base',
    'commands',
    'config',
    'errors',
    'harness',
    'llm',
    'mcpClient',
    'permissions',
    'runtime',
    'schedule',
    'search',
    'secrets',
    'sessions',
    'skills',
    'triggers',
    'util',
  ],
  // Runs nobody starts by hand (ring 3): schedules, heartbeats and watchers. They run on a host that has the
  // service's submit and bus (triggers/host.ts: types only from service, coreTypeAreas); the service starts
  // schedule runs and its cron clock from here, the daemon the heartbeats and watchers.
  triggers: ['agents', 'api', 'base', 'config', 'errors', 'runtime', 'schedule', 'sessions', 'util'],
  // The faces: each adapts the service, none knows another.
  // System notifications of a Rein without a window (osascript / notify-send), in the desktop app's words.
  notify: ['api', 'base', 'desktop', 'errors', 'service', 'tools', 'util'],
  // process: the daemon reads the login shell's PATH at start when launchd gave it the minimal one (process/loginPath.ts).
  daemon: [
    'agents',
    'api',
    'base',
    'config',
    'errors',
    'notify',
    'process',
    'runtime',
    'schedule',
    'secrets',
    'service',
    'triggers',
    'util',
  ],
  // `rein doctor`: reads what every other area keeps, changes nothing.
  doctor: [
    'agents',
    'api',
    'ax',
    'config',
    'daemon',
    'errors',
    'mcpClient',
    'notify',
    'runtime',
    'schedule',
    'search',
    'secrets',
    'service',
    'util',
  ],
  // mcpClient: MCP sign-ins in the key store (desktop/mcpTokenStore.ts).
  desktop: ['api', 'base', 'config', 'errors', 'mcpClient', 'permissions', 'secrets', 'service', 'util'],
  // `rein mcp serve` (a face for MCP clients) and the `mcp_servers` editor; it reuses the daemon's Host/Origin/token checks.
  // audit, commands, search, sessions, skills: its read-only resources and prompts (sessions, memory, commands, skills).
  // service: its tool calls (service/toolCalls.ts: the ToolCallService it is handed); the runtime only as types.
  mcpServer: [
    'agents',
    'api',
    'audit',
    'base',
    'commands',
    'config',
    'daemon',
    'errors',
    'permissions',
    'search',
    'secrets',
    'service',
    'sessions',
    'skills',
    'tools',
    'util',
  ],
};

/**
 * Areas whose imports of *types only* may reach further: the triggers describe the service they run on
 * (its submit, its bus) while the service starts the schedule runs that live with the other triggers.
 */
const coreTypeAreas = {
  triggers: ['service'],
  // `rein mcp serve` is handed a ToolCallService; it names the runtime it gets back, never builds one.
  mcpServer: ['runtime'],
};
const isTypeOnly = (node) =>
  node.importKind === 'type' ||
  node.exportKind === 'type' ||
  (node.type === 'ImportDeclaration' &&
    node.specifiers.length > 0 &&
    node.specifiers.every((s) => s.importKind === 'type')) ||
  (node.type === 'ExportNamedDeclaration' &&
    node.specifiers.length > 0 &&
    node.specifiers.every((s) => s.exportKind === 'type'));

const coreRoot = 'src-main/core';
const areaOf = (path) => {
  const rest = path.slice(coreRoot.length + 1);
  const first = rest.split('/')[0];
  return first.endsWith('.ts') ? first.slice(0, -3) : first;
};

const coreAreasRule = {
  meta: {
    type: 'problem',
    docs: { description: 'keep the import rules between areas of src-main/core (eslint.config.js coreAreas)' },
    messages: {
      forbidden: '{{from}}/ may not import {{to}}/ ({{target}}): {{from}} may use {{allowed}}.',
      unknown: '{{area}} is not an area in coreAreas (eslint.config.js): decide its place in the layers there.',
    },
    schema: [],
  },
  create(context) {
    const file = posix(relative(root, context.filename));
    if (!inside(file, coreRoot)) return {};
    const from = areaOf(file);
    if (!(from in coreAreas)) {
      return { Program: (node) => context.report({ node, messageId: 'unknown', data: { area: from } }) };
    }
    const check = (node) => {
      const source = node.source;
      if (!source || source.type !== 'Literal' || typeof source.value !== 'string' || !source.value.startsWith('.'))
        return;
      const target = posix(relative(root, resolve(dirname(context.filename), source.value)));
      if (!inside(target, coreRoot)) return;
      const to = areaOf(target).replace(/\.js$/, '');
      if (to === from || coreAreas[from].includes(to)) return;
      if (isTypeOnly(node) && (coreTypeAreas[from] ?? []).includes(to)) return;
      context.report({
        node: source,
        messageId: 'forbidden',
        data: { from, to, target, allowed: coreAreas[from].join(', ') || 'nothing else in core' },
      });
    };
    return {
      ImportDeclaration: check,
      ExportNamedDeclaration: check,
      ExportAllDeclaration: check,
      ImportExpression: check,
    };
  },
};

/**
 * Every face is a peer of the service (docs/architecture.md, *One service behind every face*): `rein run`,
 * `rein mcp serve`, the daemon and the desktop shell call the service (core/service), never the runtime
 * or the agent loop themselves. Types from there are fine: they describe what the service hands back.
 */
const faces = ['src-main/cli/commands/run.ts', 'src-main/core/mcpServer', 'src-main/core/daemon', 'src-main/electron'];
const serviceInternals = ['src-main/core/runtime/runtime', 'src-main/core/harness'];
const facesUseTheServiceRule = {
  meta: {
    type: 'problem',
    docs: { description: 'faces call the service, never the runtime or the harness (types only from there)' },
    messages: {
      internal:
        '{{file}} is a face of the service and may not import values from {{target}}: call a ReinService (core/service) method, or import only types.',
    },
    schema: [],
  },
  create(context) {
    const file = posix(relative(root, context.filename));
    if (!faces.some((f) => inside(file, f))) return {};
    const check = (node) => {
      const source = node.source;
      if (
        !source ||
        source.type !== 'Literal' ||
        typeof source.value !== 'string' ||
        !source.value.startsWith('.') ||
        isTypeOnly(node)
      )
        return;
      const target = posix(relative(root, resolve(dirname(context.filename), source.value))).replace(/\.(js|ts)$/, '');
      if (!serviceInternals.some((t) => inside(target, t))) return;
      context.report({ node: source, messageId: 'internal', data: { file, target } });
    };
    return {
      ImportDeclaration: check,
      ExportNamedDeclaration: check,
      ExportAllDeclaration: check,
      ImportExpression: check,
    };
  },
};

const electronOnlyInShell =
  'only src-main/index.ts, src-main/electron/ and src-preload/ may use Electron; core/ runs in plain Node (and requiring the electron package downloads its binary)';
const electronSyntax = [
  { selector: "CallExpression[callee.name='require'][arguments.0.value='electron']", message: electronOnlyInShell },
  { selector: "ImportExpression[source.value='electron']", message: electronOnlyInShell },
];

/**
 * One teardown word in src-main: whatever must be torn down has `dispose()` (core/base/lifecycle.ts), never a
 * close/stop/shutdown/destroy/teardown of its own. Caught where such a method is declared: in a class, an
 * interface or an object literal. What must satisfy an interface we do not own (the MCP SDK's Transport),
 * or pauses and can start again, keeps its name under an `eslint-disable-next-line no-restricted-syntax -- <why>`.
 */
const teardownNames = '/^(close|stop|shutdown|destroy|teardown)$/';
const useDispose =
  'our teardown word is dispose() (Disposable / AsyncDisposable in src-main/core/base/lifecycle.ts); what only pauses and can start again, or must satisfy an interface we do not own, keeps its name under an eslint-disable-next-line comment saying why';
const functionValue = '[value.type=/^(FunctionExpression|ArrowFunctionExpression)$/]';
const teardownSyntax = [
  `MethodDefinition[key.type='Identifier'][key.name=${teardownNames}]`,
  `PropertyDefinition[key.type='Identifier'][key.name=${teardownNames}]${functionValue}`,
  `TSMethodSignature[key.name=${teardownNames}]`,
  `TSPropertySignature[key.name=${teardownNames}][typeAnnotation.typeAnnotation.type='TSFunctionType']`,
  `Property[key.name=${teardownNames}]${functionValue}`,
].map((selector) => ({ selector, message: useDispose }));

export default defineConfig(
  { ignores: ['out/', 'dist/', 'node_modules/', 'test-results/', 'coverage/'] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      // The Node globals our scripts use (the `globals` package is not a direct dependency).
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        fetch: 'readonly',
      },
    },
  },
  {
    plugins: {
      rein: {
        rules: { layering: layeringRule, 'core-areas': coreAreasRule, 'faces-use-the-service': facesUseTheServiceRule },
      },
    },
    rules: {
      'rein/layering': 'error',
      'rein/core-areas': 'error',
      'rein/faces-use-the-service': 'error',
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'electron', message: electronOnlyInShell }],
          patterns: [{ group: ['electron/*'], message: electronOnlyInShell }],
        },
      ],
      'no-restricted-syntax': ['error', ...electronSyntax],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' },
      ],
    },
  },
  {
    // Entries naming the same rule replace each other per file: src-main gets both lists.
    files: ['src-main/**'],
    rules: { 'no-restricted-syntax': ['error', ...electronSyntax, ...teardownSyntax] },
  },
  {
    // The desktop shell, the preload, and the tests that stand in for Electron.
    files: [
      'src-main/index.ts',
      'src-main/electron/**',
      'src-preload/**',
      'tests/support/electronMock.ts',
      'tests/unit/electron/**',
    ],
    rules: { 'no-restricted-imports': 'off', 'no-restricted-syntax': 'off' },
  },
  {
    // The shell may use Electron, but keeps the one teardown word.
    files: ['src-main/index.ts', 'src-main/electron/**'],
    rules: { 'no-restricted-syntax': ['error', ...teardownSyntax] },
  },
  {
    // Tests and benchmarks poke at wire payloads of many shapes; `any` there is a convenience, not a leak.
    files: ['tests/**', 'bench/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
