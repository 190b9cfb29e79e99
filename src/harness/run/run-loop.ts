/**
 * The run loop: call the model; run the tools it asks for; check its final answer; retry on a
 * protocol error (the counter resets after a usable answer) or a refused proposal (the counter
 * resets per work phase, i.e. whenever the model runs tools again); stop on any limit.
 */
import { canonicalJson } from '../../core/canonical-json.js';
import { deepFreeze } from '../../core/deep-freeze.js';
import type { ApprovedAsset } from '../assets/asset-provider.js';
import { RunLimit, runStopped } from '../errors.js';
import type { JsonPatchOperation, JsonValue } from '../json-patch/apply-json-patch.js';
import type { ModelMessage, ModelToolCall, ModelUsage, ProviderMetadata } from '../models/types.js';
import type { ToolOutcome } from '../tools/agent-tool.js';
import type { CompiledTool } from '../tools/compile-tools.js';
import { runToolBatch } from '../tools/run-tool-batch.js';
import {
  createStepTrace,
  type ModelCallTrace,
  type StepKind,
  type StepTrace,
  type TraceRedactor,
  type ValidationTrace,
} from '../traces.js';
import { addUsage, EMPTY_USAGE, type HarnessUsage } from '../usage.js';
import { checkProposal, type ProposalRules } from './check-proposal.js';
import { parseFinalAnswer } from './final-answer.js';
import { callMainModel, type ModelStepSetup } from './model-step.js';
import { raceSignals } from './race.js';
import type { RunContext } from './run-context.js';

/** The proposal of a run: validated, never applied to application state. */
export interface RunResult {
  readonly runId: string;
  /** The model's answer to the user. */
  readonly message: string;
  /** The proposed design (the current one when the patch is null or changes nothing). */
  readonly design: JsonValue;
  readonly changed: boolean;
  readonly patch: readonly JsonPatchOperation[] | null;
  readonly toolOutcomes: readonly ToolOutcome[];
  readonly succeededToolOutcomes: readonly ToolOutcome[];
  /** Every outcome that did not succeed (failed, rejected, timed out, deferred). */
  readonly failedToolOutcomes: readonly ToolOutcome[];
  readonly traces: readonly StepTrace[];
  /** Every model call of the run, main and vision, in order. */
  readonly modelCalls: readonly ModelCallTrace[];
  readonly usage: HarnessUsage;
  /** Assets found by this run's asset searches, with provenance (never preview bytes). */
  readonly approvedAssets: readonly ApprovedAsset[];
  /** The render committed last (its chain is `patch`), or `null`. */
  readonly committedRender: string | null;
  /** The provider metadata of the main-model call that gave the accepted answer, or `null`. */
  readonly providerMetadata: ProviderMetadata | null;
}

/** What the loop runs with. */
export interface LoopSetup extends ModelStepSetup {
  readonly offered: ReadonlyMap<string, CompiledTool>;
  readonly rules: ProposalRules;
  readonly onStep: ((trace: StepTrace) => void | Promise<void>) | undefined;
  readonly traceRedactor: TraceRedactor | undefined;
}

/** The loop's books: every model call, usage, outcome and step trace of the run. */
export interface RunBooks {
  readonly modelCalls: ModelCallTrace[];
  readonly outcomes: ToolOutcome[];
  readonly traces: StepTrace[];
  usage: HarnessUsage;
}

/** Fresh books, with the recorder model calls go through. */
export function createBooks(): RunBooks & { record(trace: ModelCallTrace, usage: ModelUsage | undefined): void } {
  const books = {
    modelCalls: [] as ModelCallTrace[],
    outcomes: [] as ToolOutcome[],
    traces: [] as StepTrace[],
    usage: EMPTY_USAGE,
    record(trace: ModelCallTrace, usage: ModelUsage | undefined) {
      books.modelCalls.push(trace);
      books.usage = addUsage(books.usage, usage, trace.purpose);
    },
  };
  return books;
}

