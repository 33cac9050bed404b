/** `rein run` shows a call refused before it ran (it has no ▸ line), and `--json` carries it as `tool_call_denied`. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cliWorld, events, rein } from '../support/cli.js';
import { text, toolCall, tools, type FakeAnthropic } from '../support/fakeAnthropic.js';

let fake: FakeAnthropic;
let cwd: string;
let env: NodeJS.ProcessEnv;
beforeEach(async () => {
  ({ fake, cwd, env } = await cliWorld());
});
afterEach(async () => {
  await fake.close();
});

describe('a refused tool call in rein run', () => {
  it('is printed on stderr with its layer and why, and is a tool_call_denied event with --json', async () => {
    // source schedule: unattended, so a call that needs approval is refused at once (layer origin).
    fake.enqueue(tools([toolCall('bash', { command: 'touch notes.txt' })]), text('I could not write the notes.'));
    const r = await rein(['run', '--source', 'schedule', 'write the notes'], { env, cwd });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^✗ bash denied \(origin\): nobody is watching this schedule run/m);
    expect(r.stderr).not.toContain('▸ bash');
    expect(existsSync(join(cwd, 'notes.txt'))).toBe(false);

    fake.enqueue(tools([toolCall('bash', { command: 'touch notes.txt' })]), text('I could not write the notes.'));
    const j = await rein(['run', '--json', '--source', 'schedule', 'write the notes'], { env, cwd });
    const denied = events(j.stdout).filter((e) => e.type === 'tool_call_denied');
    expect(denied).toEqual([
      expect.objectContaining({
        tool: 'bash',
        summary: '$ touch notes.txt',
        layer: 'origin',
        reason: expect.stringContaining('nobody is watching'),
        seq: expect.any(Number),
      }),
    ]);
    expect(events(j.stdout).some((e) => e.type === 'tool_call_start')).toBe(false);
  });
});
