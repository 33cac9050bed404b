/** Where Rein keeps its files. REIN_HOME overrides the default ~/.rein (tests always set it). */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { AGENT_NAME_PATTERN } from '../api/patterns.js';

export function reinHome(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.REIN_HOME?.trim();
  if (fromEnv) return resolve(fromEnv);
  return join(homedir(), '.rein');
}

export const AGENT_NAME_RE = AGENT_NAME_PATTERN;
export const DEFAULT_AGENT = 'default';

export const paths = {
  globalConfig: (home: string) => join(home, 'config.yaml'),
  projectConfig: (cwd: string) => join(cwd, '.rein', 'config.yaml'),
  /** The folders whose project overlay the person trusts, with the overlay's sha256 (config/trustedFolders.ts). */
  trustedFolders: (home: string) => join(home, 'trusted-folders.json'),
  agentDir: (home: string, agent: string) => join(home, 'agents', agent),
  /** The default agent keeps its sessions at the top; named agents in their own folder. */
  sessionsDir: (home: string, agent: string = DEFAULT_AGENT) =>
    agent === DEFAULT_AGENT ? join(home, 'sessions') : join(home, 'agents', agent, 'sessions'),
  logsDir: (home: string) => join(home, 'logs'),
  auditLog: (home: string) => join(home, 'logs', 'audit.jsonl'),
};
