/** A small source tree for the finding tools, with fixed modification times (newest first: c, b, a). */
import { mkdir, utimes, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

export const TREE: Record<string, string> = {
  'a.ts': 'export const alpha = 1;\n// TODO first\n',
  'src/b.ts': 'import { alpha } from "../a";\nexport const Beta = alpha + 1; // todo second\n',
  'src/deep/c.ts': 'const gamma = 3;\n',
  'README.md': '# Title\nTODO in docs\n',
  '.git/config.ts': 'TODO hidden in git\n',
  'node_modules/dep/index.ts': 'TODO in a dependency\n',
  '.github/ci.yml': 'on: push # TODO\n',
};

const MTIMES: Record<string, number> = { 'a.ts': 1_000, 'src/b.ts': 2_000, 'src/deep/c.ts': 3_000 };

export async function writeTree(root: string): Promise<void> {
  for (const [rel, content] of Object.entries(TREE)) {
    const abs = join(root, rel);
    await mkdir(dirname(abs), { recursive: true });
    await writeFile(abs, content);
    const t = MTIMES[rel] ?? 500;
    await utimes(abs, t, t);
  }
  await writeFile(join(root, 'image.bin'), Buffer.from('TODO\0binary'));
}
