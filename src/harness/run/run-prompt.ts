/**
 * The run's own messages: the history it is given (plain user and assistant text, within
 * limits) and the run prompt (request, flags, the current design).
 */
import { canonicalJson } from '../../core/canonical-json.js';
import { HarnessInputError } from '../errors.js';
import type { JsonValue } from '../json-patch/apply-json-patch.js';
import type { ResolvedLimits } from '../limits.js';
import type { ModelMessage } from '../models/types.js';
import type { InputArtifactDescriptor } from './input-artifacts.js';

/** A message of earlier conversation: plain text from the user or the assistant. */
export interface HistoryMessage {
  readonly role: 'user' | 'assistant';
  readonly content: string;
}

/**
 * Check the history and keep the most recent messages within `maxHistoryMessages` and
 * `maxHistoryBytes` (whole messages; older ones are dropped first). Anything but plain user or
 * assistant text (system or tool messages, tool calls, content parts) is refused with
 * {@link HarnessInputError}: history is never a way to smuggle instructions or tool results in.
 */
export function historyMessages(
  history: readonly HistoryMessage[] | undefined,
  limits: ResolvedLimits,
): ModelMessage[] {
  if (history === undefined) return [];
  if (!Array.isArray(history)) throw new HarnessInputError('history', 'expected an array of messages');
  history.forEach((message, index) => {
    const m = message as unknown as Readonly<Record<string, unknown>>;
    const keys = typeof m === 'object' && m !== null ? Object.keys(m).sort().join(',') : '';
    const plain =
      keys === 'content,role' && (m.role === 'user' || m.role === 'assistant') && typeof m.content === 'string';
    if (!plain) {
      throw new HarnessInputError(
        `history[${index}]`,
        'expected `{ role: "user" | "assistant", content: string }` and nothing else',
      );
    }
  });
  const kept: ModelMessage[] = [];
  let bytes = 0;
  for (let i = history.length - 1; i >= 0 && kept.length < limits.maxHistoryMessages; i--) {
    const message = history[i] as HistoryMessage;
    bytes += Buffer.byteLength(message.content, 'utf8');
    if (bytes > limits.maxHistoryBytes) break;
    kept.push({ role: message.role, content: message.content });
  }
  return kept.reverse();
}

/** What the run prompt is built from. */
export interface RunPromptInput {
  readonly request: string;
  readonly design: JsonValue;
  readonly canEdit: boolean;
  readonly capabilities: readonly string[];
  readonly inputArtifacts: readonly InputArtifactDescriptor[];
}

/** The run prompt: deterministic text (canonical JSON for the design and the artifact descriptors, never bytes). */
export function runPrompt(input: RunPromptInput): ModelMessage {
  const artifacts = input.inputArtifacts.map(({ id, kind, metadata }) => ({ id, kind, metadata }));
  const lines = [
    `Request:\n${input.request}`,
    `Editing allowed: ${input.canEdit ? 'yes' : 'no — "patch" must be null'}`,
    `Capabilities: ${input.capabilities.length === 0 ? 'none' : input.capabilities.join(', ')}`,
  ];
  if (artifacts.length > 0) lines.push(`Input artifacts: ${canonicalJson(artifacts)}`);
  lines.push(`Current design:\n${canonicalJson(input.design)}`);
  return { role: 'user', content: lines.join('\n\n') };
}
