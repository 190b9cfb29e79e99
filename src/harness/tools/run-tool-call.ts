/**
 * One tool call through the pipeline: lookup → input validation → middleware → call budget →
 * loop guard → execute (time-limited) → result checks → evidence. Budgets are charged only
 * once the call has passed validation and middleware.
 */
import { toJsonPointer } from '../../boundary/issues.js';
import { canonicalJson } from '../../core/canonical-json.js';
import { codeList } from '../../core/code-list.js';
import { RunLimit, RunLimitExceededError, runStopped, ToolRaisedError } from '../errors.js';
import type { JsonValue } from '../json-patch/apply-json-patch.js';
import type { ModelToolCall, ToolResultMessage } from '../models/types.js';
import { DeadlineExceededError, withinDeadline } from '../run/race.js';
import type { RunContext } from '../run/run-context.js';
import { type ToolContext, type ToolOutcome, type ToolOutcomeError, ToolOutcomeStatus } from './agent-tool.js';
import { registerCharge } from './call-charge.js';
import type { CompiledTool } from './compile-tools.js';
import { ToolCallError } from './tool-call-error.js';

/** Where a call sits in its step. */
export interface CallPlace {
  readonly step: number;
  readonly stepId: string;
  readonly batchId: string;
  readonly position: number;
  readonly batchSize: number;
}

/** A finished call: its outcome and the message the model is shown. */
export interface ToolCallEnd {
  readonly outcome: ToolOutcome;
  readonly message: ToolResultMessage;
}

/** A call ended before or after running, with everything the outcome needs. */
interface Ending {
  readonly status: ToolOutcomeStatus;
  readonly error?: ToolOutcomeError;
  readonly result?: JsonValue;
  readonly view?: JsonValue;
  readonly evidenceRef?: string;
  readonly content?: string;
}

function errorText(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const { llmMessage, message } = error as { llmMessage?: unknown; message?: unknown };
    if (typeof llmMessage === 'string' && llmMessage !== '') return llmMessage;
    if (typeof message === 'string' && message !== '') return message;
  }
  return String(error);
}

function byteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** Run the tool body within its time limit; an abort by the caller or the run passes through unchanged. */
async function execute(run: RunContext, tool: CompiledTool, input: unknown, state: CallState) {
  const done = await withinDeadline(
    run,
    tool.timeoutMs,
    () => new DeadlineExceededError('the call', tool.timeoutMs),
    (timeoutSignal) => {
      const full: ToolContext = { ...state.context, timeoutSignal };
      if (tool.selfCharged) {
        registerCharge(full, () => {
          state.charged = true;
        });
      }
      return tool.tool.execute(input, full);
    },
  );
  if (done.ok) return { ok: true as const, value: done.value };
  // A built-in that hit one of this run's limits (the provider-token budget) stops the run.
  if (done.error instanceof RunLimitExceededError && done.error.runId === run.runId) throw done.error;
  return {
    ok: false as const,
    status: done.timedOut ? ToolOutcomeStatus.timed_out : ToolOutcomeStatus.failed,
    error: done.error,
  };
}

function finishResult(run: RunContext, tool: CompiledTool, value: unknown, callId: string): Ending {
  let result: JsonValue;
  let canonical: string;
  try {
    canonical = canonicalJson(value === undefined ? null : value);
    result = JSON.parse(canonical) as JsonValue;
  } catch (error) {
    return {
      status: 'failed',
      error: { code: 'result_not_json', message: `The tool returned a value that is not JSON: ${errorText(error)}` },
    };
  }
  if (byteLength(canonical) > run.limits.maxEvidenceBytes) {
    const message = `The result is ${byteLength(canonical)} bytes, over the ${run.limits.maxEvidenceBytes}-byte limit`;
    return { status: 'failed', error: { code: 'result_too_large', message } };
  }
  if (!tool.keepsEvidence) return { status: 'succeeded', result, view: result, content: canonical };
  const ref = run.evidence.put(result, canonical);
  let view: JsonValue = result;
  if (tool.tool.modelView !== undefined) {
    try {
      view = JSON.parse(canonicalJson(tool.tool.modelView(result, { ref, callId }))) as JsonValue;
    } catch (error) {
      return {
        status: 'failed',
        error: { code: 'result_not_json', message: `The result's model view failed: ${errorText(error)}` },
      };
    }
  }
  return { status: 'succeeded', result, view, evidenceRef: ref, content: canonicalJson({ ref, result: view }) };
}

