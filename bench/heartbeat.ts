/**
 * `npm run bench -- heartbeat`: ten heartbeat beats of one agent through the service (the same path as
 * the daemon's timer and `rein heartbeat run`), against the fake Messages API with the provider's
 * cache accounting at every breakpoint and its expiry (an entry lives 5 minutes, or 1 hour with
 * `"ttl": "1h"`, after its last use) on a simulated clock. The agent has a realistic persona, a
 * HEARTBEAT.md of goals and a long latest conversation (so the excerpt is at its cap), and the default
 * model. Beats are half an hour apart (the clock is moved on, nothing sleeps), so each beat's context
 * block differs; the user talks to the agent between beats 3 and 4, and the sixth beat answers with an
 * alert, which lands in that conversation: later beats see a changed excerpt. Prints per beat the input
 * tokens (uncached + cache read + cache written, of which at the 1-hour TTL), the share read from the
 * cache and the cost; the cost a beat and a day; what the first request is made of; and, for
 * comparison, beats two hours apart, which keep 5-minute marks and read nothing from the cache (what
 * every beat cost before the 1-hour marks). Targets: ≤ 5,000 input tokens a beat; ≥ 80% of them from
 * the cache from the second beat on.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GlobalConfig } from '../src-main/core/config/schema.js';
import { ReinService } from '../src-main/core/service/reinService.js';
import { SessionStore } from '../src-main/core/sessions/store.js';
import { readBeats, runHeartbeat, type BeatRecord } from '../src-main/core/triggers/index.js';
import {
  breakpointPrefixes,
  markedPrefixes,
  startFakeAnthropic,
  stripCacheControl,
  text,
  type RecordedRequest,
} from '../tests/support/fakeAnthropic.js';
import { fmt, median } from './support.js';

const PERSONA = `You are Watchdog, the operations assistant of a small web team. You keep an eye on the team's
services, CI pipelines and on-call rota, and you tell people early and plainly when something needs
them. You are brief: a finding, its evidence, the next step. You never guess at a cause you cannot
back with a log line, a status page or a command's output. When a fix is routine and safe (re-running
a flaky job, clearing a full temp folder) you say what you would do and wait for a yes.

House rules:
- Production hosts are read-only for you; staging you may restart.
- Dates and times in the team's local time zone.
- Link to the pipeline run or the dashboard panel you looked at.`;

const GOALS = `# Heartbeat goals

1. CI: look at the latest run of the main branch pipeline (\`gh run list --branch main --limit 3\`). If
   the newest run failed, say which job and the first failing test; ignore runs still in progress.
2. Certificates: if any certificate in ~/ops/certs.txt expires within 14 days, name it and its date.
3. Disk: if \`df -h /\` shows the root volume above 90%, say so with the figure.
4. On-call: on weekdays between 08:00 and 09:00, remind the person on call (~/ops/oncall.txt) of any
   open incident in ~/ops/incidents/ older than a day.
5. Open questions: if the user asked you something in the latest conversation that you have not
   answered yet, answer it now in one or two sentences.

Stay quiet otherwise: nothing above needs the user means HEARTBEAT_OK.`;

const LONG = (topic: string, n: number) =>
  Array.from(
    { length: n },
    (_, i) =>
      `${topic} — point ${i + 1}: the job log shows the retry took 41 s and the cache hit rate on the runner fell to 62% after the image update.`,
  ).join(' ');

const HALF_HOUR = 30 * 60_000;

interface Scenario {
  records: BeatRecord[];
  bodies: RecordedRequest['body'][];
  cacheWrite1h: number;
  idle?: { outcome: string; reason?: string; requests: number };
  kept?: number;
}

/** `beats` beats of the watchdog agent with `heartbeat.every: every`, `gapMs` apart on the simulated clock. */
async function scenario(every: string, gapMs: number, beats: number, full: boolean): Promise<Scenario> {
  const root = await mkdtemp(join(tmpdir(), 'rein-bench-heartbeat-'));
  const home = join(root, 'home');
  const agentDir = join(home, 'agents', 'watchdog');
  await mkdir(agentDir, { recursive: true });
  await writeFile(join(agentDir, 'AGENT.md'), PERSONA);
  await writeFile(join(agentDir, 'config.yaml'), `heartbeat:\n  every: ${every}\n  max_usd_per_day: 1.00\n`);
  await writeFile(join(agentDir, 'HEARTBEAT.md'), GOALS);
  await seedConversation(join(home, 'agents', 'watchdog', 'sessions'));

  const clock = shiftClock();
  // The fake's cache expires on the simulated clock: half an hour there is half an hour for its entries.
  const fake = await startFakeAnthropic({ cacheEveryBreakpoint: true, now: clock.now });
  let beat = 0;
  fake.fallback = () => {
    beat++;
    return full && beat === 6
      ? text(
          'CI on main failed: job `e2e`, first failing test `checkout > pays with a saved card`. Re-run or look at the payment mock?',
        )
      : text('HEARTBEAT_OK');
  };
  const service = await ReinService.create({
    home,
    cwd: root,
    env: { ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: 'bench', REIN_RETRY_BASE_MS: '1' },
    // The default model (config.yaml without `model`).
    config: GlobalConfig.parse({}),
    version: 'bench',
  });
  const records: BeatRecord[] = [];
  try {
    for (let i = 0; i < beats; i++) {
      if (i > 0) clock.advance(gapMs);
      // Between beats 3 and 4 the user talks to the agent: the excerpt changes too.
      if (full && i === 3)
        await talk(
          join(home, 'agents', 'watchdog', 'sessions'),
          'Thanks. Also: is the staging deploy still stuck?',
          'It went through at 14:02; staging runs build 5121.',
        );
      records.push(await runHeartbeat(service, 'watchdog', { trigger: 'timer' }));
    }
    const out: Scenario = {
      records,
      bodies: fake.requests.map((r) => r.body),
      cacheWrite1h: fake.accounting.cacheWrite1h,
    };
    if (full) {
      await writeFile(join(agentDir, 'HEARTBEAT.md'), '');
      const before = fake.requests.length;
      const idle = await runHeartbeat(service, 'watchdog', { trigger: 'timer' });
      out.idle = {
        outcome: idle.outcome,
        ...(idle.reason ? { reason: idle.reason } : {}),
        requests: fake.requests.length - before,
      };
      out.kept = (await readBeats(home, 'watchdog')).length;
    }
    return out;
  } finally {
    clock.restore();
    await service.dispose();
    await fake.close();
    await rm(root, { recursive: true, force: true });
  }
}

