import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { rewriteSkillPaths } from '../../../src-main/core/skills/rewritePaths.js';
import { makeSkillHome, writeFileIn, type SkillHome } from './skillFixtures.js';

let t: SkillHome;
let dir: string;
beforeEach(async () => {
  t = await makeSkillHome();
  dir = join(t.root, 'skill');
  await writeFileIn(join(dir, 'scripts', 'run.sh'), 'echo hi\n');
  await writeFileIn(join(dir, 'references', 'api.md'), '# API\n');
  await writeFileIn(join(dir, 'FORMS.md'), '# Forms\n');
  await writeFileIn(join(dir, 'assets', 'logo.png'), 'png');
  await writeFileIn(join(t.root, 'outside.md'), 'not part of the skill');
});
afterEach(async () => {
  await t.cleanup();
});

const rw = (body: string) => rewriteSkillPaths(body, dir);

describe('rewriting paths inside the skill folder', () => {
  it('rewrites bare, ./-prefixed, quoted and code paths that exist in the folder', async () => {
    expect(await rw('Run scripts/run.sh first.')).toBe(`Run ${dir}/scripts/run.sh first.`);
    expect(await rw('See ./references/api.md')).toBe(`See ${dir}/references/api.md`);
    expect(await rw('bash "scripts/run.sh" --fast')).toBe(`bash "${dir}/scripts/run.sh" --fast`);
    expect(await rw('```bash\nbash scripts/run.sh\n```')).toBe(`\`\`\`bash\nbash ${dir}/scripts/run.sh\n\`\`\``);
    expect(await rw('inline `scripts/run.sh` code')).toBe(`inline \`${dir}/scripts/run.sh\` code`);
    expect(await rw('--config=assets/logo.png')).toBe(`--config=${dir}/assets/logo.png`);
  });

  it('keeps sentence punctuation and link fragments outside the rewritten path', async () => {
    expect(await rw('Then run scripts/run.sh.')).toBe(`Then run ${dir}/scripts/run.sh.`);
    expect(await rw('Did you read references/api.md?')).toBe(`Did you read ${dir}/references/api.md?`);
    expect(await rw('[auth](references/api.md#auth)')).toBe(`[auth](${dir}/references/api.md#auth)`);
  });

  it('rewrites markdown link targets, even a bare file name, but not bare words in prose', async () => {
    expect(await rw('Fill in [the form](FORMS.md).')).toBe(`Fill in [the form](${dir}/FORMS.md).`);
    expect(await rw('![logo](./assets/logo.png)')).toBe(`![logo](${dir}/assets/logo.png)`);
    expect(await rw('FORMS.md explains it')).toBe('FORMS.md explains it');
  });

  it('rewrites a folder reference too', async () => {
    expect(await rw('Everything in references/ is optional')).toBe(`Everything in ${dir}/references/ is optional`);
  });

  it('leaves absolute paths, home paths, URLs and variables alone', async () => {
    const body = [
      `Absolute ${dir}/scripts/run.sh and /usr/bin/env stay.`,
      'Home ~/scripts/run.sh stays.',
      'URL https://example.com/scripts/run.sh stays, [site](https://example.com/references/api.md) too.',
      'Mail [me](mailto:a@b.c) and file:scripts/run.sh stay.',
      'Variable $DIR/scripts/run.sh stays.',
    ].join('\n');
    expect(await rw(body)).toBe(body);
  });

  it("leaves paths that do not exist in the skill folder alone (they may be the user's files)", async () => {
    const body = 'Edit src/app.ts and scripts/missing.sh, list references/*.md, and [nope](NOPE.md).';
    expect(await rw(body)).toBe(body);
  });

  it('never rewrites a path that climbs out of the skill folder, even if it exists', async () => {
    const body = 'Do not read ../outside.md or scripts/../../outside.md';
    expect(await rw(body)).toBe(body);
  });

  it('rewrites every occurrence and leaves the rest of the text byte for byte', async () => {
    const body = 'a scripts/run.sh\n\tb scripts/run.sh  c\r\n';
    expect(await rw(body)).toBe(`a ${dir}/scripts/run.sh\n\tb ${dir}/scripts/run.sh  c\r\n`);
  });

  it('quotes a rewritten path that contains a space so commands still work', async () => {
    const spaced = join(t.root, 'My Skills', 'skill');
    await writeFileIn(join(spaced, 'scripts', 'run.sh'), 'echo\n');
    expect(await rewriteSkillPaths('bash scripts/run.sh', spaced)).toBe(`bash '${spaced}/scripts/run.sh'`);
    expect(await rewriteSkillPaths('bash "scripts/run.sh"', spaced)).toBe(`bash "${spaced}/scripts/run.sh"`);
    expect(await rewriteSkillPaths('[x](scripts/run.sh)', spaced)).toBe(`[x](<${spaced}/scripts/run.sh>)`);
  });
});
