/**
 * One LangChain tool call through the pipeline, answered with a `ToolMessage` carrying its id —
 * the core shared by the middleware's `wrapToolCall` and the guarded tools of a `ToolNode`.
 */
import { isGraphBubbleUp } from '@langchain/langgraph';
import { isAbortError } from '../shared/abort.js';
import { ToolCallRefusedError } from '../shared/errors.js';
import type { GuardRun } from '../shared/run-types.js';
import type { ToolCallOutcome } from '../shared/types.js';
import {
  errorToolMessage,
  replayedToolMessage,
  replayedValue,
  storedResultOf,
  ToolErrorResult,
} from './tool-results.js';
import type { LangChainToolCall } from './types.js';

/** A call and how to run the framework's tool for it. */
export interface LangChainCall {
  readonly call: LangChainToolCall;
  readonly signal: AbortSignal | undefined;
  /** Runs the tool with the (validated) arguments: a `ToolMessage`, a `Command` or a raw value. */
  readonly execute: (args: unknown) => Promise<unknown>;
}

/** What the body returned now, kept so that a live answer is exactly what the tool produced. */
interface LiveOutput {
  value?: unknown;
}

function runGuarded(run: GuardRun, request: LangChainCall, live: LiveOutput): Promise<ToolCallOutcome> {
  const { call, signal } = request;
  // No await before this call: parallel siblings must reach the pipeline in order.
  return run.executeToolCall(
    { id: call.id, name: call.name, args: call.args ?? {} },
    async (args) => {
      const output = await request.execute(args);
      live.value = output;
      return storedResultOf(output);
    },
    { abortSignal: signal },
  );
}

/**
 * Re-throw what is the framework's control flow: graph interrupts and bubble-ups, aborts. (When
 * LangGraph resumes, it runs the interrupted call again with the same id; the pipeline knows it
 * as a redispatch and does not count it twice in the fuses.)
 */
function rethrowControlFlow(outcome: ToolCallOutcome, signal: AbortSignal | undefined): void {
  if (outcome.status !== 'error') return;
  if (isGraphBubbleUp(outcome.error) || isAbortError(outcome.error, signal)) throw outcome.error;
}

/**
 * Guard a call that has a tool call id: the answer is a `ToolMessage` with that id (or the
 * tool's own `Command`). A refusal says the call did NOT happen; a failure says what failed; tool
 * errors never escape, but LangGraph's interrupts and aborts do.
 */
export async function guardToolCall(run: GuardRun, request: LangChainCall): Promise<unknown> {
  const live: LiveOutput = {};
  const outcome = await runGuarded(run, request, live);
  rethrowControlFlow(outcome, request.signal);
  return answerOf(outcome, request, live);
}

function answerOf(outcome: ToolCallOutcome, request: LangChainCall, live: LiveOutput): unknown {
  switch (outcome.status) {
    case 'ok':
      return outcome.source === 'tool' && 'value' in live
        ? live.value
        : replayedToolMessage(outcome.result, request.call);
    case 'refused':
      return errorToolMessage(request.call, outcome.message);
    case 'error':
      if (outcome.error instanceof ToolErrorResult) return outcome.error.toolMessage;
      return errorToolMessage(request.call, outcome.message);
  }
}

/**
 * Guard a direct `tool.invoke(args)` (no tool call to answer): the tool's value, or a throw —
 * {@link ToolCallRefusedError} for a refusal, the tool's own error for a failure.
 */
export async function guardDirectCall(run: GuardRun, request: LangChainCall): Promise<unknown> {
  const live: LiveOutput = {};
  const outcome = await runGuarded(run, request, live);
  rethrowControlFlow(outcome, request.signal);
  switch (outcome.status) {
    case 'ok':
      return outcome.source === 'tool' && 'value' in live ? live.value : replayedValue(outcome.result);
    case 'refused':
      throw new ToolCallRefusedError(request.call.name, request.call.id, outcome);
    case 'error':
      throw outcome.error instanceof ToolErrorResult ? new Error(outcome.error.message) : outcome.error;
  }
}
