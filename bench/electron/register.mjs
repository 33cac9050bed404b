// `node --import ./bench/electron/register.mjs out/main/index.js`: resolves `electron` to ./stub.mjs.
import { register } from 'node:module';

const stub = new URL('./stub.mjs', import.meta.url).href;
register(
  `data:text/javascript,${encodeURIComponent(
    `export async function resolve(s, c, next) { return s === 'electron' ? { url: ${JSON.stringify(stub)}, shortCircuit: true } : next(s, c); }`,
  )}`,
);
