import { it } from 'vitest';
import { startFakeAnthropic, text } from '../../support/fakeAnthropic.js';
import { startTestDaemon, http } from '../../integration/daemon/support.js';
it('x', async () => {
  const fake = await startFakeAnthropic(); const d = await startTestDaemon(fake);
  fake.enqueue(text('Nothing there.'));
  await http(d, 'POST', '/message', { body: { text: 'find files', source: 'chat', channel: 'desktop', new_session: true } });
  console.log('searching', Date.now());
  const s = await http(d, 'GET', '/sessions/search?q=Nothing&agent=default');
  console.log(Date.now(), s.status, s.text.slice(0, 300));
  await d.daemon.close(); await fake.close();
}, 60000);