/** Give every call of a turn a usable, unique id (models sometimes leave them empty or repeat them). */
function withIds(calls: readonly ModelToolCall[], step: number): ModelToolCall[] {
  const seen = new Set<string>();
  return calls.map((call, index) => {
    const id = typeof call.id === 'string' && call.id !== '' && !seen.has(call.id) ? call.id : `call_${step}_${index}`;
    seen.add(id);
    // Frozen: a tool that writes to its input must not change the transcript or the outcome.
    return Object.freeze({ ...call, id, input: deepFreeze(call.input) });
  });
}

const PROTOCOL_HINT =
  'Answer with exactly one JSON object {"message": string, "patch": array | null} and nothing else.';

/** The retry counters of a run: unusable answers in a row, refusals per work phase, candidates seen. */
interface RetryBooks {
  protocolRetries: number;
  validationRetries: number;
  readonly candidates: Map<string, number>;
}

/** One model call of the loop, with what its step trace is written from. */
interface Step {
  readonly number: number;
  readonly id: string;
  /** Write the step's trace and hand it to `onStep`. */
  finish(kind: StepKind, outcomes: readonly ToolOutcome[], validation?: ValidationTrace): Promise<void>;
}

/** The model asked for tools: run them and put their results in the transcript (a new work phase). */
async function runToolStep(
  run: RunContext,
  setup: LoopSetup,
  transcript: ModelMessage[],
  books: RunBooks,
  retries: RetryBooks,
  step: Step,
  response: { readonly text: string; readonly toolCalls: readonly ModelToolCall[] },
): Promise<void> {
  retries.protocolRetries = 0;
  retries.validationRetries = 0;
  const named = withIds(response.toolCalls, step.number);
  transcript.push({ role: 'assistant', content: response.text, toolCalls: named });
  const ends = await runToolBatch(run, setup.offered, named, step.number, step.id);
  for (const end of ends) {
    transcript.push(end.message);
    books.outcomes.push(end.outcome);
  }
  await step.finish(
    'tool_calls',
    ends.map((end) => end.outcome),
  );
}

/** An answer that could not be parsed: ask again with the protocol, or stop past `maxProtocolRetries`. */
async function retryUnusable(
  run: RunContext,
  transcript: ModelMessage[],
  retries: RetryBooks,
  step: Step,
  answerText: string,
  reason: string,
): Promise<void> {
  await step.finish('protocol_error', [], { status: 'protocol_error', code: 'protocol_error', message: reason });
  const { maxProtocolRetries } = run.limits;
  if (++retries.protocolRetries > maxProtocolRetries) {
    const why = `${retries.protocolRetries} unusable answers in a row (last: ${reason})`;
    throw runStopped(run.runId, RunLimit.maxProtocolRetries, maxProtocolRetries, why);
  }
  transcript.push(
    { role: 'assistant', content: answerText },
    { role: 'user', content: `Your last answer could not be used: ${reason}. ${PROTOCOL_HINT}` },
  );
}

/**
 * A refused proposal: ask for a fix, or stop when the same candidate came back too often
 * (`maxIdenticalCandidates`) or the work phase ran out of refusals (`maxValidationRetries`).
 */
async function retryRefused(
  run: RunContext,
  transcript: ModelMessage[],
  retries: RetryBooks,
  step: Step,
  answerText: string,
  refused: { readonly code: string; readonly message: string; readonly pointer?: string; readonly fingerprint: string },
): Promise<void> {
  const { code, message, pointer } = refused;
  await step.finish('validation_error', [], {
    status: 'refused',
    code,
    message,
    ...(pointer === undefined ? {} : { pointer }),
  });
  const seen = (retries.candidates.get(refused.fingerprint) ?? 0) + 1;
  retries.candidates.set(refused.fingerprint, seen);
  const { maxIdenticalCandidates, maxValidationRetries } = run.limits;
  if (maxIdenticalCandidates !== undefined && seen > maxIdenticalCandidates) {
    const why = `the same candidate was proposed ${seen} times`;
    throw runStopped(run.runId, RunLimit.maxIdenticalCandidates, maxIdenticalCandidates, why);
  }
  if (++retries.validationRetries > maxValidationRetries) {
    const why = `${retries.validationRetries} proposals were refused in one work phase (last: ${message})`;
    throw runStopped(run.runId, RunLimit.maxValidationRetries, maxValidationRetries, why);
  }
  transcript.push(
    { role: 'assistant', content: answerText },
    {
      role: 'user',
      content: `Your proposal was refused (${code}): ${message}. Fix it and answer again, or answer with "patch": null and explain why.`,
    },
  );
}

