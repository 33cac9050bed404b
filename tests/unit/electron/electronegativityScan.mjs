// Runs electronegativity (its programmatic API) on a folder and prints what it found as JSON on stdout.
// It runs in a process of its own because the package reaches for the network: translations when it
// starts and Electron's release notes in one check. `got` (its HTTP client) is replaced here by a stub
// that fails at once, so a scan never leaves this machine.
// Usage: node electronegativityScan.mjs <folder> <electron version>
import Module, { createRequire } from 'node:module';

const offline = () => Promise.reject(new Error('network disabled in Rein tests'));
for (const method of ['get', 'head', 'post', 'extend']) offline[method] = offline;
offline.default = offline;
const load = Module._load;
Module._load = function (request, ...rest) {
  if (request === 'got') return offline;
  return load.call(this, request, ...rest);
};

// Resolved from the project (this file sits in tests/unit/electron); a CommonJS package loaded the CommonJS way.
const loadFromProject = createRequire(new URL('../../../package.json', import.meta.url));
const loaded = loadFromProject('@doyensec/electronegativity');
const run = typeof loaded === 'function' ? loaded : loaded.default;
const [input, electronVersion] = process.argv.slice(2);

try {
  const result = await run({
    input,
    isSarif: false,
    customScan: [],
    // The release-notes check needs the network; without package.json in the folder its input check finds nothing anyway.
    excludeFromScan: ['availablesecurityfixesglobalcheck', 'electronversionjsoncheck'],
    severitySet: 'informational',
    confidenceSet: 'tentative',
    isRelative: true,
    electronVersion,
    electronVersionOverride: electronVersion,
    parserPlugins: [],
  });
  const issues = result.issues.map((i) => ({
    id: i.id,
    file: i.file,
    line: i.location ? i.location.line : 0,
    severity: i.severity.name,
    confidence: i.confidence.name,
    manualReview: Boolean(i.manualReview),
    sample: i.sample,
    description: i.description,
  }));
  process.stdout.write(JSON.stringify({ errors: result.errors, issues }));
} catch (err) {
  process.stderr.write(String((err && err.stack) || err));
  process.exit(1);
}
