/**
 * The session JSON files of every agent under one REIN_HOME, which are the truth the index is rebuilt
 * from: the default agent's in `<home>/sessions/`, each named agent's in `<home>/agents/<name>/sessions/`.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { AGENT_NAME_RE, DEFAULT_AGENT, paths } from '../config/paths.js';
import { isSessionId } from '../sessions/id.js';

export interface AgentSessionFiles {
  agent: string;
  dir: string;
  /** Session ids that have a `<id>.json` file in `dir`, oldest first (ids start with their date). */
  ids: string[];
}

export async function listAgentSessionFiles(home: string): Promise<AgentSessionFiles[]> {
  const agents = [DEFAULT_AGENT, ...(await namedAgents(home))];
  const out: AgentSessionFiles[] = [];
  for (const agent of agents) {
    const dir = paths.sessionsDir(home, agent);
    const ids = (await namesIn(dir))
      .filter((n) => n.endsWith('.json'))
      .map((n) => n.slice(0, -5))
      .filter(isSessionId)
      .sort();
    out.push({ agent, dir, ids });
  }
  return out;
}

async function namedAgents(home: string): Promise<string[]> {
  // `agents/default/` would shadow the default agent, whose sessions live at the top: not an agent folder.
  return (await namesIn(join(home, 'agents'))).filter((n) => AGENT_NAME_RE.test(n) && n !== DEFAULT_AGENT).sort();
}

async function namesIn(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    throw e;
  }
}