/** Run the loop until a proposal is accepted; throws on a limit, an abort, or a failing model. */
export async function runLoop(
  run: RunContext,
  setup: LoopSetup,
  transcript: ModelMessage[],
  books: ReturnType<typeof createBooks>,
): Promise<RunResult> {
  const { limits } = run;
  const retries: RetryBooks = { protocolRetries: 0, validationRetries: 0, candidates: new Map() };
  for (let number = 1; ; number++) {
    if (number > limits.maxSteps) {
      const why = `it made ${limits.maxSteps} model calls without an accepted answer`;
      throw runStopped(run.runId, RunLimit.maxSteps, limits.maxSteps, why);
    }
    const id = `${run.runId}/step-${number}`;
    const startedAt = run.clock.now();
    const { response, trace } = await callMainModel(run, setup, transcript, number, id, books.record);
    const step: Step = {
      number,
      id,
      async finish(kind, outcomes, validation) {
        const stepTrace = createStepTrace(
          {
            runId: run.runId,
            step: number,
            stepId: id,
            kind,
            startedAt,
            elapsedMs: run.clock.now() - startedAt,
            modelCall: trace,
            toolOutcomes: outcomes,
            ...(validation === undefined ? {} : { validation }),
          },
          setup.traceRedactor,
        );
        books.traces.push(stepTrace);
        await setup.onStep?.(stepTrace);
      },
    };
    const toolCalls = response.toolCalls ?? [];
    if (toolCalls.length > 0) {
      await runToolStep(run, setup, transcript, books, retries, step, { text: response.text, toolCalls });
      continue;
    }
    const answerText =
      response.text !== '' || response.output === undefined ? response.text : canonicalJson(response.output);
    run.emit({ type: 'validation_started', stepId: id });
    const validationStart = run.clock.now();
    const validated = (status: 'accepted' | 'protocol_error' | 'refused') =>
      run.emit({ type: 'validation_finished', stepId: id, status, elapsedMs: run.clock.now() - validationStart });
    const parsed = parseFinalAnswer(response);
    if (!parsed.ok) {
      validated('protocol_error');
      await retryUnusable(run, transcript, retries, step, answerText, parsed.reason);
      continue;
    }
    retries.protocolRetries = 0;
    const checked = await raceSignals(checkProposal(run, setup.rules, parsed.answer, books.outcomes), [
      run.signal,
      run.runTimeout,
    ]);
    if (!checked.ok) {
      validated('refused');
      await retryRefused(run, transcript, retries, step, answerText, checked);
      continue;
    }
    validated('accepted');
    await step.finish('final', [], { status: 'accepted' });
    const outcomes = [...books.outcomes];
    return {
      runId: run.runId,
      message: parsed.answer.message,
      design: deepFreeze(checked.design),
      changed: checked.changed,
      patch: checked.patch,
      toolOutcomes: outcomes,
      succeededToolOutcomes: outcomes.filter((outcome) => outcome.status === 'succeeded'),
      failedToolOutcomes: outcomes.filter((outcome) => outcome.status !== 'succeeded'),
      traces: [...books.traces],
      modelCalls: [...books.modelCalls],
      usage: books.usage,
      approvedAssets: run.assets.approved(),
      committedRender: run.renders.committed?.ref ?? null,
      providerMetadata: trace.providerMetadata ?? null,
    };
  }
}
