/**
 * One model turn through the boundary: ask the model, check every tool call it proposes, send
 * refusals back (one tool message per tool call id), and run the calls once they all pass.
 *
 * Protocol. `invokeLlm({ messages, attempt, signal })` receives the transcript in OpenAI Chat
 * Completions shape and returns the assistant message (`{ role: 'assistant', content,
 * tool_calls: [{ id, type: 'function', function: { name, arguments } }] }`). If any proposed call
 * is refused (unknown tool, unparseable or invalid arguments, out-of-scope path or id), none of the
 * turn's calls run: the assistant message and one tool message per call id (the refusal, or "not
 * run because a sibling was refused") are appended and the model is asked again, up to
 * `maxLlmRetries` times. A retry that reuses a call id replaces the earlier round that used it,
 * so the transcript never holds two answers for one id. When every call passes, they run in order
 * and the turn ends; a turn without tool calls ends at once.
 *
 * A `read` / `idempotent_mutate` call whose output keeps failing validation is run again up to
 * `maxToolRetries` times; then its error (and "not run" for the calls after it) is appended and the
 * model is asked again, from the same `maxLlmRetries` budget. That round ran tools, so it stays in
 * the transcript as it is: a later message that reuses one of its call ids is refused
 * (`duplicate_tool_call_id`). Once the budget is spent, `ToolBoundaryExhaustedError` (budget
 * `llm_retries`). A mutating call whose output failed is never run again, by the runner or through
 * the model: the model is told it WAS executed and the turn ends.
 */
import { GuardError } from '../errors.js';
import type { ChatMessage, ChatToolCall, LlmAssistantMessage, ToolCallRequest, ToolMessage } from './chat.js';
import { usedToolCallIds } from './chat.js';
import { ToolBoundaryError, ToolBoundaryExhaustedError, ToolRegistryError } from './errors.js';
import {
  executeWithRetries,
  type ParseToolArgs,
  type PreparedCall,
  prepareCall,
  type ToolLookup,
} from './tool-execution.js';

/** What {@link InvokeLlm} receives. `attempt` is 1 for the first request of the turn. */
export interface LlmRequest {
  readonly messages: readonly ChatMessage[];
  readonly attempt: number;
  readonly signal?: AbortSignal;
}

/** Asks the model for its next message. */
export type InvokeLlm = (request: LlmRequest) => LlmAssistantMessage | Promise<LlmAssistantMessage>;

/** Turns a tool's output into the content of its tool message. */
export type FormatToolResult = (output: unknown, call: ToolCallRequest) => string;

/** The outcome of one executed call: its output, or an error the model was told about. */
export type ToolCallResult =
  | { readonly id: string; readonly name: string; readonly ok: true; readonly output: unknown }
  | { readonly id: string; readonly name: string; readonly ok: false; readonly error: GuardError };

/** What a turn produced. */
export interface LlmTurnResult {
  /** The caller's messages, then this turn's assistant and tool messages (refused rounds included). */
  readonly messages: ChatMessage[];
  /** The model's last message. */
  readonly assistant: LlmAssistantMessage;
  /** The calls that ran, in order; empty when the model answered without tool calls. */
  readonly results: readonly ToolCallResult[];
  /** How many times the model was asked again. */
  readonly llmRetries: number;
}

/** Options of `runWithLlmRetry`. */
export interface LlmRetryOptions {
  readonly invokeLlm: InvokeLlm;
  /** The transcript so far; never modified. */
  readonly messages: readonly ChatMessage[];
  /** Overrides the runner's parser for this turn. */
  readonly parseToolArgs?: ParseToolArgs;
  readonly signal?: AbortSignal;
}

/** The runner's settings a turn needs. */
export interface TurnSettings {
  readonly registry: ToolLookup;
  readonly parse: ParseToolArgs;
  readonly format: FormatToolResult;
  readonly maxLlmRetries: number;
  readonly maxToolRetries: number;
}

interface Round {
  readonly ids: readonly string[];
  readonly messages: readonly ChatMessage[];
  /** A round whose calls ran: never replaced, its ids never answered again. */
  readonly ran: boolean;
}

/** How the calls of a message ran: all of them, or up to one whose output kept failing. */
type RunOutcome =
  | { readonly kind: 'done'; readonly results: ToolCallResult[] }
  | { readonly kind: 'output_failed'; readonly results: ToolCallResult[]; readonly error: ToolBoundaryExhaustedError };

/** True when the tool retries of a re-runnable call were spent on outputs that failed validation. */
function isOutputExhausted(error: ToolBoundaryExhaustedError): boolean {
  return (
    error.budget === 'tool_retries' &&
    error.lastError instanceof ToolBoundaryError &&
    error.lastError.violation === 'output_validation_failed'
  );
}

function toRequests(assistant: LlmAssistantMessage): ToolCallRequest[] {
  if (assistant === null || typeof assistant !== 'object' || assistant.role !== 'assistant') {
    throw new GuardError('invalid_llm_response', '`invokeLlm` must return an assistant message');
  }
  const calls: readonly ChatToolCall[] = assistant.tool_calls ?? [];
  const seen = new Set<string>();
  return calls.map((call) => {
    if (typeof call?.id !== 'string' || typeof call.function?.name !== 'string') {
      throw new GuardError('invalid_llm_response', 'Every tool call needs an `id` and a `function.name`');
    }
    if (seen.has(call.id))
      throw new GuardError('duplicate_tool_call_id', `Tool call id \`${call.id}\` appears twice in one message`);
    seen.add(call.id);
    return { id: call.id, name: call.function.name, args: call.function.arguments };
  });
}

function isModelFixable(error: unknown): error is GuardError {
  return error instanceof ToolRegistryError || (error instanceof ToolBoundaryError && !error.executed);
}

