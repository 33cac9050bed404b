/** `system_info`: facts about this machine the model cannot see otherwise. */
import { callSummaryOf } from '../../api/toolSummary.js';
import { statfs } from 'node:fs/promises';
import os from 'node:os';
import { z } from 'zod';
import { okResult, type Tool } from '../tool.js';

const input = z.strictObject({});
export type SystemInfoInput = z.infer<typeof input>;

const PLATFORM_NAMES: Partial<Record<NodeJS.Platform, string>> = { darwin: 'macOS', linux: 'Linux', win32: 'Windows' };

export function formatBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${u === 0 ? v : v.toFixed(1)} ${units[u]}`;
}

export const systemInfoTool: Tool<SystemInfoInput> = {
  name: 'system_info',
  source: 'local',
  description:
    'Describe this computer: operating system and version, CPU architecture and model, core count, memory, ' +
    'hostname, Node.js version, and total/free disk space of the working folder’s disk.',
  input,
  isReadOnly: () => true,
  isDestructive: () => false,
  summarize: (i) => callSummaryOf('system_info', i),

  async call(_i, ctx) {
    const cpus = os.cpus();
    const platform = process.platform;
    const lines = [
      `os: ${PLATFORM_NAMES[platform] ?? platform} (${os.type()} ${os.release()})`,
      `os version: ${os.version()}`,
      `arch: ${os.arch()}`,
      `hostname: ${os.hostname()}`,
      `cpus: ${cpus.length}${cpus[0] ? ` × ${cpus[0].model.trim()}` : ''}`,
      `memory: ${formatBytes(os.totalmem())} total, ${formatBytes(os.freemem())} free`,
      `node: ${process.version}`,
    ];
    try {
      const fsInfo = await statfs(ctx.cwd);
      lines.push(
        `disk (${ctx.cwd}): ${formatBytes(fsInfo.blocks * fsInfo.bsize)} total, ${formatBytes(fsInfo.bavail * fsInfo.bsize)} free`,
      );
    } catch (e) {
      lines.push(`disk (${ctx.cwd}): unknown (${e instanceof Error ? e.message : String(e)})`);
    }
    return okResult(lines.join('\n'));
  },
};
