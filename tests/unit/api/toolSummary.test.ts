// A saved tool call shows the line its live card showed: the page's savedCallSummary (core/api) gives
// what tool_call_start.summary gave (summarizeCall on the tool itself), for every tool whose line is
// made from its input, and the input as JSON for any other.
import { describe, expect, it } from 'vitest';
import { CALL_SUMMARIES, savedCallSummary, SUMMARY_CHARS } from '../../../src-main/core/api/index.js';
import type { AXClient } from '../../../src-main/core/ax/axClient.js';
import {
  accessibilityTool,
  applescriptTool,
  computerTool,
  screenshotTool,
  waitForTool,
} from '../../../src-main/core/ax/guiTools.js';
import { builtinTools } from '../../../src-main/core/tools/builtin/index.js';
import { createMemoryAppendTool } from '../../../src-main/core/tools/builtin/memoryAppend.js';
import { createScheduleTools, type ScheduleToolDeps } from '../../../src-main/core/tools/builtin/schedule.js';
import { createSessionSearchTool } from '../../../src-main/core/tools/builtin/sessionSearch.js';
import { createToolSearchTool } from '../../../src-main/core/tools/builtin/toolSearch.js';
import { createUseSkillTool } from '../../../src-main/core/tools/builtin/useSkill.js';
import { summarizeCall, type Tool } from '../../../src-main/core/tools/tool.js';

// Summaries never touch the client or the deps: only calls do.
const client = {} as AXClient;
const tools: Tool[] = [
  ...builtinTools(),
  createMemoryAppendTool('/nonexistent'),
  ...createScheduleTools({} as ScheduleToolDeps),
  createSessionSearchTool(),
  createToolSearchTool({ tools: () => [] } as unknown as Parameters<typeof createToolSearchTool>[0]),
  createUseSkillTool([]),
  accessibilityTool(client),
  waitForTool(client),
  screenshotTool(client),
  computerTool(client),
  applescriptTool(),
] as Tool[];

const SAMPLES: Record<string, unknown[]> = {
  bash: [
    { command: 'touch approved.txt' },
    { command: 'cd x &&\n  make\nls', timeout: 5 },
    { command: `echo ${'y'.repeat(400)}` },
  ],
  directory_list: [{}, { path: 'src' }],
  file_edit: [
    { path: 'a.ts', old_string: 'a', new_string: 'b' },
    { path: 'a.ts', old_string: 'a', new_string: 'b', replace_all: true },
  ],
  file_read: [
    { path: 'notes.md' },
    { path: 'notes.md', offset: 10 },
    { path: 'notes.md', limit: 5 },
    { path: 'n.md', offset: 3, limit: 4 },
  ],
  file_write: [{ path: 'é.txt', content: 'héllo ✓' }],
  glob: [{ pattern: '**/*.ts' }, { pattern: '*.md', path: 'docs' }],
  grep: [{ pattern: 'TODO' }, { pattern: 'a"b', path: 'src', glob: '*.ts' }],
  http: [{ url: 'https://example.com' }, { url: 'https://example.com/x', method: 'POST' }],
  memory_append: [{ content: '  first line\nsecond line' }],
  schedule_create: [
    { cron: '0 9 * * 1-5', prompt: 'check CI' },
    { cron: '0 9 * * *', prompt: 'p', agent: 'ops', catch_up: 'skip' },
  ],
  schedule_list: [{}],
  schedule_show: [{ id: '0123abcd' }],
  schedule_update: [{ id: '0123abcd', enabled: false }],
  schedule_remove: [{ id: '0123abcd' }],
  session_search: [{ query: 'alpha' }, { query: 'x y', source: 'chat' }],
  system_info: [{}],
  think: [{ thought: 'first\n\n  then' }],
  tool_search: [{ query: 'calendar' }],
  use_skill: [{ skill_name: 'review' }],
  accessibility: [
    { action: 'press', ref: 'e3', app: 'Mail' },
    { action: 'set_value', ref: 'e4', value: 'hi' },
    { action: 'type_text', text: 'abc' },
    { action: 'key', keys: 'ctrl+a' },
  ],
  wait_for: [
    { condition: 'exists', role: 'button', name: 'OK' },
    { condition: 'value', ref: 'e1', value: '3' },
  ],
  screenshot: [{}, { app: 'Safari' }],
  computer: [
    { action: 'left_click', coordinate: [10, 20] },
    { action: 'type', text: 'hello' },
  ],
  applescript: [{ script: 'tell application "Finder" to activate' }],
};

describe('a saved tool call shows the live card line', () => {
  it('has a sample for every tool here, so a new tool gets looked at', () => {
    expect(tools.map((t) => t.name).filter((n) => !(n in SAMPLES))).toEqual([]);
  });

  for (const tool of tools) {
    it(`${tool.name}: the same line as tool_call_start.summary`, () => {
      for (const input of SAMPLES[tool.name] ?? []) {
        const parsed = tool.input.parse(input);
        expect(savedCallSummary(tool.name, parsed)).toBe(summarizeCall(tool, parsed));
      }
    });
  }

  it('every tool with its own line is in the table, and the table names only real tools', () => {
    const names = new Set(tools.map((t) => t.name));
    expect(Object.keys(CALL_SUMMARIES).filter((n) => !names.has(n))).toEqual([]);
  });

  it('shows a bash call as the command with a $', () => {
    expect(savedCallSummary('bash', { command: 'touch approved.txt' })).toBe('$ touch approved.txt');
  });

  it('shows an input the line cannot be made from, or an unknown tool, as JSON, cut like a live line', () => {
    expect(savedCallSummary('bash', { cmd: 'ls' })).toBe('{"cmd":"ls"}');
    expect(savedCallSummary('mcp__files__read', { path: 'a' })).toBe('{"path":"a"}');
    expect(savedCallSummary('toString', { a: 1 })).toBe('{"a":1}');
    expect(savedCallSummary('bash', undefined)).toBe('');
    const long = savedCallSummary('mcp__x__y', { text: 'z'.repeat(500) });
    expect(long).toHaveLength(SUMMARY_CHARS);
    expect(long.endsWith('…')).toBe(true);
  });
});
