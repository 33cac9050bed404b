import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SessionIndex } from './src-main/core/search/sessionIndex.ts';
const home = await mkdtemp(join(tmpdir(), 'rein-s-'));
const t = Date.now();
const idx = await SessionIndex.open(home);
console.log('opened', Date.now() - t);
idx.close();
