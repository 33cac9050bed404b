/**
 * The fake Messages API of `npm run bench -- startup`, in its own process so that only the measured
 * program's CPU is counted. REIN_FAKE_STEPS is a JSON list of replies: a request of the main
 * conversation gets the reply numbered by how many assistant turns it already holds, so the same
 * session plays the same way for every run and every client (Rein and Claude Code alike). A request
 * without tools (a client's side request: a title, a topic check) gets a short text. After each request
 * REIN_FAKE_STATS (a file) says how many requests came and how many tool results the last one carried
 * (every call that ran). The URL is printed on the first stdout line.
 */
import { writeFileSync } from 'node:fs';
import { startFakeAnthropic, text, type FakeReply } from '../tests/support/fakeAnthropic.js';

const steps = JSON.parse(process.env.REIN_FAKE_STEPS ?? '[]') as FakeReply[];
const stats = { requests: 0, sideRequests: 0, toolResults: 0, toolErrors: 0 };
const statsFile = process.env.REIN_FAKE_STATS;
const saveStats = () => statsFile && writeFileSync(statsFile, JSON.stringify(stats));

interface Block {
  type?: string;
  is_error?: boolean;
}

const fake = await startFakeAnthropic({
  // Not `light`: a light fake gives every message the same id, and Claude Code takes a repeated id for a lost reply.
  light: false,
  script: (req) => {
    stats.requests++;
    if (!req.body.tools || req.body.tools.length === 0) {
      stats.sideRequests++;
      saveStats();
      return text('OK');
    }
    let turns = 0;
    let results = 0;
    let errors = 0;
    for (const m of req.body.messages) {
      if (m.role === 'assistant') turns++;
      else if (Array.isArray(m.content))
        for (const b of m.content as Block[])
          if (b.type === 'tool_result') {
            results++;
            if (b.is_error) errors++;
          }
    }
    stats.toolResults = results;
    stats.toolErrors = errors;
    saveStats();
    return steps[turns] ?? text('Done.');
  },
});

process.stdout.write(`${fake.url}\n`);
process.on('SIGTERM', () => void fake.close().then(() => process.exit(0)));
