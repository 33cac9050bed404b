/**
 * A run's loop input and dependencies from its runtime: the prompt parts gathered once session_start
 * is out (instructions, memory, consolidated first when due), the tool context, and the saves.
 */
import { errorMessage } from '../errors.js';
import { homedir } from 'node:os';
import { commandClassifier } from '../permissions/commandRules.js';
import { egressCheck } from '../permissions/egress.js';
import { reinPorts } from '../permissions/reinGuards.js';
import { SessionReadTracker } from '../tools/readTracker.js';
import type { ToolContext } from '../tools/tool.js';
import { sessionSlots } from '../tools/sessionSlots.js';
import type { SessionFile } from '../sessions/types.js';
import { noteSavedSession } from '../sessions/indexNotes.js';
import type { PreparedParts, RunSetup } from '../harness/loop.js';
import { loadInstructions } from '../instructions/index.js';
import { consolidateMemory, consolidationDue, loadMemory, shouldConsolidate } from '../memory/index.js';
import { protectedMemoryPaths } from '../memory/files.js';
import { ELICITATION_SLOT } from '../mcpClient/elicitation.js';
import { SAMPLING_SLOT } from '../mcpClient/sampling.js';
import { runElicitor, runSampler } from './serverQuestions.js';
import type { StartRunOptions } from './startRun.js';
import type { Runtime } from './types.js';

/**
 * Saves the run's session and notes it for the search index (search/pendingIndex.ts: an append at its
 * first save, else a stat), so a run killed at any moment after that is found by the next search. A note
 * that cannot be written only costs time: the index checks the session folders when it opens.
 */
async function saveAndNote(rt: Runtime, home: string, s: SessionFile): Promise<void> {
  await rt.store.save(s);
  await noteSavedSession(home, { agent: rt.agent, id: s.id }).catch(() => undefined);
}

/** The run's loop input and dependencies from its runtime. */
export function loopParts(
  rt: Runtime,
  opts: Omit<StartRunOptions, 'session' | 'sessionId'>,
  session: SessionFile,
): Awaited<ReturnType<RunSetup>> {
  const warnings = [...rt.warnings];

  const memoryDir = rt.agentConfig.memoryDir;
  const cache = rt.cache;
  const pace = opts.pace;
  const isolated = rt.isolated;
  // Run by the loop once session_start is out: consolidation may call the model and take seconds.
  const prepare = async (): Promise<PreparedParts> => {
    // An isolated run reads no instruction files and no memory: its prompt is what the caller made it.
    if (isolated) return { instructions: isolated.instructions, warnings: [] };
    const problems: string[] = [];
    try {
      if (
        cache ? consolidationDue(await cache.consolidation(memoryDir), new Date()) : await shouldConsolidate(memoryDir)
      ) {
        await consolidateMemory(memoryDir, {
          llm: rt.llm,
          model: rt.agentConfig.effective.smallModel,
          signal: opts.signal,
        });
      }
    } catch (err) {
      problems.push(`memory consolidation failed (memory left as it was): ${errorMessage(err)}`);
    }
    const [instructions, memory] = await Promise.all([
      (cache ? cache.instructions(opts.home, opts.cwd) : loadInstructions({ home: opts.home, cwd: opts.cwd })).catch(
        (err: unknown) => {
          problems.push(`instructions could not be read: ${errorMessage(err)}`);
          return undefined;
        },
      ),
      (cache ? cache.memory(memoryDir) : loadMemory(memoryDir)).catch(() => ''),
    ]);
    for (const p of instructions?.problems ?? []) problems.push(`instructions ${p.file}: ${p.message}`);
    return {
      ...(instructions?.text ? { instructions: instructions.text } : {}),
      ...(memory ? { memory } : {}),
      warnings: problems,
    };
  };

  const toolContext: ToolContext = {
    cwd: opts.cwd,
    sessionId: session.id,
    sessionDir: rt.store.sideDir(session.id),
    reinHome: opts.home,
    agent: rt.agent,
    readTracker: new SessionReadTracker(),
    // The policy has already decided about the URL (loopback and network_allowlist run, other hosts ask a
    // person); here only the scheme is checked again, e.g. for a URL a hook rewrote.
    // Rein's own daemon is refused here too (a PreToolUse hook may have rewritten the URL).
    egress:
      opts.egress ??
      egressCheck(rt.config.permissions, {
        unlisted: 'allow',
        reinPorts: () => reinPorts(opts.home, [rt.config.daemon.port]),
      }),
    // Secret-looking variables the person lets commands see (the rest of them, and Rein's credentials, never).
    envPassthrough: rt.config.tools.env_passthrough,
    protectedPaths: cache ? cache.protectedPaths(memoryDir) : protectedMemoryPaths(memoryDir),
    // What a bash line does, judged in the call's own folder (the bash tool's read-only/concurrency hints).
    classifyCommand: commandClassifier(homedir()),
  };
  // An MCP server's question during a call goes to this run's faces (runElicitor).
  if (rt.mcp) {
    sessionSlots(toolContext).seed(ELICITATION_SLOT, runElicitor(rt, toolContext));
    sessionSlots(toolContext).seed(SAMPLING_SLOT, runSampler(rt, toolContext));
  }
  return {
    input: {
      prompt: opts.prompt,
      save: pace
        ? async (s) => {
            if (!isolated) await saveAndNote(rt, opts.home, s);
            await pace();
          }
        : (s) => (isolated ? Promise.resolve() : saveAndNote(rt, opts.home, s)),
      ...(rt.persona ? { persona: rt.persona } : {}),
      // The same array while the skills on disk are unchanged (RuntimeCache), so the catalogue text is rendered once.
      skills: isolated ? [] : rt.skills,
      prepare,
      memoryDir,
      ...(opts.sourceFacts ? { sourceFacts: opts.sourceFacts } : {}),
      ...(rt.mcp && !isolated ? { mcpContext: rt.mcp.context, mcpInstructions: rt.mcp.instructions } : {}),
      warnings,
      settings: rt.settings,
      toolContext,
      ...(opts.inbox ? { inbox: opts.inbox } : {}),
    },
    deps: {
      llm: rt.llm,
      // Read at every step, so tools an MCP server added during the run can be called in it.
      get registry() {
        return rt.registry;
      },
      policy: rt.policy,
      broker: rt.broker,
      hooks: rt.config.hooks,
      audit: rt.audit,
      onAlwaysAllow: rt.onAlwaysAllow,
    },
  };
}
