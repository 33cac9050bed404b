import os from 'node:os';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemInfoTool } from '../../../src-main/core/tools/builtin/systemInfo.js';
import { thinkTool } from '../../../src-main/core/tools/builtin/think.js';
import { callTool, makeToolContext, type TempToolContext } from './toolTestContext.js';

let t: TempToolContext;
beforeEach(async () => {
  t = await makeToolContext();
});
afterEach(async () => {
  await t.cleanup();
});

describe('think', () => {
  it('acknowledges without side effects and requires a thought', async () => {
    const r = await callTool(thinkTool, { thought: 'first check the tests' }, t.ctx);
    expect(r.ok).toBe(true);
    expect(r.content).toMatch(/noted/i);
    expect(thinkTool.isReadOnly({ thought: 'x' })).toBe(true);
    expect(thinkTool.input.safeParse({}).success).toBe(false);
  });
});

describe('system_info', () => {
  it('describes the OS, CPU, memory, node and the disk of the working folder', async () => {
    const r = await callTool(systemInfoTool, {}, t.ctx);
    expect(r.ok).toBe(true);
    expect(r.content).toContain(`arch: ${os.arch()}`);
    expect(r.content).toContain(`hostname: ${os.hostname()}`);
    expect(r.content).toContain(`cpus: ${os.cpus().length}`);
    expect(r.content).toContain(`node: ${process.version}`);
    expect(r.content).toMatch(/memory: [\d.]+ \w+ total, [\d.]+ \w+ free/);
    expect(r.content).toMatch(
      new RegExp(`disk \\(${t.dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\): [\\d.]+ \\w+ total, [\\d.]+ \\w+ free`),
    );
  });

  it('takes no input', () => {
    expect(systemInfoTool.input.safeParse({ verbose: true }).success).toBe(false);
    expect(systemInfoTool.isReadOnly({})).toBe(true);
  });
});
