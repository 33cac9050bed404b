/** `think`: a place for the model to reason between steps; it changes nothing. */
import { callSummaryOf } from '../../api/toolSummary.js';
import { z } from 'zod';
import { okResult, type Tool } from '../tool.js';
import { THINK_TRAITS } from './builtinTraits.js';

const input = z.strictObject({
  thought: z.string().min(1).describe('Your reasoning: what you know, what is unclear, what to do next.'),
});
export type ThinkInput = z.infer<typeof input>;

export const thinkTool: Tool<ThinkInput> = {
  name: 'think',
  traits: THINK_TRAITS,
  source: 'local',
  description:
    'Think through a problem before acting: sort out what the results so far mean, check a plan, or decide between options. ' +
    'It has no side effects and returns only an acknowledgement; continue with the next step afterwards.',
  input,
  isReadOnly: () => true,
  isDestructive: () => false,
  summarize: (i) => callSummaryOf('think', i),
  // The thought is already in the transcript as the call's input; echoing it would only cost tokens.
  call: async () => okResult('Thought noted. Continue with the next step.'),
};
