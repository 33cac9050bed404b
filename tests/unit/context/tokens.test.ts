import { describe, expect, it } from 'vitest';
import {
  countChars,
  estimateMessageTokens,
  estimateMessagesTokens,
  estimateRequestTokens,
  estimateSystemTokens,
  estimateToolsTokens,
  resultCapForWindow,
} from '../../../src-main/core/context/tokens.js';
import { PNG, toolCalls, toolResults, user } from './helpers.js';

describe('token estimation', () => {
  it('counts 3.5 characters per token, rounded up, plus 4 per message', () => {
    expect(estimateMessageTokens({ role: 'user', content: 'abcdefg' })).toBe(2 + 4);
    expect(estimateMessageTokens({ role: 'user', content: 'abcdefgh' })).toBe(3 + 4);
    expect(estimateMessageTokens(user('a'.repeat(35)))).toBe(10 + 4);
  });

  it('counts an image as about 1000 tokens whatever its base64 size', () => {
    const small = {
      role: 'user' as const,
      content: [
        { type: 'image' as const, source: { type: 'base64' as const, media_type: 'image/png' as const, data: PNG } },
      ],
    };
    const huge = {
      role: 'user' as const,
      content: [
        {
          type: 'image' as const,
          source: { type: 'base64' as const, media_type: 'image/png' as const, data: PNG.repeat(5000) },
        },
      ],
    };
    expect(estimateMessageTokens(small)).toBe(1000 + 4);
    expect(estimateMessageTokens(huge)).toBe(1000 + 4);
  });

  it('counts tool calls by name and JSON input, tool results by their nested text and images', () => {
    const call = toolCalls([{ id: 'a', name: 'grep', input: { q: 'x' } }]);
    expect(estimateMessageTokens(call)).toBe(Math.ceil(('grep'.length + '{"q":"x"}'.length) / 3.5) + 4);
    const res = toolResults([{ id: 'a', text: 'y'.repeat(70), image: true }]);
    expect(estimateMessageTokens(res)).toBe(Math.ceil((70 + 3500) / 3.5) + 4);
  });

  it('counts code points, not UTF-16 units', () => {
    expect(countChars('😀😀')).toBe(2);
    expect(countChars('日本語')).toBe(3);
  });

  it('estimates system blocks, tool definitions and whole requests', () => {
    const system = [{ type: 'text' as const, text: 'a'.repeat(70) }];
    const tools = [{ name: 't', description: 'd', input_schema: { type: 'object' as const, properties: {} } }];
    expect(estimateSystemTokens(system)).toBe(20);
    expect(estimateToolsTokens(tools)).toBe(Math.ceil(JSON.stringify(tools[0]).length / 3.5));
    const messages = [user('hello')];
    expect(estimateRequestTokens({ system, tools, messages })).toBe(
      20 + estimateToolsTokens(tools) + estimateMessagesTokens(messages),
    );
  });
});

describe('resultCapForWindow', () => {
  it('lets one result take a tenth of the window, in characters, with a floor', () => {
    expect(resultCapForWindow(200_000)).toBe(70_000); // above every tool budget: nothing changes there
    expect(resultCapForWindow(40_000)).toBe(14_000);
    expect(resultCapForWindow(5_000)).toBe(4_000);
    expect(resultCapForWindow(40_000, 0.25)).toBe(35_000);
  });

  it('share 0 (or no window) means no cap', () => {
    expect(resultCapForWindow(40_000, 0)).toBe(Number.POSITIVE_INFINITY);
    expect(resultCapForWindow(0)).toBe(Number.POSITIVE_INFINITY);
  });
});
