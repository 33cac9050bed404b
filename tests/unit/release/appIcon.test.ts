/** The app icon files electron-builder packs are the ones scripts/makeAppIcon.mjs makes from build/icon.svg. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ICNS_TYPES, LINUX_SIZES, icns } from '../../../scripts/makeAppIcon.mjs';

const build = join(import.meta.dirname, '../../../build');
const pngSize = (png: Buffer) => {
  expect(png.subarray(1, 4).toString('ascii')).toBe('PNG');
  return [png.readUInt32BE(16), png.readUInt32BE(20)];
};

describe('the app icon', () => {
  it('has an .icns with every size macOS asks for, each a PNG of that size', () => {
    const file = readFileSync(join(build, 'icon.icns'));
    expect(file.subarray(0, 4).toString('ascii')).toBe('icns');
    expect(file.readUInt32BE(4)).toBe(file.length);
    const found = new Map<string, number[]>();
    for (let at = 8; at < file.length;) {
      const type = file.subarray(at, at + 4).toString('ascii');
      const len = file.readUInt32BE(at + 4);
      found.set(type, pngSize(file.subarray(at + 8, at + len)));
      at += len;
    }
    for (const [type, size] of ICNS_TYPES) expect(found.get(type), type).toEqual([size, size]);
  });

  it('has the Linux sizes and a 1024 px PNG, from an SVG source', () => {
    for (const size of LINUX_SIZES)
      expect(pngSize(readFileSync(join(build, 'icons', `${size}x${size}.png`)))).toEqual([size, size]);
    expect(pngSize(readFileSync(join(build, 'icon.png')))).toEqual([1024, 1024]);
    expect(readFileSync(join(build, 'icon.svg'), 'utf8')).toMatch(/<svg [^>]*viewBox="0 0 1024 1024"/);
  });

  it('writes an .icns the way it reads', () => {
    const png = Buffer.from('\x89PNG fake');
    const out = icns([['ic07', png]]);
    expect(out.readUInt32BE(4)).toBe(8 + 8 + png.length);
    expect(out.subarray(8, 12).toString('ascii')).toBe('ic07');
  });
});
