/**
 * The permission engine and the runtime judge a call by what its tool declares (tools/traits.ts), never by
 * the tool's name: a tool with bash's traits under another name is judged as bash is, one with a file
 * tool's `paths` as that file tool, one with http's `egress` as http, and one with `approval: 'never'` is
 * never asked about. The engine's rules hold no built-in tool names (a source scan).
 */
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { GlobalConfig } from '../../../src-main/core/config/schema.js';
import { checkToolCall, toolByName } from '../../../src-main/core/permissions/engine.js';
import { commandClassifier } from '../../../src-main/core/permissions/commandRules.js';
import { initShellParser } from '../../../src-main/core/permissions/shell/parser.js';
import type { PermissionPolicy } from '../../../src-main/core/permissions/types.js';
import { createRuntime } from '../../../src-main/core/runtime/runtime.js';
import { BUILTIN_TRAITS } from '../../../src-main/core/tools/builtin/builtinTraits.js';
import { bashTool } from '../../../src-main/core/tools/builtin/bash.js';
import type { Tool, ToolTraits } from '../../../src-main/core/tools/tool.js';
import { scriptedLlm } from '../memory/fakeLlm.js';

const HOME = '/Users/tester';
const CWD = '/Users/tester/project';

const custom = (name: string, traits?: ToolTraits): Tool => ({
  name,
  description: '',
  source: 'local',
  input: z.unknown(),
  isReadOnly: () => false,
  isDestructive: () => false,
  ...(traits ? { traits } : {}),
  call: async () => ({ ok: true, content: '' }),
});

/** What a decision says, without the tool's name at the start of its reason. */
async function judged(tool: Tool, input: unknown) {
  const d = await checkToolCall({ tool, input, home: HOME, cwd: CWD, mode: 'default' });
  return {
    decision: d.decision,
    layer: d.layer,
    risk: d.risk,
    reason: d.reason.replace(new RegExp(`(^|: )${tool.name} `), '$1TOOL '),
  };
}

describe('a tool is judged by its traits, whatever it is called', () => {
  it('a tool that runs shell lines from another field gets the shell analysis bash gets', async () => {
    const runner = custom('run_line', { command: { language: 'shell', field: 'line' } });
    for (const line of ['ls -la', 'rm -rf /', 'cat ~/.ssh/id_rsa', 'echo hi > ~/.zshrc']) {
      expect(await judged(runner, { line }), line).toEqual(await judged(toolByName('bash'), { command: line }));
    }
    // Without the trait the same line is just input to a tool that may change something.
    expect((await judged(custom('run_line'), { line: 'rm -rf /' })).layer).not.toBe('hard_block');
    expect((await judged(runner, { line: 'rm -rf /' })).layer).toBe('hard_block');
  });

  it('a grant on such a tool names that tool, so it never covers bash', async () => {
    const runner = custom('run_line', { command: { language: 'shell', field: 'line' } });
    const d = await checkToolCall({
      tool: runner,
      input: { line: 'touch notes.txt' },
      home: HOME,
      cwd: CWD,
      mode: 'default',
    });
    expect(d.grant).toMatchObject({ tool: 'run_line', command: 'touch notes.txt' });
  });

  it('a tool whose input names a path is judged by the file rules of the access it declares', async () => {
    const saver = custom('save_note', { paths: { fields: ['target'], access: 'write', textFields: ['body'] } });
    const reader = custom('peek', { paths: { fields: ['target'], access: 'read' } });
    const cases: [Tool, string, unknown][] = [
      [saver, 'file_write', { path: '~/.zshrc', content: 'echo hi' }],
      [saver, 'file_write', { path: 'notes/today.md', content: 'hello' }],
      [saver, 'file_write', { path: '/Users/tester/.rein/config.yaml', content: 'mode: bypassPermissions' }],
      [reader, 'file_read', { path: '~/.ssh/id_rsa' }],
      [reader, 'file_read', { path: '/Users/tester/.rein/secrets/anthropic.json' }],
      [reader, 'file_read', { path: 'README.md' }],
    ];
    for (const [tool, builtin, input] of cases) {
      const { path: target, content } = input as { path: string; content?: string };
      const own = tool === saver ? { target, body: content } : { target };
      expect(await judged(tool, own), `${tool.name} ${target}`).toEqual(await judged(toolByName(builtin), input));
    }
    expect((await judged(reader, { target: '/Users/tester/.rein/secrets/anthropic.json' })).layer).toBe('hard_block');
  });

  it('a tool that sends a request to a URL field gets the egress rules http gets', async () => {
    const fetcher = custom('fetch_page', { egress: { urlField: 'address', methodField: 'verb' } });
    for (const [url, method] of [
      ['http://127.0.0.1:7533/v1/runs', 'POST'],
      ['https://example.com/', 'GET'],
      ['file:///etc/passwd', 'GET'],
    ] as const) {
      expect(await judged(fetcher, { address: url, verb: method }), url).toEqual(
        await judged(toolByName('http'), { url, method }),
      );
    }
    expect((await judged(fetcher, { address: 'http://127.0.0.1:7533/v1/runs', verb: 'POST' })).layer).toBe(
      'hard_block',
    );
  });

  it("built-in stand-ins carry the real tools' traits", () => {
    expect(toolByName('bash').traits).toEqual(bashTool.traits);
    for (const [name, traits] of BUILTIN_TRAITS) expect(toolByName(name).traits, name).toEqual(traits);
  });
});

