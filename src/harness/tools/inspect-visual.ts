/**
 * The built-in `inspect_visual` tool, offered when the harness has a vision model: ask it about
 * an input artifact, or about the design rendered (optionally with a patch applied as a preview).
 */
import { applyJsonPatch, type JsonValue } from '../json-patch/apply-json-patch.js';
import type { Artifact, DesignRenderer, ModelUsage, VisionModel } from '../models/types.js';
import type { RunContext } from '../run/run-context.js';
import { createModelCallTrace } from '../traces.js';
import { checkedUsage } from '../usage.js';
import type { AgentTool, ToolContext } from './agent-tool.js';

/** Name of the built-in vision tool. */
export const INSPECT_VISUAL = 'inspect_visual';

interface InspectInput {
  readonly question: string;
  readonly artifactId?: string;
  readonly patch?: readonly unknown[];
}

const QUESTION = { type: 'string', minLength: 1, maxLength: 2000, description: 'What to look for' };
const ARTIFACT = { type: 'string', description: 'Id of an input artifact to look at' };
const PATCH = {
  type: 'array',
  items: { type: 'object' },
  description: 'A JSON Patch to preview (not applied to the design)',
};
const ARTIFACT_INPUT = Object.freeze({
  type: 'object',
  properties: { question: QUESTION, artifactId: ARTIFACT },
  required: ['question', 'artifactId'],
  additionalProperties: false,
});
const RENDER_INPUT = Object.freeze({
  type: 'object',
  properties: { question: QUESTION, artifactId: ARTIFACT, patch: PATCH },
  required: ['question'],
  additionalProperties: false,
});

async function imageFor(
  input: InspectInput,
  context: ToolContext,
  run: RunContext,
  renderer: DesignRenderer | undefined,
): Promise<Artifact> {
  if (input.artifactId !== undefined) {
    const found = context.inputArtifacts.find((artifact) => artifact.id === input.artifactId);
    if (found === undefined) {
      const ids = context.inputArtifacts.map((artifact) => `\`${artifact.id}\``).join(', ') || 'none';
      throw new Error(`Unknown artifact \`${input.artifactId}\` (available: ${ids})`);
    }
    return found;
  }
  if (renderer === undefined) throw new Error('The design cannot be rendered here: name an `artifactId`');
  const design: JsonValue =
    input.patch === undefined ? context.design : applyJsonPatch(context.design, input.patch, run.limits.patch);
  return renderer.render(design, {
    runId: run.runId,
    ...(context.signal === undefined ? {} : { signal: context.signal }),
  });
}

/** Build the run's `inspect_visual` tool. */
export function inspectVisualTool(
  run: RunContext,
  vision: VisionModel,
  renderer: DesignRenderer | undefined,
): AgentTool<InspectInput, { answer: string }> {
  const target =
    renderer === undefined
      ? 'an input artifact'
      : 'an input artifact, or the design as rendered (optionally with a patch previewed)';
  return {
    name: INSPECT_VISUAL,
    description: `Ask a vision model a question about ${target}; answers in text.`,
    inputSchema: renderer === undefined ? ARTIFACT_INPUT : RENDER_INPUT,
    maxCallsPerRun: run.limits.maxCallsPerTool,
    async execute(input, context) {
      const image = await imageFor(input, context, run, renderer);
      const callId = `${context.stepId}/vision-${context.position}`;
      const startedAt = run.clock.now();
      run.emit({ type: 'model_call_started', kind: 'vision', stepId: context.stepId, callId });
      const trace = (status: 'ok' | 'error', extra: object, usage?: ModelUsage) =>
        createModelCallTrace({
          callId,
          runId: run.runId,
          stepId: context.stepId,
          kind: 'vision',
          model: vision.id,
          startedAt,
          elapsedMs: run.clock.now() - startedAt,
          status,
          input: { prompt: input.question, images: [image.id] },
          ...(usage === undefined ? {} : { usage }),
          ...extra,
        });
      try {
        const response = await vision.complete({
          prompt: input.question,
          images: [image],
          maxOutputTokens: run.limits.maxOutputTokens,
          ...(context.signal === undefined ? {} : { signal: context.signal }),
          timeoutSignal: context.timeoutSignal,
        });
        const usage = checkedUsage(response.usage);
        const text = typeof response.text === 'string' ? response.text : '';
        run.recordModelCall(trace('ok', { output: { text, toolCalls: [] } }, usage), usage);
        run.emit({
          type: 'model_call_finished',
          kind: 'vision',
          stepId: context.stepId,
          callId,
          status: 'ok',
          elapsedMs: run.clock.now() - startedAt,
        });
        return { answer: text };
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        const failure = {
          code: typeof code === 'string' ? code : 'model_error',
          message: String((error as Error).message ?? error),
        };
        run.recordModelCall(trace('error', { error: failure }), undefined);
        run.emit({
          type: 'model_call_finished',
          kind: 'vision',
          stepId: context.stepId,
          callId,
          status: 'error',
          elapsedMs: run.clock.now() - startedAt,
        });
        throw error;
      }
    },
  };
}
