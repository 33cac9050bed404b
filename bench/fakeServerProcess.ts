/**
 * Runs the fake Messages API in its own process so a benchmark measures only the harness's CPU.
 * The reply queue comes as JSON in REIN_FAKE_SCRIPT (REIN_FAKE_LIGHT=1: no request log, no cache
 * accounting); the URL is printed on the first stdout line.
 */
import { startFakeAnthropic, type FakeReply } from '../tests/support/fakeAnthropic.js';

const queue = JSON.parse(process.env.REIN_FAKE_SCRIPT ?? '[]') as FakeReply[];
const fake = await startFakeAnthropic({ light: process.env.REIN_FAKE_LIGHT === '1' });
fake.enqueue(...queue);
process.stdout.write(`${fake.url}\n`);
process.on('SIGTERM', () => void fake.close().then(() => process.exit(0)));
