/**
 * cloud_delegate through the built `rein` CLI: the config file turns it on, the key comes from the
 * environment, progress goes to stderr as dim lines, and the deliverable alone is the answer on stdout.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toolCall, tools, text, type FakeAnthropic } from '../support/fakeAnthropic.js';
import { cliWorld, events, rein } from '../support/cli.js';
import { startFakeGateway, type FakeGateway } from '../support/fakeGateway.js';

let fake: FakeAnthropic;
let gw: FakeGateway;
let home: string;
let cwd: string;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  ({ fake, home, cwd, env } = await cliWorld());
  gw = await startFakeGateway({ apiKey: 'cli-cloud-key' });
  env = { ...env, REIN_CLOUD_API_KEY: 'cli-cloud-key' };
  await mkdir(home, { recursive: true });
  await writeFile(join(home, 'config.yaml'), `cloud:\n  enabled: true\n  base_url: ${gw.url}\n`);
});
afterEach(async () => {
  await fake.close();
  await gw.close();
});

const REPORT = '# Report\n\nEverything the cloud found.';

describe('rein run with cloud delegation', () => {
  it('prints the cloud’s progress on stderr and its deliverable as the answer, with one model request', async () => {
    fake.enqueue(tools([toolCall('cloud_delegate', { task: 'research it', workflow_type: 'research' })]));
    gw.enqueue({
      events: [
        { data: { type: 'RESEARCH_PLAN_READY', message: 'the plan' } },
        { data: { type: 'AGENT_STARTED', agent_id: 'scout', message: 'off we go' }, afterReview: true },
        { data: { type: 'WORKFLOW_COMPLETED', message: 'short' } },
      ],
      result: REPORT,
    });
    const r = await rein(['run', '--yes', 'research it'], { env, cwd });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${REPORT}\n`);
    expect(r.stderr).toContain('  … cloud_delegate: research plan ready; approving it');
    expect(r.stderr).toContain('  … cloud_delegate: [scout] started: off we go');
    expect(fake.requests).toHaveLength(1);
    expect(gw.requestsTo('/api/v1/tasks/stream')[0]!.headers['x-api-key']).toBe('cli-cloud-key');
  });

  it('works behind a path prefix, and the footer’s cost includes what the cloud reported, named apart', async () => {
    const prefixed = await startFakeGateway({ apiKey: 'cli-cloud-key', prefix: '/shannon' });
    try {
      await writeFile(join(home, 'config.yaml'), `cloud:\n  enabled: true\n  base_url: ${prefixed.url}\n`);
      fake.enqueue(tools([toolCall('cloud_delegate', { task: 'research it' })]));
      prefixed.enqueue({
        events: [
          {
            data: {
              type: 'thread.message.completed',
              agent_id: 'final_output',
              response: 'short',
              metadata: { input_tokens: 10, output_tokens: 5, cost_usd: 0.25 },
            },
          },
          { data: { type: 'WORKFLOW_COMPLETED' } },
        ],
        result: REPORT,
      });
      const r = await rein(['run', '--yes', 'research it'], { env, cwd });
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(`${REPORT}\n`);
      expect(prefixed.requests.map((q) => q.rawPath)).toEqual([
        '/shannon/api/v1/tasks/stream',
        '/shannon/api/v1/stream/sse',
        '/shannon/api/v1/tasks/task-1',
      ]);
      const footer = /session \S+ · 1 request\(s\) · \$(\d+\.\d{4}) \(cloud \$0\.2500\)/.exec(r.stderr);
      expect(footer, r.stderr).not.toBeNull();
      expect(Number(footer![1])).toBeGreaterThanOrEqual(0.25);
    } finally {
      await prefixed.close();
    }
  });

  it('--json carries tool_progress events; without --yes and without a terminal the delegation is denied and nothing is sent', async () => {
    fake.enqueue(tools([toolCall('cloud_delegate', { task: 'x' })]), text('Could not delegate.'));
    const r = await rein(['run', '--json', 'delegate'], { env, cwd });
    expect(r.code).toBe(0);
    const evs = events(r.stdout);
    expect(evs.some((e) => e.type === 'tool_progress')).toBe(false);
    expect(gw.requests).toHaveLength(0);
    expect(evs.at(-1)).toMatchObject({ type: 'session_end', text: 'Could not delegate.' });

    fake.enqueue(tools([toolCall('cloud_delegate', { task: 'y' }, 'toolu_json')]));
    const ok = await rein(['run', '--json', '--yes', 'delegate'], { env, cwd });
    const progress = events(ok.stdout).filter((e) => e.type === 'tool_progress');
    expect(progress.length).toBeGreaterThan(0);
    expect(progress[0]).toMatchObject({
      call_id: 'toolu_json',
      tool: 'cloud_delegate',
      data: { source: 'cloud', kind: 'workflow', status: 'submitting' },
    });
  });
});