describe("a tool that declares approval: 'never' is not asked about", () => {
  const asks: PermissionPolicy = {
    check: () => ({
      decision: 'ask',
      layer: 'tool',
      reason: 'it writes',
      risk: 'medium',
      riskExplanation: 'changes a file',
    }),
  };
  it('whatever it is called, while one without the trait is asked', async () => {
    const root = await mkdtemp(join(tmpdir(), 'rein-traits-'));
    const home = join(root, 'home');
    await mkdir(join(home, 'agents', 'ops'), { recursive: true });
    await writeFile(join(home, 'agents', 'ops', 'AGENT.md'), 'You run ops.\n');
    const rt = await createRuntime({
      home,
      cwd: root,
      env: {},
      config: GlobalConfig.parse({}),
      agent: 'ops',
      source: 'cli',
      origin: 'attended',
      llm: scriptedLlm(),
      policy: asks,
    });
    const check = (tool: Tool) =>
      rt.policy.check({
        tool,
        input: {},
        cwd: root,
        mode: 'default',
        source: rt.source,
        origin: rt.origin,
        agent: rt.agent,
      });
    expect((await check(custom('note_to_self', { approval: 'never' }))).decision).toBe('allow');
    expect((await check(custom('note_to_self'))).decision).toBe('ask');
  });
});

describe('the bash tool takes its command classifier from the call context', () => {
  it("judges the line in the context's folder with the context's classifier", async () => {
    await initShellParser();
    const ctx = { cwd: CWD, classifyCommand: commandClassifier(HOME) };
    expect(bashTool.isReadOnly({ command: 'ls -la' }, ctx)).toBe(true);
    expect(bashTool.isConcurrencySafe!({ command: 'tail -f app.log' }, ctx)).toBe(false);
    const never = { cwd: CWD, classifyCommand: () => ({ readOnly: false, concurrencySafe: false, destructive: true }) };
    expect(bashTool.isReadOnly({ command: 'ls -la' }, never)).toBe(false);
    expect(bashTool.isDestructive({ command: 'ls -la' }, never)).toBe(true);
    const seen: string[] = [];
    bashTool.isReadOnly(
      { command: 'ls' },
      { cwd: '/somewhere/else', classifyCommand: (_c, cwd) => (seen.push(cwd), undefined) },
    );
    expect(seen).toEqual(['/somewhere/else']);
  });
});

describe('the rules name no built-in tool', () => {
  const BUILTIN_NAMES = [
    'bash',
    'http',
    'file_read',
    'file_write',
    'file_edit',
    'glob',
    'grep',
    'directory_list',
    'memory_append',
    'think',
    'screenshot',
    'applescript',
    'accessibility',
    'computer',
    'wait_for',
    'schedule_create',
  ];
  /** The source without comments (block, line and JSDoc), so only code is scanned. */
  const code = (src: string) => src.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
  it.each([
    'src-main/core/permissions/engine.ts',
    'src-main/core/permissions/fileRules.ts',
    'src-main/core/mcpServer/toolList.ts',
  ])('%s', async (file) => {
    const text = code(await readFile(file, 'utf8'));
    const hits = BUILTIN_NAMES.filter((n) => new RegExp(`['"\`]${n}['"\`]`).test(text));
    expect(hits).toEqual([]);
  });
});
