// A broken agent opens in the editor: each problem the daemon lists is shown as the person reads it and
// leads to the tab where it is fixed.
import { describe, expect, it } from 'vitest';
import { problemText, tabOfFile } from '../../../src-renderer/src/views/agents/AgentEditor.js';

describe('agent editor problems', () => {
  it('sends each file to the tab that edits it', () => {
    expect(tabOfFile('AGENT.md')).toBe('persona');
    expect(tabOfFile('config.yaml')).toBe('config');
    expect(tabOfFile('MEMORY.md')).toBe('memory');
    expect(tabOfFile('_attached.yaml')).toBe('skills');
    expect(tabOfFile('commands/deploy.md')).toBe('commands');
    expect(tabOfFile('skills/x/SKILL.md')).toBeUndefined();
  });

  it('reads file, line, field and message in that order', () => {
    expect(
      problemText({ file: 'config.yaml', line: 2, column: 1, field: 'max_iterations', message: 'expected number' }),
    ).toBe('config.yaml, line 2: max_iterations: expected number');
    expect(problemText({ file: 'AGENT.md', message: 'empty' })).toBe('AGENT.md: empty');
  });
});
