import { describe, expect, it } from 'vitest';
import { isValidToolName } from '../../../src-main/core/tools/registry.js';
import {
  MAX_DESCRIPTION,
  mcpToolName,
  serverSlugs,
  toolDescription,
  toolNames,
} from '../../../src-main/core/mcpClient/names.js';

describe('MCP tool names', () => {
  it('are mcp__<server>__<tool>, other characters turned into _', () => {
    expect(mcpToolName('everything', 'echo')).toBe('mcp__everything__echo');
    expect(mcpToolName('gh', 'repos.list/all items')).toBe('mcp__gh__repos_list_all_items');
    expect(isValidToolName(mcpToolName('gh', 'ünïcödé✓'))).toBe(true);
  });

  it('are cut to 64 characters with a hash that keeps long names apart', () => {
    const a = mcpToolName('server', `${'x'.repeat(70)}_a`);
    const b = mcpToolName('server', `${'x'.repeat(70)}_b`);
    expect(a).toHaveLength(64);
    expect(b).toHaveLength(64);
    expect(a).not.toBe(b);
    expect(isValidToolName(a)).toBe(true);
    expect(mcpToolName('server', `${'x'.repeat(70)}_a`)).toBe(a);
  });

  it('stay distinct when two tools sanitise alike; the unchanged name keeps the plain form, whatever the order', () => {
    const n1 = toolNames('s', ['a.b', 'a_b', 'c']);
    const n2 = toolNames('s', ['c', 'a_b', 'a.b']);
    expect(n1).toEqual(n2);
    expect(n1.get('a_b')).toBe('mcp__s__a_b');
    expect(n1.get('a.b')).toMatch(/^mcp__s__a_b_[0-9a-f]{8}$/);
    expect(new Set(n1.values()).size).toBe(3);
  });

  it('give each server its own slug', () => {
    const slugs = serverSlugs(['my.srv', 'my_srv', 'a-very-long-server-name-indeed-yes']);
    expect(slugs.get('my_srv')).toBe('my_srv');
    expect(slugs.get('my.srv')).not.toBe('my_srv');
    expect(slugs.get('a-very-long-server-name-indeed-yes')!.length).toBeLessThanOrEqual(24);
    for (const s of slugs.values()) expect(isValidToolName(mcpToolName(s, 'a-tool-with-a-name'))).toBe(true);
  });

  it('descriptions are capped; a tool without one gets a stand-in', () => {
    expect(toolDescription('s', { name: 't', description: 'x'.repeat(5000) })).toHaveLength(MAX_DESCRIPTION);
    expect(toolDescription('s', { name: 't', description: 'x'.repeat(5000) }).endsWith('…')).toBe(true);
    expect(toolDescription('s', { name: 't', title: 'Title' })).toBe('Title');
    expect(toolDescription('s', { name: 't' })).toBe('Tool t of the MCP server s.');
  });
});
