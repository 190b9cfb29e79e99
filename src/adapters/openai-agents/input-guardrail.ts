/**
 * `hyphaeToolInputGuardrail`: a tool input guardrail that stops a run the guards stopped. It
 * counts nothing itself (the tool wrapper runs the fuses), so it never double-counts a call.
 */

import { checkArguments } from '../../invalid-argument.js';
import type { GuardPipeline } from '../pipeline.js';
import { type AgentRunRegistry, agentRunRegistry, toPipeline } from './run-registry.js';
import type {
  AgentGuardrailOptions,
  AgentGuards,
  AgentToolGuardrailData,
  AgentToolGuardrailOutput,
  AgentToolInputGuardrail,
} from './types.js';

/** The guardrail over a registry (shared with the tool wrappers of the same pipeline). */
export function stoppedRunGuardrail(
  registry: AgentRunRegistry,
  options: AgentGuardrailOptions,
): AgentToolInputGuardrail {
  const onStopped = options.onStopped ?? 'halt';
  async function run(data: AgentToolGuardrailData): Promise<AgentToolGuardrailOutput> {
    const guardRun = registry.runFor(data.context, options);
    const stoppedBy = guardRun.stopped;
    if (stoppedBy === null) return { behavior: { type: 'allow' } };
    const outputInfo = { code: stoppedBy.code, stage: stoppedBy.stage, reason: stoppedBy.reason };
    if (onStopped === 'halt') return { behavior: { type: 'throwException' }, outputInfo };
    // The pipeline refuses a call of a stopped run before anything else, in its own words.
    const outcome = await guardRun.executeToolCall(
      { id: data.toolCall.callId, name: data.toolCall.name ?? '', args: {} },
      undefined,
    );
    const message = outcome.status === 'ok' ? stoppedBy.message : outcome.message;
    return { behavior: { type: 'rejectContent', message }, outputInfo };
  }
  return Object.freeze({ type: 'tool_input', name: options.name ?? 'hyphae', run });
}

/**
 * A tool input guardrail for `@openai/agents` that ends a run the guards stopped: once a terminal
 * refusal (a fuse, the budget, a corrupt ledger) stopped the run, the next tool call trips it and
 * `run()` rejects with the SDK's `ToolInputGuardrailTripwireTriggered` (or, with
 * `onStopped: 'reject'`, the call is answered with a refusal). `guardAgentTool` adds it for you.
 *
 * @example
 * import { tool } from '@openai/agents';
 * import { hyphaeToolInputGuardrail } from 'hyphae/openai-agents';
 *
 * const refund = tool({ name: 'refund', parameters, execute, inputGuardrails: [hyphaeToolInputGuardrail(pipeline)] });
 */
export function hyphaeToolInputGuardrail(
  guards: AgentGuards,
  options: AgentGuardrailOptions = {},
): AgentToolInputGuardrail {
  checkArguments('hyphaeToolInputGuardrail', { guards, options });
  const pipeline: GuardPipeline = toPipeline(guards);
  return stoppedRunGuardrail(agentRunRegistry(pipeline), options);
}
