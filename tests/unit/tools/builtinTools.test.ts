import { describe, expect, it } from 'vitest';
import { builtinTools } from '../../../src-main/core/tools/builtin/index.js';
import { ToolRegistry } from '../../../src-main/core/tools/registry.js';

describe('builtinTools', () => {
  const tools = builtinTools();

  it('provides the reference names, all local, each with a description and a one-line summary', () => {
    expect(tools.map((t) => t.name).sort()).toEqual(
      [
        'bash',
        'directory_list',
        'file_edit',
        'file_read',
        'file_write',
        'glob',
        'grep',
        'http',
        'system_info',
        'think',
      ].sort(),
    );
    for (const tool of tools) {
      expect(tool.source).toBe('local');
      expect(tool.description.length).toBeGreaterThan(40);
      expect(typeof tool.summarize).toBe('function');
    }
  });

  it('exposes the reference input fields and required lists to the model', () => {
    const defs = new Map(new ToolRegistry(tools).definitions().map((d) => [d.name, d.input_schema]));
    const fields = (name: string) => Object.keys((defs.get(name)?.properties ?? {}) as object).sort();
    const required = (name: string) => ((defs.get(name)?.required ?? []) as string[]).slice().sort();
    expect(fields('bash')).toEqual(['command', 'timeout']);
    expect(required('bash')).toEqual(['command']);
    expect(fields('file_read')).toEqual(['limit', 'offset', 'path']);
    expect(fields('file_write')).toEqual(['content', 'path']);
    expect(required('file_write')).toEqual(['content', 'path']);
    expect(fields('file_edit')).toEqual(['new_string', 'old_string', 'path', 'replace_all']);
    expect(required('file_edit')).toEqual(['new_string', 'old_string', 'path']);
    expect(fields('glob')).toEqual(['path', 'pattern']);
    expect(fields('grep')).toEqual(['case_insensitive', 'glob', 'max_results', 'path', 'pattern']);
    expect(fields('directory_list')).toEqual(['path']);
    expect(fields('http')).toEqual(['body', 'headers', 'method', 'timeout', 'url']);
    expect(fields('think')).toEqual(['thought']);
    expect(fields('system_info')).toEqual([]);
    for (const schema of defs.values()) expect(schema.additionalProperties).toBe(false);
  });
});
