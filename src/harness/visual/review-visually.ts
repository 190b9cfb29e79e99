/**
 * One vision review: labelled images in order, questions, an optional structured answer checked
 * against the application's schema; time-limited, retried on failure, traced by purpose.
 */
import type { CompiledSchema } from '../../boundary/compile-schema.js';
import type { JsonSchemaObject } from '../../boundary/field-spec.js';
import { canonicalJson } from '../../core/canonical-json.js';
import type { JsonValue } from '../json-patch/apply-json-patch.js';
import { ModelProviderError } from '../models/model-errors.js';
import type {
  ModelUsage,
  VisionImage,
  VisionModel,
  VisionPurpose,
  VisionResponse,
  VisionReviewRequest,
} from '../models/types.js';
import { describeIssues, parseModelJson } from '../run/model-json.js';
import { budgetStop, usageShape } from '../run/model-step.js';
import { DeadlineExceededError, raceSignals, startDeadline } from '../run/race.js';
import type { RunContext } from '../run/run-context.js';
import { ToolCallError } from '../tools/tool-call-error.js';
import { createModelCallTrace, responseTraceFields, type VisionImageTrace } from '../traces.js';
import { checkedUsage } from '../usage.js';
import { digestArtifact } from './check-artifact.js';

/** The vision model and how render reviews are asked for, fixed per harness. */
export interface VisionSetup {
  readonly model: VisionModel;
  /** The application's schema of a structured render review, compiled once. */
  readonly review: { readonly schema: JsonSchemaObject; readonly compiled: CompiledSchema } | undefined;
  /** Application guidance for render reviews. */
  readonly instructions: string | undefined;
}

/** One review to make. */
export interface ReviewCall {
  readonly purpose: VisionPurpose;
  readonly questions: readonly string[];
  readonly images: readonly VisionImage[];
  /** Ask for the structured review (render reviews and comparisons, when the harness has a schema). */
  readonly structured: boolean;
  readonly stepId: string;
  /** The tool call this review belongs to; vision call ids are `<stepId>/<toolCallId>/vision-<attempt>`. */
  readonly toolCallId: string;
}

/** A review: the structured value (when asked for) or the answer text, and the attempts it took. */
export interface Review {
  readonly review: JsonValue;
  readonly attempts: number;
}

const DEFAULT_QUESTIONS: Readonly<Record<VisionPurpose, string>> = {
  render_review: 'Does the rendered design look right? List any visual problems, most severe first.',
  comparison:
    'What changed between the base render and the new render, and is it an improvement? List any visual problems of the new render, most severe first.',
  asset_inspection: 'Describe what this shows and how it could be used in the design.',
};

/** The questions to ask: the model's, or the purpose's default. */
export function questionsFor(purpose: VisionPurpose, questions: readonly string[] | undefined): readonly string[] {
  return questions === undefined || questions.length === 0 ? [DEFAULT_QUESTIONS[purpose]] : questions;
}

function promptOf(setup: VisionSetup, call: ReviewCall): string {
  const lines = ['Images, in the order they are attached:'];
  for (const [index, image] of call.images.entries()) lines.push(`${index + 1}. ${image.label}`);
  if (call.purpose !== 'asset_inspection' && setup.instructions !== undefined) {
    lines.push('', `Review guidance:\n${setup.instructions}`);
  }
  lines.push('', 'Questions:');
  for (const [index, question] of call.questions.entries()) lines.push(`${index + 1}. ${question}`);
  if (call.structured && setup.review !== undefined) {
    lines.push(
      '',
      `Answer with exactly one JSON value, valid against this JSON Schema, and nothing else:\n${canonicalJson(setup.review.schema)}`,
    );
  } else {
    lines.push('', 'Answer each question briefly and concretely.');
  }
  return lines.join('\n');
}

/** The structured review in a response, checked against the schema; a string says why it is unusable. */
function structuredReview(response: VisionResponse, compiled: CompiledSchema): JsonValue | string {
  let value: unknown = response.output;
  if (value === undefined) {
    const parsed = parseModelJson(typeof response.text === 'string' ? response.text : '');
    if (!parsed.ok) return `the review is not JSON (${parsed.error.message})`;
    value = parsed.value;
  }
  let json: JsonValue;
  try {
    json = JSON.parse(canonicalJson(value)) as JsonValue;
  } catch (error) {
    return `the review is not JSON (${(error as Error).message})`;
  }
  const checked = compiled.validate(json);
  if (checked.ok) return json;
  return `the review does not match the review schema (${describeIssues(checked.issues)})`;
}

/** Failures that another attempt cannot fix. */
function final(error: unknown): boolean {
  return error instanceof ModelProviderError && (error.kind === 'auth' || error.kind === 'context_length');
}

/**
 * Ask the vision model; a failed attempt (provider error, timeout, unusable structured review)
 * is traced and tried again up to `limits.maxVisionRetries` times. Throws a {@link ToolCallError}
 * (`vision_failed`) when every attempt failed; an abort or the run's time limit passes through.
 */
