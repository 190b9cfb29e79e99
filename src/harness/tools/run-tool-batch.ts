/**
 * The tool calls of one model turn: in order, or concurrently when parallel execution is on and
 * every call is parallel-safe. Results always come back in call order, one per call.
 */

import type { ModelToolCall } from '../models/types.js';
import type { RunContext } from '../run/run-context.js';
import type { CompiledTool } from './compile-tools.js';
import { rejectCall, runToolCall, type ToolCallEnd } from './run-tool-call.js';

/** Run every call of a turn; calls past `maxToolCallsPerStep` are answered as rejected without running. */
export async function runToolBatch(
  run: RunContext,
  offered: ReadonlyMap<string, CompiledTool>,
  calls: readonly ModelToolCall[],
  step: number,
  stepId: string,
): Promise<ToolCallEnd[]> {
  const batchId = `${stepId}/batch`;
  const limit = run.limits.maxToolCallsPerStep;
  const place = (position: number) => ({ step, stepId, batchId, position, batchSize: calls.length });
  const admitted = calls.slice(0, limit);
  const parallel =
    run.limits.parallelToolCalls &&
    admitted.length > 1 &&
    admitted.every((call) => offered.get(call.name)?.parallelSafe === true);
  const ends: ToolCallEnd[] = [];
  if (parallel) {
    ends.push(
      ...(await Promise.all(admitted.map((call, position) => runToolCall(run, offered, call, place(position))))),
    );
  } else {
    for (const [position, call] of admitted.entries())
      ends.push(await runToolCall(run, offered, call, place(position)));
  }
  for (let position = admitted.length; position < calls.length; position++) {
    const message = `Only ${limit} tool calls are run per turn; repeat this one in a later turn if it is still needed`;
    ends.push(await rejectCall(run, calls[position] as ModelToolCall, place(position), 'too_many_calls', message));
  }
  return ends;
}
