// An agent run with the fake model that drives the fixture app: the runtime offers the GUI tools by itself
// (gui.enabled auto: Linux with a display and the helper), the model snapshots, reads the ref of the
// Count button from the snapshot text and clicks it by ref. GUI tools ask in an attended run, are refused
// in an unattended one, and a run that used them goes past an iteration cap below the GUI floor.
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { disposeSharedGuiProviders } from '../../src-main/core/ax/guiProvider.js';
import { GlobalConfig } from '../../src-main/core/config/schema.js';
import { createRuntime, startRun } from '../../src-main/core/runtime/runtime.js';
import {
  desktopParts,
  inCi,
  skipReason,
  startDesktop,
  type Desktop,
  type FixtureApp,
} from '../fixtures/ax/desktopSession.js';
import { drainRun } from '../support/drainRun.js';
import {
  startFakeAnthropic,
  text,
  toolCall,
  tools,
  type FakeAnthropic,
  type RecordedRequest,
} from '../support/fakeAnthropic.js';
import { face } from '../support/harness.js';
import { useLeakCheck } from '../support/leaks.js';
import { tempRuntimeDirs } from '../unit/runtime/tempRuntimeDirs.js';

const missing = desktopParts();

describe.runIf(missing.length > 0 && inCi)('an agent run that clicks by ref', () => {
  it('needs the desktop test packages under CI', () => {
    throw new Error(`the accessibility tests need ${missing.join(', ')} under CI=true (.ci/run installs them)`);
  });
});

/** The text of the tool results in the last message of a request. */
function lastResults(req: RecordedRequest): Array<{ text: string; isError: boolean }> {
  const last = req.body.messages[req.body.messages.length - 1]!;
  const blocks = Array.isArray(last.content) ? (last.content as Array<Record<string, unknown>>) : [];
  return blocks
    .filter((b) => b.type === 'tool_result')
    .map((b) => ({
      isError: b.is_error === true,
      text:
        typeof b.content === 'string'
          ? b.content
          : (b.content as Array<{ type: string; text?: string }>).map((c) => c.text ?? '').join(''),
    }));
}

describe.skipIf(missing.length > 0)(
  missing.length ? `an agent run that clicks by ref (${skipReason(missing)})` : 'an agent run that clicks by ref',
  () => {
    useLeakCheck();
    const d = tempRuntimeDirs('rein-ax-run-');
    let desktop: Desktop;
    let app: FixtureApp;
    let fake: FakeAnthropic;

    beforeAll(async () => {
      desktop = await startDesktop();
      app = await desktop.startFixture();
      const c = desktop.client();
      await desktop.waitForApp(c, app.pid);
      await c.disposeAsync();
    }, 60_000);

    afterAll(async () => {
      await desktop?.close();
    });

    // The model's server for one test, closed at its end with the client's keep-alive connection.
    beforeEach(async () => {
      fake = await startFakeAnthropic();
    });
    afterEach(async () => {
      await fake.close();
    });

    const runtime = (over: Parameters<typeof createRuntime>[0] extends infer O ? Partial<O> : never) =>
      createRuntime({
        home: d.home,
        cwd: d.cwd,
        env: { ...desktop.env, ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: fake.url, REIN_RETRY_BASE_MS: '5' },
        config: GlobalConfig.parse({}),
        origin: 'attended',
        bundledSkillsDir: join(d.root, 'none'),
        ...over,
      });

    it('snapshots, reads the button’s ref, clicks it by ref — asking first — and goes past a low iteration cap', async () => {
      let clickedRef: string | undefined;
      fake.fallback = (req) => {
        const n = req.body.messages.filter((m) => m.role === 'user').length;
        if (n === 1)
          return tools([
            toolCall('accessibility', { action: 'snapshot', app: String(app.pid), filter: 'interactive' }),
          ]);
        const [result] = lastResults(req);
        if (!clickedRef) {
          clickedRef = /button "Count" \[(e\d+)\]/.exec(result!.text)?.[1];
          if (!clickedRef) return text(`no Count button in: ${result!.text.slice(0, 200)}`);
          return tools([toolCall('accessibility', { action: 'click', ref: clickedRef })]);
        }
        return text(`Done: ${result!.text}`);
      };
      const asked: string[] = [];
      try {
        const rt = await runtime({ faces: [face('allow', asked)], overrides: { max_iterations: 2 } });
        expect(rt.registry.names()).toEqual(
          expect.arrayContaining(['accessibility', 'computer', 'screenshot', 'wait_for']),
        );
        expect(rt.registry.names()).not.toContain('applescript');
        const { events } = await startRun(rt, {
          prompt: 'Press Count in the fixture app.',
          cwd: d.cwd,
          home: d.home,
          signal: new AbortController().signal,
        });
        const { outcome } = await drainRun(events);
        expect(outcome.stopReason).toBe('final');
        expect(clickedRef).toMatch(/^e\d+$/);
        expect((await app.state()).count).toBe(1);
        expect(asked).toEqual([expect.stringMatching(/^accessibility:snapshot/), `accessibility:click ${clickedRef}`]);
        const final = fake.requests[fake.requests.length - 1]!;
        expect(lastResults(final)[0]).toMatchObject({
          isError: false,
          text: expect.stringMatching(new RegExp(`^clicked button "Count" \\[${clickedRef}\\]`)),
        });
      } finally {
        fake.fallback = () => text('ok');
        await disposeSharedGuiProviders();
      }
    });

    it('refuses the GUI tools in an unattended run unless permissions.gui_unattended lists them', async () => {
      fake.fallback = (req) =>
        req.body.messages.length === 1
          ? tools([toolCall('accessibility', { action: 'click', ref: 'e1' })])
          : text(`result: ${lastResults(req)[0]?.text ?? ''}`);
      try {
        const rt = await runtime({ origin: 'unattended', source: 'schedule' });
        const { events } = await startRun(rt, {
          prompt: 'click something',
          cwd: d.cwd,
          home: d.home,
          signal: new AbortController().signal,
        });
        await drainRun(events);
        const [result] = lastResults(fake.requests[fake.requests.length - 1]!);
        expect(result).toMatchObject({ isError: true, text: expect.stringContaining('gui_unattended') });
        expect((await app.state()).count).toBe(1);
      } finally {
        fake.fallback = () => text('ok');
        await disposeSharedGuiProviders();
      }
    });

    it('leaves the GUI tools out when gui.enabled is false', async () => {
      const rt = await runtime({ config: GlobalConfig.parse({ gui: { enabled: false } }), faces: [] });
      expect(rt.registry.names()).not.toContain('accessibility');
    });
  },
);
