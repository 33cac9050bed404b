import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expandSlashCommand, splitArgs } from '../../../src-main/core/commands/expand.js';
import { loadCommands, MAX_COMMAND_CHARS, type Command } from '../../../src-main/core/commands/loadCommands.js';

let home: string;
beforeEach(async () => {
  home = join(await realpath(await mkdtemp(join(tmpdir(), 'rein-cmds-'))), 'home');
  await mkdir(home);
});
afterEach(async () => {
  await rm(dirname(home), { recursive: true, force: true });
});

async function put(file: string, text: string): Promise<string> {
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, text);
  return file;
}
const globalCmd = (name: string) => join(home, 'commands', `${name}.md`);
const agentCmd = (agent: string, name: string) => join(home, 'agents', agent, 'commands', `${name}.md`);

describe('loadCommands', () => {
  it("names commands after their files; an agent's command wins over a global one", async () => {
    await put(globalCmd('review'), 'Global review of $ARGUMENTS');
    await put(
      globalCmd('summarize'),
      '---\ndescription: Summarise a file\nargument_hint: <file>\n---\nSummarise $1.\n',
    );
    await put(agentCmd('ops', 'review'), 'Ops review of $ARGUMENTS');
    await put(join(home, 'commands', 'notes.txt'), 'not a command');

    const ops = await loadCommands({ home, agent: 'ops' });
    expect(ops.problems).toEqual([]);
    expect(ops.commands.map((c) => [c.name, c.scope, c.template])).toEqual([
      ['review', 'agent', 'Ops review of $ARGUMENTS'],
      ['summarize', 'global', 'Summarise $1.'],
    ]);
    expect(ops.commands[1]).toMatchObject({
      description: 'Summarise a file',
      argumentHint: '<file>',
      file: globalCmd('summarize'),
    });
    // Without a description, the first line stands in.
    expect(ops.commands[0]!.description).toBe('Ops review of $ARGUMENTS');

    const other = await loadCommands({ home, agent: 'writer' });
    expect(other.commands.map((c) => [c.name, c.scope])).toEqual([
      ['review', 'global'],
      ['summarize', 'global'],
    ]);
  });

  it('refuses built-in names, bad names, oversized files and bad front matter, and loads the rest', async () => {
    const quit = await put(globalCmd('quit'), 'bye');
    const help = await put(agentCmd('ops', 'help'), 'my help');
    const upper = await put(globalCmd('Review'), 'x');
    const big = await put(globalCmd('big'), 'y'.repeat(MAX_COMMAND_CHARS + 1));
    const typo = await put(globalCmd('typo'), '---\ndescripton: x\n---\nBody');
    const empty = await put(globalCmd('empty'), '---\ndescription: nothing\n---\n\n');
    await put(globalCmd('fine'), 'ok');
    await put(globalCmd('at-limit'), 'z'.repeat(MAX_COMMAND_CHARS));

    const r = await loadCommands({ home, agent: 'ops' });
    expect(r.commands.map((c) => c.name)).toEqual(['at-limit', 'fine']);
    expect(r.problems).toEqual(
      expect.arrayContaining([
        { file: quit, message: expect.stringMatching(/built-in/) },
        { file: help, message: expect.stringMatching(/built-in/) },
        { file: upper, message: expect.stringMatching(/not a valid command name/) },
        { file: big, message: expect.stringMatching(/at most 8000/) },
        { file: typo, field: 'descripton', message: 'unknown key' },
        { file: empty, message: expect.stringMatching(/no prompt/) },
      ]),
    );
    expect(r.problems).toHaveLength(6);
  });

  it('has nothing to load when no commands folder exists', async () => {
    expect(await loadCommands({ home })).toEqual({ commands: [], problems: [] });
  });
});

describe('expandSlashCommand', () => {
  const cmd = (name: string, template: string): Command => ({
    name,
    template,
    description: name,
    file: `/x/${name}.md`,
    scope: 'global',
  });
  const commands = [
    cmd('review', 'Review $ARGUMENTS carefully.'),
    cmd('pair', 'Compare $1 with $2 (then $3).'),
    cmd('plain', 'Tidy the working folder.'),
    cmd('dollar', 'Echo $ARGUMENTS and $1'),
  ];

  it('replaces $ARGUMENTS with the rest of the input', () => {
    expect(expandSlashCommand('/review src/app.ts  and tests', commands)).toEqual({
      prompt: 'Review src/app.ts  and tests carefully.',
      command: commands[0],
    });
    expect(expandSlashCommand('  /review', commands)).toMatchObject({ prompt: 'Review  carefully.' });
    expect(expandSlashCommand('/review line one\nline two', commands)).toMatchObject({
      prompt: 'Review line one\nline two carefully.',
    });
  });

  it('fills $1, $2 with words (quotes group them) and missing ones with nothing', () => {
    expect(expandSlashCommand('/pair "old file.ts" new.ts', commands)).toMatchObject({
      prompt: 'Compare old file.ts with new.ts (then ).',
    });
    expect(splitArgs(`a 'b c' "d \\"e\\"" f\\ g`)).toEqual(['a', 'b c', 'd "e"', 'f g']);
    expect(splitArgs('   ')).toEqual([]);
    expect(splitArgs('"" x')).toEqual(['', 'x']);
  });

  it('appends the arguments to a template without placeholders', () => {
    expect(expandSlashCommand('/plain', commands)).toMatchObject({ prompt: 'Tidy the working folder.' });
    expect(expandSlashCommand('/plain only the logs', commands)).toMatchObject({
      prompt: 'Tidy the working folder.\n\nARGUMENTS: only the logs',
    });
  });

  it('does not expand placeholders that arrive inside the arguments', () => {
    expect(expandSlashCommand('/dollar $1 $ARGUMENTS', commands)).toMatchObject({
      prompt: 'Echo $1 $ARGUMENTS and $1',
    });
  });

  it('returns null for ordinary text, paths and built-in commands', () => {
    expect(expandSlashCommand('hello /review', commands)).toBeNull();
    expect(expandSlashCommand('/usr/bin/env is broken', commands)).toBeNull();
    expect(expandSlashCommand('/help', commands)).toBeNull();
    expect(expandSlashCommand('/quit now', commands)).toBeNull();
    expect(expandSlashCommand('/', commands)).toBeNull();
  });

  it('returns an error naming the available commands for an unknown one', () => {
    expect(expandSlashCommand('/reveiw x', commands)).toEqual({
      error: 'unknown command /reveiw. Available: /review, /pair, /plain, /dollar',
    });
    expect(expandSlashCommand('/x', [])).toEqual({ error: 'unknown command /x. No custom commands are defined.' });
  });

  it('works end to end with loaded commands', async () => {
    await put(globalCmd('review'), '---\ndescription: Review code\n---\nReview $ARGUMENTS.\n');
    const { commands: loaded } = await loadCommands({ home });
    expect(expandSlashCommand('/Review README.md', loaded)).toMatchObject({ prompt: 'Review README.md.' });
  });
});
