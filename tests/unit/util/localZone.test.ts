import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { localStamp, processTimeZone, zoneFromLink } from '../../../src-main/core/util/localZone.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rein-zone-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const link = async (name: string, target: string) => {
  const at = join(dir, name);
  await symlink(target, at);
  return at;
};

describe('the time zone from /etc/localtime', () => {
  it('reads the zone name from macOS and Linux links', async () => {
    expect(zoneFromLink(await link('mac', '/var/db/timezone/zoneinfo/Europe/Paris'))).toBe('Europe/Paris');
    expect(zoneFromLink(await link('linux', '../usr/share/zoneinfo/America/Argentina/Buenos_Aires'))).toBe(
      'America/Argentina/Buenos_Aires',
    );
    expect(zoneFromLink(await link('utc', '/usr/share/zoneinfo/Etc/UTC'))).toBe('UTC');
    expect(zoneFromLink(await link('gmt', '/usr/share/zoneinfo/Etc/GMT+5'))).toBe('Etc/GMT+5');
  });

  it('says nothing for a file, a missing link, posix/ and right/ zones, or an odd target', async () => {
    await writeFile(join(dir, 'file'), 'TZif');
    expect(zoneFromLink(join(dir, 'file'))).toBeUndefined();
    expect(zoneFromLink(join(dir, 'missing'))).toBeUndefined();
    expect(zoneFromLink(await link('posix', '/usr/share/zoneinfo/posix/Europe/Paris'))).toBeUndefined();
    expect(zoneFromLink(await link('right', '/usr/share/zoneinfo/right/UTC'))).toBeUndefined();
    expect(zoneFromLink(await link('odd', '/opt/zones/paris'))).toBeUndefined();
    expect(zoneFromLink(await link('space', '/usr/share/zoneinfo/Europe/Par is'))).toBeUndefined();
  });

  it("gives a zone Intl knows, and the process zone's stamp is the one Intl would write", () => {
    const tz = processTimeZone();
    const intl = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    for (const d of [
      new Date(),
      new Date('2026-03-29T01:30:00Z'),
      new Date('2026-10-25T00:59:00Z'),
      new Date('2024-02-29T23:59:00Z'),
    ]) {
      const p = Object.fromEntries(intl.formatToParts(d).map((x) => [x.type, x.value]));
      expect(localStamp(d, tz)).toBe(`${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}`);
    }
  });

  it('with TZ set, takes the zone from it and stamps across daylight-saving changes as Intl does', () => {
    const script = `
      import { localStamp, processTimeZone } from ${JSON.stringify(join(import.meta.dirname, '../../../src-main/core/util/localZone.ts'))};
      const tz = processTimeZone();
      const intl = new Intl.DateTimeFormat('en-US', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
      const out = [tz];
      for (const iso of ['2026-03-29T00:59:00Z', '2026-03-29T01:00:00Z', '2026-10-25T00:59:00Z', '2026-10-25T01:00:00Z']) {
        const d = new Date(iso);
        const p = Object.fromEntries(intl.formatToParts(d).map((x) => [x.type, x.value]));
        out.push(localStamp(d, tz) + ' ' + p.year + '-' + p.month + '-' + p.day + ' ' + p.hour + ':' + p.minute);
      }
      console.log(JSON.stringify(out));`;
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      env: { ...process.env, TZ: 'Europe/Paris' },
      encoding: 'utf8',
    });
    expect(r.stderr).toBe('');
    const [tz, ...pairs] = JSON.parse(r.stdout) as string[];
    expect(tz).toBe('Europe/Paris');
    expect(pairs).toEqual([
      '2026-03-29 01:59 2026-03-29 01:59',
      '2026-03-29 03:00 2026-03-29 03:00',
      '2026-10-25 02:59 2026-10-25 02:59',
      '2026-10-25 02:00 2026-10-25 02:00',
    ]);
  });

  it('writes another zone through Intl', () => {
    expect(localStamp(new Date('2026-07-01T12:34:00Z'), 'Asia/Tokyo')).toBe('2026-07-01 21:34');
    expect(localStamp(new Date('2026-01-01T00:05:00Z'), 'America/New_York')).toBe('2025-12-31 19:05');
  });
});
