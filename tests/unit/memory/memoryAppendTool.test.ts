import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryAppendTool, NO_APPROVAL_TOOLS } from '../../../src-main/core/tools/builtin/memoryAppend.js';
import { fileWriteTool } from '../../../src-main/core/tools/builtin/fileWrite.js';
import { fileEditTool } from '../../../src-main/core/tools/builtin/fileEdit.js';
import { fileReadTool } from '../../../src-main/core/tools/builtin/fileRead.js';
import {
  boundedAppend,
  memoryDir,
  MEMORY_LINE_BOUND,
  protectedMemoryPaths,
} from '../../../src-main/core/memory/index.js';
import { callTool, makeToolContext, type TempToolContext } from '../tools/toolTestContext.js';
import { numberedLines } from './tempMemory.js';

let t: TempToolContext;
let dir: string;
beforeEach(async () => {
  t = await makeToolContext();
  dir = memoryDir(t.ctx.reinHome, 'default');
});
afterEach(() => t.cleanup());

describe('memoryDir', () => {
  it('puts the default agent under memory/ and a named agent beside its AGENT.md', () => {
    expect(memoryDir('/h', 'default')).toBe('/h/memory');
    expect(memoryDir('/h')).toBe('/h/memory');
    expect(memoryDir('/h', 'ops')).toBe('/h/agents/ops');
  });
});

describe('memory_append', () => {
  it('appends to the agent memory and says where', async () => {
    const tool = createMemoryAppendTool(dir);
    const r = await callTool(tool, { content: '- prefers pnpm over npm' }, t.ctx);
    expect(r).toEqual({ ok: true, content: `appended to ${join(dir, 'MEMORY.md')}` });
    expect(await readFile(join(dir, 'MEMORY.md'), 'utf8')).toBe('- prefers pnpm over npm\n');
  });

  it('reports the overflow file when MEMORY.md is full', async () => {
    await boundedAppend(dir, numberedLines(MEMORY_LINE_BOUND));
    const r = await callTool(createMemoryAppendTool(dir), { content: '- one more' }, t.ctx);
    expect(r.ok).toBe(true);
    expect(r.content).toMatch(
      /is full, so this was saved to .*auto-\d{4}-\d{2}-\d{2}-[0-9a-f]{6}\.md and linked from MEMORY\.md$/,
    );
  });

  it('rejects empty content, unknown fields and a missing content field, naming the field', () => {
    const tool = createMemoryAppendTool(dir);
    const empty = tool.input.safeParse({ content: ' \n ' });
    expect(empty.success).toBe(false);
    expect(empty.error?.issues[0]).toMatchObject({ path: ['content'], message: 'content is empty' });
    expect(tool.input.safeParse({}).error?.issues[0]?.path).toEqual(['content']);
    expect(tool.input.safeParse({ content: 'x', append: true }).success).toBe(false);
    expect(tool.input.safeParse({ content: 'x'.repeat(10_001) }).success).toBe(false);
  });

  it('has a JSON schema the API accepts: an object with a required string content', () => {
    const schema = z.toJSONSchema(createMemoryAppendTool(dir).input) as {
      type: string;
      required: string[];
      properties: Record<string, { type: string }>;
    };
    expect(schema.type).toBe('object');
    expect(schema.required).toEqual(['content']);
    expect(schema.properties.content?.type).toBe('string');
  });

  it('is neither read-only nor destructive, and needs no approval', () => {
    const tool = createMemoryAppendTool(dir);
    expect(tool.isReadOnly({ content: 'x' })).toBe(false);
    expect(tool.isDestructive({ content: 'x' })).toBe(false);
    expect(NO_APPROVAL_TOOLS.has(tool.name)).toBe(true);
  });

  it('returns an error result, never a throw, when the memory folder cannot be written', async () => {
    const blocked = join(t.dir, 'not-a-folder');
    await writeFile(blocked, 'a file where the folder should be');
    const r = await callTool(createMemoryAppendTool(blocked), { content: '- x' }, t.ctx);
    expect(r.ok).toBe(false);
    expect(r.errorKind).toBe('transient');
    expect(r.content).toContain(join(blocked, 'MEMORY.md'));
  });
});

describe('protectedMemoryPaths', () => {
  it('makes file_write and file_edit refuse MEMORY.md and point to memory_append', async () => {
    await boundedAppend(dir, '- keep me');
    const ctx = { ...t.ctx, protectedPaths: protectedMemoryPaths(dir) };
    const file = join(dir, 'MEMORY.md');
    await callTool(fileReadTool, { path: file }, ctx);
    const w = await callTool(fileWriteTool, { path: file, content: 'wiped' }, ctx);
    expect(w.errorKind).toBe('permission');
    expect(w.content).toContain('use memory_append to change memory');
    const e = await callTool(fileEditTool, { path: file, old_string: 'keep', new_string: 'lose' }, ctx);
    expect(e.errorKind).toBe('permission');
    expect(await readFile(file, 'utf8')).toBe('- keep me\n');
  });

  it('also protects MEMORY.md when the memory folder is reached through a symlink', async () => {
    await mkdir(dir, { recursive: true });
    const link = join(t.dir, 'home-link');
    await symlink(t.ctx.reinHome, link);
    const viaLink = memoryDir(link, 'default');
    const paths = protectedMemoryPaths(viaLink);
    expect(paths.get(join(viaLink, 'MEMORY.md'))).toBe('use memory_append to change memory');
    expect(paths.get(join(dir, 'MEMORY.md'))).toBe('use memory_append to change memory');
    const ctx = { ...t.ctx, protectedPaths: paths };
    const w = await callTool(fileWriteTool, { path: join(dir, 'MEMORY.md'), content: 'new' }, ctx);
    expect(w.errorKind).toBe('permission');
  });
});
