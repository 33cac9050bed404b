/**
 * `npm run bench -- NAME [NAME…]` runs benchmarks and prints their figures. Nothing here asserts on
 * time: targets are printed beside the figures for a person to judge.
 */
export {};

const BENCHES: Record<string, () => Promise<{ run: () => Promise<void> }>> = {
  ax: () => import('./ax.js'),
  daemon: () => import('./daemon.js'),
  harness: () => import('./harness.js'),
  'index-check': () => import('./indexCheck.js'),
  heartbeat: () => import('./heartbeat.js'),
  mcp: () => import('./mcp.js'),
  permissions: () => import('./permissions.js'),
  search: () => import('./search.js'),
  sessions: () => import('./sessions.js'),
  startup: () => import('./startup.js'),
  context: () => import('./context.js'),
  ui: () => import('./ui.js'),
};

const names = process.argv.slice(2).filter((a) => !a.startsWith('-'));
if (names.length === 0 || names.includes('--help')) {
  console.log(`usage: npm run bench -- ${Object.keys(BENCHES).join(' | ')} | all`);
  process.exit(names.length === 0 ? 2 : 0);
}
const selected = names.includes('all') ? Object.keys(BENCHES) : names;
for (const name of selected) {
  const load = BENCHES[name];
  if (!load) {
    console.error(`unknown benchmark "${name}"; choose from: ${Object.keys(BENCHES).join(', ')}`);
    process.exit(2);
  }
  await (await load()).run();
}