function callContext(run: RunContext, call: ModelToolCall, place: CallPlace): Omit<ToolContext, 'timeoutSignal'> {
  return {
    loadInputArtifact: (id: string) => run.inputs.load(id),
    renderedArtifacts: run.renders.artifacts(),
    approvedAssets: run.assets.approved(),
    runId: run.runId,
    step: place.step,
    stepId: place.stepId,
    batchId: place.batchId,
    position: place.position,
    batchSize: place.batchSize,
    callId: call.id,
    design: run.design,
    capabilities: run.capabilities,
    inputArtifacts: run.inputs.descriptors,
    ...(run.signal === undefined ? {} : { signal: run.signal }),
  };
}

/** A call being processed: what its ending needs to know. */
interface CallState {
  readonly run: RunContext;
  readonly call: ModelToolCall;
  readonly place: CallPlace;
  readonly context: Omit<ToolContext, 'timeoutSignal'>;
  readonly started: number;
  charged: boolean;
}

function eventBase(state: CallState) {
  const { call, place } = state;
  return { stepId: place.stepId, batchId: place.batchId, callId: call.id, tool: call.name, position: place.position };
}

function startCall(run: RunContext, call: ModelToolCall, place: CallPlace): CallState {
  const state: CallState = {
    run,
    call,
    place,
    context: callContext(run, call, place),
    started: run.clock.now(),
    charged: false,
  };
  run.emit({ type: 'tool_call_started', ...eventBase(state) });
  return state;
}

/** Record how a call ended: the outcome, its event, the `after` middleware, and the model's message. */
async function endCall(state: CallState, ending: Ending): Promise<ToolCallEnd> {
  const { run, call, place } = state;
  const outcome: ToolOutcome = Object.freeze({
    callId: call.id,
    tool: call.name,
    status: ending.status,
    step: place.step,
    stepId: place.stepId,
    batchId: place.batchId,
    position: place.position,
    input: call.input,
    ...(ending.result === undefined ? {} : { result: ending.result, view: ending.view as JsonValue }),
    ...(ending.evidenceRef === undefined ? {} : { evidenceRef: ending.evidenceRef }),
    ...(ending.error === undefined ? {} : { error: ending.error }),
    charged: state.charged,
    elapsedMs: run.clock.now() - state.started,
  });
  run.emit({ type: 'tool_call_finished', ...eventBase(state), status: outcome.status, elapsedMs: outcome.elapsedMs });
  for (const middleware of run.middleware) {
    await middleware.after?.(outcome, { ...state.context, timeoutSignal: run.runTimeout });
  }
  const message: ToolResultMessage = {
    role: 'tool',
    toolCallId: call.id,
    toolName: call.name,
    content: ending.content ?? canonicalJson({ status: ending.status, error: ending.error ?? null }),
    isError: ending.status !== 'succeeded',
    ...(ending.evidenceRef === undefined ? {} : { evidenceRef: ending.evidenceRef }),
  };
  return { outcome, message };
}

/** Answer a call that will not run (for example one past the per-turn limit). */
export function rejectCall(
  run: RunContext,
  call: ModelToolCall,
  place: CallPlace,
  code: string,
  message: string,
): Promise<ToolCallEnd> {
  return endCall(startCall(run, call, place), { status: 'rejected', error: { code, message } });
}