const usd = (n: number) => `$${n.toFixed(n < 0.01 ? 5 : 4)}`;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

export async function run(): Promise<void> {
  const main = await scenario('30m', HALF_HOUR, 10, true);
  const apart = await scenario('2h', 4 * HALF_HOUR, 3, false);
  const { records } = main;
  const first = main.bodies[0]!;
  const part = (v: unknown) => Math.ceil(stripCacheControl(JSON.stringify(v ?? [])).length / 4);
  const prefixes = breakpointPrefixes(first);
  const ttls = markedPrefixes(first)
    .map((m) => m.ttl)
    .join(', ');
  const model = records[0]!.model ?? '?';

  console.log(
    `heartbeat benchmark (10 beats 30 min apart on a simulated clock, ${model}; fake model caching at every breakpoint, entries expiring as the provider's)`,
  );
  console.log('  beat  outcome  input tokens  from cache  cache written  uncached  output  cost');
  for (const [i, r] of records.entries()) {
    console.log(
      `  ${String(i + 1).padStart(4)}  ${r.outcome.padEnd(7)}  ${String(r.total_input_tokens).padStart(12)}  ${`${fmt(100 * r.cache_read_share)}%`.padStart(10)}  ${String(r.cache_creation_tokens).padStart(13)}  ${String(r.input_tokens).padStart(8)}  ${String(r.output_tokens).padStart(6)}  ${usd(r.cost_usd)}`,
    );
  }
  const later = records.slice(1);
  const inputs = records.map((r) => r.total_input_tokens);
  const shares = later.map((r) => r.cache_read_share);
  const perBeat = mean(later.map((r) => r.cost_usd));
  console.log(
    `  cache marks            ${ttls} (tools, system, message); 1-hour writes ${main.cacheWrite1h} tokens in all`,
  );
  console.log(`  requests per beat      ${records.map((r) => r.requests).join(', ')}`);
  console.log(`  input tokens a beat    max ${Math.max(...inputs)}, median ${median(inputs)} (target ≤ 5,000)`);
  console.log(
    `  from cache, beats 2–10 min ${fmt(100 * Math.min(...shares))}%, median ${fmt(100 * median(shares))}% (target ≥ 80%)`,
  );
  console.log(
    `  cost a beat            first ${usd(records[0]!.cost_usd)} (writes the cache), then ${usd(perBeat)} on average (beats 2–10)`,
  );
  console.log(
    `  cost a day at 30 m     ${usd(48 * perBeat)} (48 beats with the cache warm; a restart adds ${usd(records[0]!.cost_usd - perBeat)} once)`,
  );
  console.log(`  cost of 10 beats       ${usd(records.reduce((s, r) => s + r.cost_usd, 0))}`);
  console.log(
    `  first request          tools ≈ ${part(first.tools)} tokens (${first.tools?.length ?? 0} tools), system ≈ ${part(first.system)}, message ≈ ${part(first.messages)}`,
  );
  console.log(
    `  cached prefix          ${prefixes.length} breakpoints; tools+system ≈ ${Math.ceil((prefixes[1] ?? '').length / 4)} tokens, byte-identical in every beat: ${sameSystem(main.bodies)}`,
  );
  console.log(
    `  alert                  beat 6 → ${records[5]!.appended_to ? `added to conversation ${records[5]!.appended_to}` : records[5]!.append_note}`,
  );
  console.log(
    `  empty HEARTBEAT.md     ${main.idle!.outcome} (${main.idle!.reason}), ${main.idle!.requests} model requests`,
  );
  console.log(`  records kept           ${main.kept} lines in heartbeat.jsonl`);
  const a = apart.records;
  const apartBeat = mean(a.map((r) => r.cost_usd));
  console.log(
    `  beats 2 h apart        5-minute marks (${markedPrefixes(apart.bodies[0]!)
      .map((m) => m.ttl)
      .join(
        ', ',
      )}); from cache ${a.map((r) => `${fmt(100 * r.cache_read_share)}%`).join(', ')}; ${usd(apartBeat)} a beat — what every 30-minute beat cost with 5-minute marks (${usd(48 * apartBeat)} a day)`,
  );
}

