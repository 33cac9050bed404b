/**
 * `rein doctor [--json]`: what Rein depends on, checked in one go (core/doctor/doctor.ts). Prints one
 * line per check (✓ ok, ! warn, ✗ fail, with what to do), or `{ok, checks: [{name, status, message,
 * hint?}]}` with --json. Exit code 0 when nothing failed, 1 when something did, 2 for bad usage.
 */
import { parseArgs } from 'node:util';
import { reinHome } from '../../core/config/paths.js';
import { runDoctor } from '../../core/doctor/doctor.js';
import { UsageError, type CliIo } from '../io.js';

export const DOCTOR_HELP = `Usage:
  rein doctor [--online] [--json]

Checks Rein's folder, config.yaml, the model's key and address, the agents and their MCP server
entries, the schedules' launchd jobs, the daemon, the accessibility helper, system notifications,
the search index and what interrupted saves left behind. Local only: no model call, no MCP connection, nothing changed. With --online, also
one request of one token to the model and one connection to each enabled MCP server.
Each line: ✓ ok, ! works but worth a look, ✗ will not work (with what to do).
Exit code: 0 when nothing failed, 1 when a check failed, 2 for bad usage.
`;

const MARK = { ok: '✓', warn: '!', fail: '✗' } as const;

export async function doctorCommand(argv: string[], io: CliIo): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { json: { type: 'boolean' }, online: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
      allowPositionals: false,
    }));
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  if (values.help) {
    io.stdout.write(DOCTOR_HELP);
    return 0;
  }
  const report = await runDoctor({ home: reinHome(io.env), cwd: io.cwd, env: io.env, online: values.online ?? false });
  if (values.json) io.stdout.write(`${JSON.stringify(report)}\n`);
  else {
    const width = Math.max(...report.checks.map((c) => c.name.length));
    for (const c of report.checks) {
      io.stdout.write(`${MARK[c.status]} ${c.name.padEnd(width)}  ${c.message}\n`);
      if (c.hint) io.stdout.write(`  ${' '.repeat(width)}  → ${c.hint}\n`);
    }
  }
  return report.ok ? 0 : 1;
}