export async function reviewVisually(run: RunContext, setup: VisionSetup, call: ReviewCall): Promise<Review> {
  const prompt = promptOf(setup, call);
  const structured = call.structured && setup.review !== undefined;
  const images: VisionImageTrace[] = call.images.map((image) => ({
    label: image.label,
    ...digestArtifact(image.artifact),
  }));
  const attempts = 1 + run.limits.maxVisionRetries;
  let lastProblem = '';
  let made = 0;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    made = attempt;
    const callId = `${call.stepId}/${call.toolCallId}/vision-${attempt}`;
    const startedAt = run.clock.now();
    const deadline = startDeadline(
      run.clock,
      run.limits.visionTimeoutMs,
      () => new DeadlineExceededError('the vision call', run.limits.visionTimeoutMs),
    );
    const timeoutSignal = AbortSignal.any([run.runTimeout, deadline.signal]);
    const request: VisionReviewRequest = {
      purpose: call.purpose,
      prompt,
      questions: call.questions,
      images: call.images,
      ...(structured && setup.review !== undefined ? { outputSchema: setup.review.schema } : {}),
      maxOutputTokens: run.limits.maxOutputTokens,
      ...(run.signal === undefined ? {} : { signal: run.signal }),
      timeoutSignal,
    };
    const record = (status: 'ok' | 'error', extra: object, usage: ModelUsage | undefined): void => {
      const elapsedMs = run.clock.now() - startedAt;
      run.recordModelCall(
        createModelCallTrace({
          callId,
          runId: run.runId,
          stepId: call.stepId,
          kind: 'vision',
          purpose: call.purpose,
          attempt,
          model: setup.model.id,
          startedAt,
          elapsedMs,
          status,
          input: { prompt, images },
          cacheHit: null,
          ...(usage === undefined ? {} : { usage }),
          ...extra,
        }),
        usage,
      );
      run.emit({
        type: 'model_call_finished',
        kind: 'vision',
        purpose: call.purpose,
        stepId: call.stepId,
        callId,
        status,
        elapsedMs,
      });
    };
    // The provider-token budget covers vision calls too: the prompt is estimated (images are not).
    const { verdict, reservation } = run.fuses.checkModelCall({
      model: setup.model.id,
      messages: [{ role: 'user', content: prompt }],
      maxOutputTokens: run.limits.maxOutputTokens,
    });
    if (!verdict.allowed) {
      deadline.cancel();
      throw budgetStop(run, verdict.reason);
    }
    run.emit({ type: 'model_call_started', kind: 'vision', purpose: call.purpose, stepId: call.stepId, callId });
    let response: VisionResponse;
    try {
      const work = Promise.resolve().then(() => setup.model.complete(request));
      response = await raceSignals(work, [run.signal, timeoutSignal]);
    } catch (error) {
      deadline.cancel();
      if (reservation !== null) run.fuses.release(reservation);
      const code = (error as { code?: unknown } | null)?.code;
      const message = error instanceof Error ? error.message : String(error);
      record('error', { error: { code: typeof code === 'string' ? code : 'model_error', message } }, undefined);
      if (run.signal?.aborted) throw run.signal.reason;
      if (run.runTimeout.aborted) throw run.runTimeout.reason;
      lastProblem = message;
      if (final(error)) break;
      continue;
    }
    deadline.cancel();
    const usage = checkedUsage(response?.usage);
    const text = typeof response?.text === 'string' ? response.text : '';
    const model = {
      ...(typeof response?.model === 'string' ? { model: response.model } : {}),
      ...responseTraceFields(response ?? {}),
    };
    const reasoning = typeof response?.reasoning === 'string' ? { reasoning: response.reasoning } : {};
    const booking = run.fuses.recordModelUsage(usageShape(usage), {
      model: typeof response?.model === 'string' ? response.model : setup.model.id,
      reservation,
    });
    if (!booking.verdict.allowed) {
      record('ok', { ...model, output: { text, toolCalls: [], ...reasoning } }, usage);
      throw budgetStop(run, booking.verdict.reason);
    }
    if (!structured) {
      record('ok', { ...model, output: { text, toolCalls: [], ...reasoning } }, usage);
      return { review: text, attempts: attempt };
    }
    const review = structuredReview(response, (setup.review as NonNullable<VisionSetup['review']>).compiled);
    if (typeof review !== 'string') {
      record('ok', { ...model, output: { text, toolCalls: [], ...reasoning } }, usage);
      return { review, attempts: attempt };
    }
    record(
      'error',
      {
        ...model,
        output: { text, toolCalls: [], ...reasoning },
        error: { code: 'model_invalid_response', message: review },
      },
      usage,
    );
    lastProblem = review;
  }
  throw new ToolCallError(
    'failed',
    'vision_failed',
    `The vision review failed after ${made} attempt${made === 1 ? '' : 's'} (last: ${lastProblem})`,
  );
}
