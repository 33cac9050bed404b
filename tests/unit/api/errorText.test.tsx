// Every failure a person can meet in the chat is said in words with what to do, from one table
// (core/api/errorText.ts): every code the core raises, the codes a run ends with, and the page's own.
// A model failure names where the call went (the base URL). The chat's error item renders the
// sentence, never the bare code.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { EXPLAINED_CODES, explainError } from '../../../src-main/core/api/errorText.js';
import { HTTP_STATUS_OF_CODE } from '../../../src-main/core/daemon/httpError.js';
import { MessageList } from '../../../src-renderer/src/views/chat/MessageList.js';

/** The codes a run's own `error` event carries besides ReinErrors (core/harness/loop.ts), and the page's client's. */
const RUN_AND_PAGE_CODES = [
  'max_iterations',
  'budget',
  'session_save_failed',
  'offline',
  'unauthorized',
  'confirmation_pending',
];

describe('explainError', () => {
  it("has words for every code the core raises, every code a run ends with, and the page's own", () => {
    for (const code of [...Object.keys(HTTP_STATUS_OF_CODE), ...RUN_AND_PAGE_CODES])
      expect(EXPLAINED_CODES, code).toContain(code);
    for (const code of EXPLAINED_CODES) {
      const said = explainError(code, 'the daemon said so');
      // A setting named as code (`max_iterations`) is fine; the code as the message is not.
      expect(said.text.replace(/`[^`]*`/g, ''), code).not.toContain(code);
      expect(said.text.length, code).toBeGreaterThan(20);
    }
  });

  it("says what to do without an API key, keeping what the stored key's problem was", () => {
    expect(explainError('no_api_key', 'No API key: run `rein auth set-key` (…).')).toEqual({
      text: 'No API key: add one in Settings (or set ANTHROPIC_API_KEY / run `rein auth set-key`), or point the base URL at a local Anthropic-compatible server.',
    });
    expect(
      explainError('no_api_key', 'No API key: … The stored key could not be read: secret-tool timed out.').detail,
    ).toBe('The stored key could not be read: secret-tool timed out.');
  });

  it('keeps the file, line and field of a config that does not load', () => {
    const m = '/home/me/.rein/config.yaml:2: permissions.mode: expected one of default, plan…';
    const said = explainError('config_invalid', m);
    expect(said.text).toMatch(/configuration does not load/);
    expect(said.detail).toBe(m);
  });

  it('says what failed in a model call and where it went', () => {
    const at = { baseUrl: 'http://127.0.0.1:8080' };
    expect(explainError('llm_failed', 'LLM call failed: HTTP 401: invalid x-api-key', at).text).toBe(
      'The API key was refused by the model server at http://127.0.0.1:8080: check the key in Settings (or ANTHROPIC_API_KEY, or `rein auth set-key`).',
    );
    expect(explainError('llm_failed', 'LLM call failed after 4 attempts: rate limited (429)', at).text).toMatch(
      /^Rate limited by the model server at http:\/\/127\.0\.0\.1:8080/,
    );
    expect(explainError('llm_failed', 'LLM call failed after 4 attempts: API overloaded (529)').text).toMatch(
      /^Anthropic's API .* is overloaded/,
    );
    expect(
      explainError(
        'llm_failed',
        'LLM call failed after 4 attempts: connection error: Connection error. (ECONNREFUSED)',
        at,
      ).text,
    ).toBe(
      'Could not reach the model server at http://127.0.0.1:8080: is it running, and is the address right? Check the base URL in Settings, then send again.',
    );
    expect(explainError('llm_failed', 'LLM call failed: HTTP 404: model: claude-nope', at).text).toMatch(
      /does not know that model or address \(HTTP 404\)/,
    );
    const other = explainError('llm_failed', 'LLM call failed: something odd', at);
    expect(other).toEqual({
      text: 'The call to the model server at http://127.0.0.1:8080 failed.',
      detail: 'LLM call failed: something odd',
    });
  });

  it('names the caps a run stopped at, and gives an unknown code its message rather than the code', () => {
    expect(explainError('max_iterations', 'Stopped after 25 iterations (max_iterations = 25).').text).toMatch(
      /limit of model turns .*Send "continue"/,
    );
    expect(explainError('budget', 'Spending cap reached: …').text).toMatch(/spending cap .*budget\.max_usd_per_run/);
    expect(explainError('weird_new_code', 'Something specific happened.')).toEqual({
      text: 'Something specific happened.',
    });
    expect(explainError('weird_new_code', '').text).toBe('Something went wrong, and Rein did not say what.');
  });
});

describe("the chat's error item", () => {
  it("shows the sentence with commands as code, the daemon's words as detail, and the code only as data", () => {
    const html = renderToStaticMarkup(
      <MessageList
        items={[
          { kind: 'error', id: 'e1', code: 'no_api_key', message: 'No API key: run `rein auth set-key`.' },
          { kind: 'error', id: 'e2', code: 'llm_failed', message: 'LLM call failed: HTTP 401: invalid x-api-key' },
        ]}
        errorContext={{ baseUrl: 'https://llm.example.net' }}
      />,
    );
    expect(html).toContain('data-code="no_api_key"');
    expect(html).toContain(
      'No API key: add one in Settings (or set ANTHROPIC_API_KEY / run <code>rein auth set-key</code>)',
    );
    expect(html).toContain('The API key was refused by the model server at https://llm.example.net');
    expect(html).toContain('<p class="notice-detail">LLM call failed: HTTP 401: invalid x-api-key</p>');
    expect(html.replace(/data-code="[^"]*"/g, '')).not.toMatch(/no_api_key|llm_failed/);
  });
});