function sameSystem(bodies: { tools?: unknown; system?: unknown }[]): boolean {
  const key = (b: { tools?: unknown; system?: unknown }) => stripCacheControl(JSON.stringify([b.tools, b.system]));
  return bodies.every((b) => key(b) === key(bodies[0]!));
}

/** Moves every clock reading (`new Date()`, `Date.now()`) forward, as the hours between beats would. */
function shiftClock(): { advance(ms: number): void; now(): number; restore(): void } {
  const RealDate = Date;
  let shift = 0;
  class ShiftedDate extends RealDate {
    constructor(...args: unknown[]) {
      if (args.length === 0) super(RealDate.now() + shift);
      else super(...(args as [string | number | Date]));
    }

    static override now(): number {
      return RealDate.now() + shift;
    }
  }
  globalThis.Date = ShiftedDate as DateConstructor;
  return {
    advance: (ms) => void (shift += ms),
    now: () => RealDate.now() + shift,
    restore: () => void (globalThis.Date = RealDate),
  };
}

/** One more exchange in the agent's latest conversation, as a person would have between beats. */
async function talk(dir: string, question: string, answer: string): Promise<void> {
  const store = new SessionStore(dir);
  const latest = (await store.list()).find((s) => s.source === 'desktop')!;
  const s = await store.load(latest.id);
  const at = new Date().toISOString();
  s.messages.push(
    { role: 'user', content: [{ type: 'text', text: question }] },
    { role: 'assistant', content: [{ type: 'text', text: answer }] },
  );
  s.message_meta.push({ source: 'desktop', timestamp: at }, { source: 'desktop', timestamp: at });
  await store.save(s);
}

/** A latest conversation of 14 messages, several long, with tool calls: the excerpt comes out at its cap. */
async function seedConversation(dir: string): Promise<void> {
  const store = new SessionStore(dir);
  const s = store.create({ agent: 'watchdog', cwd: '/tmp', source: 'desktop', title: 'Why is CI slow this week?' });
  const at = new Date(Date.now() - 3_600_000).toISOString();
  const add = (role: 'user' | 'assistant', body: string) => {
    s.messages.push({ role, content: [{ type: 'text', text: body }] });
    s.message_meta.push({ source: 'desktop', timestamp: at });
  };
  for (let i = 0; i < 6; i++) {
    add('user', i % 2 ? `And the deploy job? ${LONG('deploy', 3)}` : `Why is CI slow this week? Round ${i}.`);
    add('assistant', LONG(`analysis ${i}`, 5));
  }
  add('user', 'Can you keep an eye on it and tell me when main goes red again?');
  add('assistant', 'Yes — I will check the main pipeline at every heartbeat and tell you when a run fails.');
  await store.save(s);
}
