/**
 * The durable-engine cases as the report tells them: a title, and what happens to the step.
 */
import type { EngineCaseId } from './types.js';

/** How one case reads in the report. */
export interface EngineCase {
  readonly id: EngineCaseId;
  readonly title: string;
  readonly story: string;
}

/** Every case, in table order. */
export const engineCases: readonly EngineCase[] = [
  {
    id: 'kill-after-charge',
    title: 'killed after the charge',
    story:
      'the process running the step is SIGKILLed once the charge is in, before the step returns; the engine recovers the workflow when a process starts again',
  },
  {
    id: 'throw-after-charge',
    title: 'throws after the charge',
    story: 'the step throws once the charge is in (its first attempt); the engine retries it',
  },
  {
    id: 'timeout-after-charge',
    title: 'outlives its timeout after the charge',
    story:
      "the step outlives the engine's step timeout once the charge is in (its first attempt); the engine starts the retry while the first attempt still runs",
  },
  {
    id: 'ai-sdk-tool-retried-turn',
    title: 'AI SDK tool in a retried turn',
    story:
      "a model turn in one step calls a charging AI SDK tool, then the model fails the turn; the engine retries the step and the retried turn's model asks for the same charge under a new tool call id",
  },
];

/** The case of `id`. */
export function engineCaseOf(id: EngineCaseId): EngineCase {
  const found = engineCases.find((c) => c.id === id);
  if (found === undefined) throw new Error(`Unknown engine case \`${id}\``);
  return found;
}

/** The outcome string of a settled workflow: `completed`, or `failed: <code or name>`. */
export function outcomeOf(
  settled:
    | { readonly ok: true }
    | {
        readonly ok: false;
        readonly error: { readonly name: string; readonly message: string; readonly code?: string | null };
      }
    | null,
): string {
  if (settled === null) return 'did not end';
  if (settled.ok) return 'completed';
  const { code, name, message } = settled.error;
  if (typeof code === 'string' && code !== '') return `failed: ${code}`;
  const named = /\b(ledger_[a-z_]+)\b/.exec(message)?.[1];
  return `failed: ${named ?? name}`;
}
