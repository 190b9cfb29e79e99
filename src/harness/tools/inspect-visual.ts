/**
 * The built-in `inspect_visual` tool, offered when the harness has a vision model and the run
 * has input artifacts: ask the vision model about one of them.
 */
import { type ResolvedLimits, visionToolTimeoutMs } from '../limits.js';
import type { RunContext } from '../run/run-context.js';
import { questionsFor, reviewVisually, type VisionSetup } from '../visual/review-visually.js';
import { type AgentTool, type ToolBody, unbound } from './agent-tool.js';
import { ToolCallError } from './tool-call-error.js';

/** Name of the built-in tool that looks at input artifacts. */
export const INSPECT_VISUAL = 'inspect_visual';

interface InspectInput {
  readonly artifact_id: string;
  readonly questions?: readonly string[];
}

/** The input schema of `inspect_visual` and of the other review tools' questions. */
export function questionsSchema(maxQuestions: number, maxLength: number): object {
  return {
    type: 'array',
    minItems: 1,
    maxItems: maxQuestions,
    items: { type: 'string', minLength: 1, maxLength },
    description: 'Questions for the vision model (optional; a general review is asked for without them)',
  };
}

/** The first blank question, as a problem for the model; `null` when every question has text. */
export function blankQuestion(input: unknown): string | null {
  const questions = (input as { questions?: unknown }).questions;
  if (!Array.isArray(questions)) return null;
  const index = questions.findIndex((question) => typeof question === 'string' && question.trim() === '');
  return index === -1 ? null : `/questions/${index}: a question must not be blank`;
}

/** The definition of `inspect_visual`; a run binds {@link inspectVisualBody} to it. */
export function inspectVisualDefinition(limits: ResolvedLimits): AgentTool<InspectInput> {
  return {
    name: INSPECT_VISUAL,
    description:
      'Ask a vision model questions about one of the input artifacts of this run (by its id); answers in text.',
    inputSchema: {
      type: 'object',
      properties: {
        artifact_id: { type: 'string', minLength: 1, description: 'Id of an input artifact of this run' },
        questions: questionsSchema(limits.maxReviewQuestions, limits.maxQuestionLength),
      },
      required: ['artifact_id'],
      additionalProperties: false,
    },
    timeoutMs: visionToolTimeoutMs(limits, limits.inputArtifactTimeoutMs),
    execute: unbound,
  };
}

/** The body of the run's `inspect_visual` tool. */
export function inspectVisualBody(run: RunContext, vision: VisionSetup): ToolBody<InspectInput> {
  return async function inspectVisual(input, context) {
    const artifact = await context.loadInputArtifact(input.artifact_id);
    if (!artifact.mediaType.startsWith('image/')) {
      throw new ToolCallError(
        'rejected',
        'not_an_image',
        `Input artifact \`${input.artifact_id}\` is \`${artifact.mediaType}\`, not an image the vision model can look at`,
      );
    }
    const { review } = await reviewVisually(run, vision, {
      purpose: 'asset_inspection',
      questions: questionsFor('asset_inspection', input.questions),
      images: [{ label: `input artifact ${input.artifact_id}`, artifact }],
      structured: false,
      stepId: context.stepId,
      toolCallId: context.callId,
    });
    return { answer: review };
  };
}
