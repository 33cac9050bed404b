/** Named agents end to end: switching swaps persona, model, tools, skills and memory; agents stay isolated. */
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { text, toolCall, tools, type FakeAnthropic } from '../support/fakeAnthropic.js';
import { cliWorld, rein } from '../support/cli.js';

let fake: FakeAnthropic;
let home: string;
let cwd: string;
let env: NodeJS.ProcessEnv;

async function agent(name: string, files: Record<string, string>) {
  const dir = join(home, 'agents', name);
  for (const [rel, body] of Object.entries(files)) {
    await mkdir(join(dir, rel, '..'), { recursive: true });
    await writeFile(join(dir, rel), body);
  }
}

beforeEach(async () => {
  ({ fake, home, cwd, env } = await cliWorld());
  await agent('reviewer', {
    'AGENT.md': 'You are a meticulous code reviewer called Rev.\n',
    'config.yaml': 'model: claude-opus-5\ntools:\n  denied: [bash, http]\n',
    'MEMORY.md': '- reviewer prefers small diffs\n',
    'commands/review.md': 'Review the file $ARGUMENTS and list problems.\n',
    'skills/lint-style/SKILL.md':
      '---\nname: lint-style\ndescription: House lint rules for reviews\n---\nRun scripts/check.sh first.\n',
    'skills/lint-style/scripts/check.sh': 'echo ok\n',
  });
  await agent('research', {
    'AGENT.md': 'You are a research assistant called Quill.\n',
    'MEMORY.md': '- research keeps sources in notes.md\n',
  });
});
afterEach(async () => {
  await fake.close();
});

const sent = (i: number) => fake.requests[i]!.body;

describe('rein run --agent', () => {
  it("uses the agent's persona, model, tools, skills and memory — and none of another agent's", async () => {
    fake.enqueue(text('reviewed'));
    const r = await rein(['run', '--agent', 'reviewer', 'look at main.ts'], { env, cwd });
    expect(r.code).toBe(0);
    const body = sent(0);
    const system = JSON.stringify(body.system);
    expect(body.model).toBe('claude-opus-5');
    expect(system).toContain('meticulous code reviewer called Rev');
    // Memory rides in the turn's volatile block (it changes between turns; the system prompt must not).
    expect(JSON.stringify(body.messages)).toContain('reviewer prefers small diffs');
    expect(system).toContain('lint-style');
    expect(system).not.toContain('Quill');
    expect(JSON.stringify(body)).not.toContain('research keeps sources');
    const names = body.tools!.map((t) => t.name);
    expect(names).not.toContain('bash');
    expect(names).not.toContain('http');
    expect(names).toContain('use_skill');
    expect(names).toContain('memory_append');
    expect(readdirSync(join(home, 'agents', 'reviewer', 'sessions')).filter((f) => f.endsWith('.json'))).toHaveLength(
      1,
    );
    expect(existsSync(join(home, 'sessions'))).toBe(false);
  });

  it('memory_append writes to the running agent only, without asking', async () => {
    fake.enqueue(tools([toolCall('memory_append', { content: '- the user likes tea' })]), text('noted'));
    const r = await rein(['run', '--agent', 'research', 'remember I like tea'], { env, cwd });
    expect(r.code).toBe(0);
    const { readFileSync } = await import('node:fs');
    expect(readFileSync(join(home, 'agents', 'research', 'MEMORY.md'), 'utf8')).toContain('the user likes tea');
    expect(readFileSync(join(home, 'agents', 'reviewer', 'MEMORY.md'), 'utf8')).not.toContain('tea');
  });

  it("file_write refuses the agent's MEMORY.md and points to memory_append", async () => {
    const memory = join(home, 'agents', 'research', 'MEMORY.md');
    fake.enqueue(tools([toolCall('file_write', { path: memory, content: 'wiped' })]), text('ok'));
    await rein(['run', '--yes', '--agent', 'research', 'rewrite memory'], { env, cwd });
    expect(JSON.stringify(sent(1).messages.at(-1))).toContain('memory_append');
    const { readFileSync } = await import('node:fs');
    expect(readFileSync(memory, 'utf8')).toContain('research keeps sources');
  });

  it("expands a slash command from the agent's commands/", async () => {
    fake.enqueue(text('found 2 problems'));
    const r = await rein(['run', '--agent', 'reviewer', '/review src/app.ts'], { env, cwd });
    expect(r.code).toBe(0);
    expect(JSON.stringify(sent(0).messages)).toContain('Review the file src/app.ts and list problems.');
  });

  it('use_skill returns the skill body with paths made absolute', async () => {
    fake.enqueue(tools([toolCall('use_skill', { skill_name: 'lint-style' })]), text('ok'));
    await rein(['run', '--agent', 'reviewer', 'check style'], { env, cwd });
    const result = JSON.stringify(sent(1).messages.at(-1));
    expect(result).toContain(join(home, 'agents', 'reviewer', 'skills', 'lint-style', 'scripts', 'check.sh'));
  });

  it('an unknown agent is a clear error', async () => {
    const r = await rein(['run', '--agent', 'ghost', 'hi'], { env, cwd });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/ghost/);
    expect(fake.requests).toHaveLength(0);
  });
});

describe('rein agents', () => {
  it('lists, validates and shows agents', async () => {
    await agent('broken', { 'AGENT.md': 'x\n', 'config.yaml': 'max_iterations: lots\nflavour: mint\n' });
    const list = await rein(['agents', 'list'], { env, cwd });
    expect(list.stdout).toMatch(/reviewer[\s\S]*research|research[\s\S]*reviewer/);
    const bad = await rein(['agents', 'validate', 'broken'], { env, cwd });
    expect(bad.code).toBe(1);
    expect(bad.stdout + bad.stderr).toMatch(/config\.yaml:1:\d+: max_iterations/);
    expect(bad.stdout + bad.stderr).toMatch(/flavour/);
    const ok = await rein(['agents', 'validate', 'reviewer'], { env, cwd });
    expect(ok.code).toBe(0);
  });
});
