// Draws the menu-bar icons: a bold "R" in black on transparent, as macOS template images (16 px and
// @2x 32 px; macOS tints them for light and dark menu bars). One per tray state, told apart by a badge
// at the top right, with a clear gap around it so it reads at 16 px:
//   tray/trayIdleTemplate.png      the R alone
//   tray/trayWorkingTemplate.png   a ring (something is running)
//   tray/trayApprovalTemplate.png  a filled dot (a question waits for you)
//   tray/trayErrorTemplate.png     a disc with an exclamation mark cut out (something failed)
// plus iconTemplate.png (the idle icon, used by the packager). Template images carry no colour, so
// the states differ by shape, not by red or green.
// Run: node resources/makeTrayIcons.mjs [outDir] [extraSize]. Needs nothing but Node (zlib for PNG).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';

/** Coverage of the glyph at (x, y), on a 16-unit grid with y pointing down. */
function insideR(x, y) {
  const stem = x >= 3 && x <= 5.5 && y >= 2 && y <= 14;
  const topBar = x >= 3 && x <= 8 && y >= 2 && y <= 4.25;
  const midBar = x >= 3 && x <= 8 && y >= 7.25 && y <= 9.5;
  const r = Math.hypot(x - 8, y - 5.75);
  const bowl = x >= 8 && r <= 3.75 && r >= 1.5;
  // The leg: points within 1.25 of the segment (7.5, 9) → (12, 14).
  const [ax, ay, bx, by] = [7.5, 9, 12, 14];
  const t = Math.max(0, Math.min(1, ((x - ax) * (bx - ax) + (y - ay) * (by - ay)) / ((bx - ax) ** 2 + (by - ay) ** 2)));
  const leg = Math.hypot(x - (ax + t * (bx - ax)), y - (ay + t * (by - ay))) <= 1.25;
  return stem || topBar || midBar || bowl || leg;
}

const BADGE = { x: 12.75, y: 3.25, r: 3.1 };

/** Coverage of the state's badge at (x, y); undefined outside the badge and its gap. */
function badge(state, x, y) {
  const d = Math.hypot(x - BADGE.x, y - BADGE.y);
  if (d > BADGE.r + 1.1) return undefined; // outside badge and gap: the R shows
  if (d > BADGE.r) return false; // the gap
  if (state === 'working') return d >= BADGE.r - 1.2;
  if (state === 'approval') return true;
  // error: a disc with "!" cut out: a bar and a dot.
  const bar = Math.abs(x - BADGE.x) <= 0.6 && y >= BADGE.y - 2.2 && y <= BADGE.y + 0.5;
  const dot = Math.hypot(x - BADGE.x, y - (BADGE.y + 1.7)) <= 0.6;
  return !(bar || dot);
}

function inside(state, x, y) {
  if (state !== 'idle') {
    const b = badge(state, x, y);
    if (b !== undefined) return b;
  }
  return insideR(x, y);
}

/** RGBA pixels, anti-aliased by sampling each pixel on an 8×8 grid. */
function render(size, state = 'idle') {
  const samples = 8;
  const pixels = Buffer.alloc(size * size * 4); // black, alpha = coverage
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      let hits = 0;
      for (let sy = 0; sy < samples; sy++) {
        for (let sx = 0; sx < samples; sx++) {
          const x = ((px + (sx + 0.5) / samples) * 16) / size;
          const y = ((py + (sy + 0.5) / samples) * 16) / size;
          if (inside(state, x, y)) hits++;
        }
      }
      pixels[(py * size + px) * 4 + 3] = Math.round((255 * hits) / samples ** 2);
    }
  }
  return pixels;
}

const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(bytes) {
  let c = 0xffffffff;
  for (const b of bytes) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  body.copy(out, 4);
  out.writeUInt32BE(crc32(body), 8 + data.length);
  return out;
}

/** A PNG of 8-bit RGBA pixels; each row starts with filter byte 0 (none). */
function png(size, rgba) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 6, 0, 0, 0], 8); // bit depth 8, colour type RGBA, deflate, no filter method, no interlace
  const rows = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y++) rgba.copy(rows, y * (size * 4 + 1) + 1, y * size * 4, (y + 1) * size * 4);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const outDir = process.argv[2] ?? import.meta.dirname;
writeFileSync(join(outDir, 'iconTemplate.png'), png(16, render(16)));
writeFileSync(join(outDir, 'iconTemplate@2x.png'), png(32, render(32)));
mkdirSync(join(outDir, 'tray'), { recursive: true });
for (const [state, name] of [['idle', 'Idle'], ['working', 'Working'], ['approval', 'Approval'], ['error', 'Error']]) {
  writeFileSync(join(outDir, 'tray', `tray${name}Template.png`), png(16, render(16, state)));
  writeFileSync(join(outDir, 'tray', `tray${name}Template@2x.png`), png(32, render(32, state)));
}
const extra = Number(process.argv[3]);
if (extra > 0) {
  // Large previews, to look at the shapes.
  for (const state of ['idle', 'working', 'approval', 'error']) writeFileSync(join(outDir, `icon-${state}-${extra}.png`), png(extra, render(extra, state)));
}