/** Checks before anything is charged: lookup, input, middleware, the tool's call budget. */
async function admit(
  state: CallState,
  tool: CompiledTool | undefined,
  offered: ReadonlyMap<string, CompiledTool>,
): Promise<Ending | null> {
  const { call, run } = state;
  const rejected = (code: string, message: string): Ending => ({ status: 'rejected', error: { code, message } });
  if (tool === undefined) {
    return rejected('unknown_tool', `Unknown tool \`${call.name}\` (available: ${codeList(offered.keys())})`);
  }
  if (call.inputError !== undefined)
    return rejected('invalid_input', `The input of \`${call.name}\` is unusable: ${call.inputError}`);
  const checked = tool.schema.validate(call.input);
  if (!checked.ok) {
    const issues = checked.issues.map((issue) => `${toJsonPointer(issue.path) || '/'}: ${issue.message}`).join('; ');
    return rejected('invalid_input', `The input of \`${call.name}\` is invalid: ${issues}`);
  }
  const problem = tool.precheck?.(call.input) ?? null;
  if (problem !== null) return rejected('invalid_input', `The input of \`${call.name}\` is invalid: ${problem}`);
  for (const middleware of run.middleware) {
    const info = { callId: call.id, tool: call.name, input: call.input };
    const decision = await middleware.before?.(info, { ...state.context, timeoutSignal: run.runTimeout });
    if (decision === undefined || decision.action === 'allow') continue;
    if (decision.action === 'defer')
      return { status: 'deferred', error: { code: 'deferred', message: decision.message } };
    return rejected('middleware_rejected', decision.message);
  }
  if (!tool.selfCharged && (run.callCounts.get(tool.name) ?? 0) >= tool.maxCalls) {
    return rejected(
      'call_budget_exhausted',
      `\`${tool.name}\` has used its ${tool.maxCalls} calls for this run; continue without it`,
    );
  }
  return null;
}

/** Run one call of a model turn. Throws only to stop the run (an abort, a guard, a `raise` tool). */
export async function runToolCall(
  run: RunContext,
  offered: ReadonlyMap<string, CompiledTool>,
  call: ModelToolCall,
  place: CallPlace,
): Promise<ToolCallEnd> {
  const state = startCall(run, call, place);
  const tool = offered.get(call.name);
  const refused = await admit(state, tool, offered);
  if (refused !== null || tool === undefined) return endCall(state, refused as Ending);
  const verdict = run.fuses.checkToolCall({ id: call.id, name: call.name, args: call.input });
  if (!verdict.allowed) {
    // Answered first, so the call's events and middleware see how it ended; then the run stops.
    await endCall(state, { status: 'rejected', error: { code: 'identical_call', message: verdict.note } });
    throw runStopped(run.runId, RunLimit.maxIdenticalToolCalls, run.limits.maxIdenticalToolCalls ?? 0, verdict.reason);
  }
  if (!tool.selfCharged) {
    run.callCounts.set(tool.name, (run.callCounts.get(tool.name) ?? 0) + 1);
    state.charged = true;
  }

  const executed = await execute(run, tool, call.input, state);
  let ending: Ending = executed.ok
    ? finishResult(run, tool, executed.value, call.id)
    : executed.error instanceof ToolCallError && executed.status === 'failed'
      ? { status: executed.error.status, error: { code: executed.error.code, message: executed.error.message } }
      : {
          status: executed.status,
          error: {
            code: executed.status === 'timed_out' ? 'timeout' : 'tool_error',
            message: errorText(executed.error),
          },
        };
  const bytes = ending.content === undefined ? 0 : byteLength(ending.content);
  if (ending.status === 'succeeded' && bytes > tool.maxResultBytes) {
    const message = `The result shown would be ${bytes} bytes, over the ${tool.maxResultBytes}-byte limit of \`${tool.name}\``;
    ending = { status: 'failed', error: { code: 'result_too_large', message } };
  }
  const end = await endCall(state, ending);
  if (ending.status !== 'succeeded') {
    if (tool.failureMode !== 'raise') return end;
    const reason = ending.error?.message ?? '';
    const cause = executed.ok ? undefined : executed.error;
    throw new ToolRaisedError({
      tool: tool.name,
      callId: call.id,
      runId: run.runId,
      status: ending.status,
      reason,
      cause,
    });
  }
  run.fuses.recordToolResult({ id: call.id, name: call.name, args: call.input, result: ending.result });
  run.toolResultBytes += bytes;
  const cap = run.limits.maxToolResultBytesPerRun;
  if (cap !== undefined && run.toolResultBytes > cap) {
    const reason = `tool results reached ${run.toolResultBytes} bytes, over the ${cap}-byte limit`;
    throw runStopped(run.runId, RunLimit.maxToolResultBytesPerRun, cap, reason);
  }
  return end;
}