function toolMessage(id: string, content: string): ToolMessage {
  return { role: 'tool', tool_call_id: id, content };
}

function contentOf(error: GuardError): string {
  return error.llmMessage ?? error.message;
}

function siblingRefused(call: ToolCallRequest): string {
  return `The call to \`${call.name}\` was NOT executed because another tool call in the same message was refused. Call it again together with the corrected call.`;
}

/** What the model reads for a call whose outputs kept failing: how often, and the last problem. */
function outputFailed(error: ToolBoundaryExhaustedError): string {
  const last = error.lastError instanceof GuardError ? ` ${contentOf(error.lastError)}` : '';
  return `${contentOf(error)}${last}`;
}

function notRun(call: ToolCallRequest): string {
  return `The call to \`${call.name}\` was NOT executed because an earlier call in the same message failed.`;
}

async function runAll(
  settings: TurnSettings,
  prepared: readonly PreparedCall[],
  transcript: ChatMessage[],
  signal: AbortSignal | undefined,
): Promise<RunOutcome> {
  const results: ToolCallResult[] = [];
  for (const [index, item] of prepared.entries()) {
    const { id, name } = item.call;
    try {
      const output = await executeWithRetries(item, settings.maxToolRetries, signal);
      results.push({ id, name, ok: true, output });
      transcript.push(toolMessage(id, settings.format(output, item.call)));
    } catch (error) {
      if (error instanceof ToolBoundaryExhaustedError) {
        // Leave a well-formed transcript behind: every call of the message answered once.
        const output = isOutputExhausted(error);
        transcript.push(toolMessage(id, output ? outputFailed(error) : contentOf(error)));
        for (const rest of prepared.slice(index + 1)) transcript.push(toolMessage(rest.call.id, notRun(rest.call)));
        if (output) {
          results.push({ id, name, ok: false, error });
          return { kind: 'output_failed', results, error };
        }
        throw new ToolBoundaryExhaustedError(error.budget, error.attempts, error.lastError, { tool: name, transcript });
      }
      // Told to the model: an output that failed validation after a write ran, a ledger block, an identity conflict.
      if (!(error instanceof GuardError) || error.llmMessage === undefined) throw error;
      results.push({ id, name, ok: false, error });
      transcript.push(toolMessage(id, contentOf(error)));
    }
  }
  return { kind: 'done', results };
}

/** Run one model turn; see the module comment for the protocol. */
export async function runLlmTurn(settings: TurnSettings, options: LlmRetryOptions): Promise<LlmTurnResult> {
  const base = [...options.messages];
  const answered = usedToolCallIds(base);
  const parse = options.parseToolArgs ?? settings.parse;
  let rounds: Round[] = [];
  // Calls that ran in rounds the model was asked to follow up on.
  const ran: ToolCallResult[] = [];
  let lastError: unknown;
  for (let attempt = 1; attempt <= settings.maxLlmRetries + 1; attempt++) {
    options.signal?.throwIfAborted();
    const transcript = [...base, ...rounds.flatMap((round) => round.messages)];
    const request: LlmRequest = {
      messages: Object.freeze([...transcript]),
      attempt,
      ...(options.signal ? { signal: options.signal } : {}),
    };
    const assistant = await options.invokeLlm(request);
    const calls = toRequests(assistant);
    const reused = calls.find((call) => answered.has(call.id));
    if (reused !== undefined) {
      throw new GuardError(
        'duplicate_tool_call_id',
        `Tool call id \`${reused.id}\` was already answered earlier in the transcript`,
      );
    }
    // A retry that reuses an id replaces the refused round that used it: one answer per id.
    rounds = rounds.filter((round) => round.ran || !round.ids.some((id) => calls.some((call) => call.id === id)));
    const outcomes = await Promise.all(
      calls.map((call) =>
        prepareCall(settings.registry, parse, call).then(
          (prepared) => ({ ok: true, prepared }) as const,
          (error: unknown) => {
            if (!isModelFixable(error)) throw error;
            return { ok: false, error } as const;
          },
        ),
      ),
    );
    const refused = outcomes.find((outcome) => !outcome.ok);
    if (refused === undefined) {
      const done = [...base, ...rounds.flatMap((round) => round.messages), assistant];
      const prepared = outcomes.flatMap((outcome) => (outcome.ok ? [outcome.prepared] : []));
      const roundStart = done.length - 1;
      const outcome = await runAll(settings, prepared, done, options.signal);
      if (outcome.kind === 'done') {
        return { messages: done, assistant, results: [...ran, ...outcome.results], llmRetries: attempt - 1 };
      }
      // Outputs that kept failing: the model is asked again, with the round as it ran.
      lastError = outcome.error;
      ran.push(...outcome.results);
      for (const call of calls) answered.add(call.id);
      rounds.push({ ids: calls.map((call) => call.id), messages: done.slice(roundStart), ran: true });
      continue;
    }
    lastError = refused.error;
    const answers = calls.map((call, index) => {
      const outcome = outcomes[index];
      return toolMessage(
        call.id,
        outcome !== undefined && !outcome.ok ? contentOf(outcome.error) : siblingRefused(call),
      );
    });
    rounds.push({ ids: calls.map((call) => call.id), messages: [assistant, ...answers], ran: false });
  }
  const transcript = [...base, ...rounds.flatMap((round) => round.messages)];
  const tool =
    lastError instanceof ToolBoundaryError ||
    lastError instanceof ToolRegistryError ||
    lastError instanceof ToolBoundaryExhaustedError
      ? lastError.tool
      : undefined;
  throw new ToolBoundaryExhaustedError('llm_retries', settings.maxLlmRetries + 1, lastError, {
    ...(tool === undefined ? {} : { tool }),
    transcript,
  });
}
