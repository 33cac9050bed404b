/**
 * README's examples work as written: the slash-command example makes the `commands/review.md` it then
 * runs (the file's text is taken from README itself, so the two cannot drift apart), and a `/name`
 * without its file says where the file goes.
 */
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cliWorld, rein } from '../support/cli.js';
import { text, type FakeAnthropic } from '../support/fakeAnthropic.js';

const README = readFileSync(resolve(__dirname, '../../README.md'), 'utf8');

let world: { fake: FakeAnthropic; home: string; cwd: string; env: NodeJS.ProcessEnv };
beforeEach(async () => {
  world = await cliWorld();
});
afterEach(async () => {
  await world.fake.close();
});

describe('README examples', () => {
  it('rein agents create reviewer, the review.md README shows, then rein run --agent reviewer "/review src/app.ts"', async () => {
    const shown = /cat > ~\/\.rein\/agents\/reviewer\/commands\/review\.md <<'EOF'\n([\s\S]*?)\nEOF\n/.exec(README);
    expect(shown, 'README shows the review.md to create').not.toBeNull();
    expect(README).toContain('rein run --agent reviewer "/review src/app.ts"');

    expect((await rein(['agents', 'create', 'reviewer'], { env: world.env, cwd: world.cwd })).code).toBe(0);
    // Without the file: exit 2, naming where it goes.
    const missing = await rein(['run', '--agent', 'reviewer', '/review src/app.ts'], {
      env: world.env,
      cwd: world.cwd,
    });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(
      `create ${join(world.home, 'agents', 'reviewer', 'commands', 'review.md')} (this agent's only) or ${join(world.home, 'commands', 'review.md')}`,
    );
    expect(world.fake.requests).toHaveLength(0);

    // README's `~/.rein` is REIN_HOME here.
    const file = join(world.home, 'agents', 'reviewer', 'commands', 'review.md');
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, `${shown![1]}\n`);
    world.fake.enqueue(text('No bugs found.'));
    const r = await rein(['run', '--agent', 'reviewer', '/review src/app.ts'], { env: world.env, cwd: world.cwd });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('No bugs found.\n');
    expect(JSON.stringify(world.fake.requests[0]!.body.messages)).toContain('Review src/app.ts. List real bugs first');
  });

  it('the ways README gives to run rein work: ./bin/rein.js and the package bin', async () => {
    const pkg = JSON.parse(readFileSync(resolve(__dirname, '../../package.json'), 'utf8')) as {
      bin: Record<string, string>;
    };
    expect(pkg.bin.rein).toBe('bin/rein.js');
    for (const text of ['npm link', 'npx rein', './bin/rein.js']) expect(README).toContain(text);
    const help = await rein(['--help'], { env: world.env, cwd: world.cwd });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('rein sessions');
  });
});
