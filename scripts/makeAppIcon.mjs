#!/usr/bin/env node
// Renders Rein's app icon from build/icon.svg (rsvg-convert, from librsvg: `apt-get install librsvg2-bin`
// or `brew install librsvg`) into what electron-builder packs:
//   build/icon.png          1024 px (electron-builder's fallback, the README)
//   build/icon.icns         macOS (PNG-encoded entries, 16 to 1024 px, @1x and @2x)
//   build/icons/NxN.png     Linux (the hicolor sizes the .deb and the AppImage install)
// The outputs are committed; run this again only when icon.svg changes: node scripts/makeAppIcon.mjs
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const build = join(import.meta.dirname, '..', 'build');
const svg = join(build, 'icon.svg');

function render(size) {
  const r = spawnSync('rsvg-convert', ['--width', String(size), '--height', String(size), svg], {
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.error || r.status !== 0) {
    throw new Error(
      `rsvg-convert failed (${r.error?.message ?? r.stderr.toString().trim()}); install librsvg2-bin (apt) or librsvg (brew)`,
    );
  }
  return r.stdout;
}

/** An .icns file: "icns" + length, then one (type, length, PNG) entry per size. */
export function icns(entries) {
  const parts = entries.map(([type, png]) => {
    const head = Buffer.alloc(8);
    head.write(type, 0, 'ascii');
    head.writeUInt32BE(png.length + 8, 4);
    return Buffer.concat([head, png]);
  });
  const head = Buffer.alloc(8);
  head.write('icns', 0, 'ascii');
  head.writeUInt32BE(8 + parts.reduce((n, p) => n + p.length, 0), 4);
  return Buffer.concat([head, ...parts]);
}

// The ICNS types that hold PNG data, by pixel size.
export const ICNS_TYPES = [
  ['icp4', 16],
  ['icp5', 32],
  ['icp6', 64],
  ['ic07', 128],
  ['ic08', 256],
  ['ic09', 512],
  ['ic10', 1024],
  ['ic11', 32],
  ['ic12', 64],
  ['ic13', 256],
  ['ic14', 512],
];
export const LINUX_SIZES = [16, 32, 48, 64, 128, 256, 512, 1024];

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  readFileSync(svg); // a clear ENOENT first
  const cache = new Map();
  const png = (size) => cache.get(size) ?? cache.set(size, render(size)).get(size);
  writeFileSync(join(build, 'icon.png'), png(1024));
  writeFileSync(join(build, 'icon.icns'), icns(ICNS_TYPES.map(([type, size]) => [type, png(size)])));
  mkdirSync(join(build, 'icons'), { recursive: true });
  for (const size of LINUX_SIZES) writeFileSync(join(build, 'icons', `${size}x${size}.png`), png(size));
  console.log(`wrote build/icon.png, build/icon.icns and build/icons/ (${LINUX_SIZES.join(', ')} px)`);
}
