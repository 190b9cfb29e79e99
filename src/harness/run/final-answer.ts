/**
 * Reading the model's final answer: exactly `{ message, patch }`, or a protocol error saying why not.
 */
import { compileSchema } from '../../boundary/compile-schema.js';
import { toJsonPointer } from '../../boundary/issues.js';
import type { JsonPatchOperation } from '../json-patch/apply-json-patch.js';
import type { ModelResponse } from '../models/types.js';
import { FINAL_RESPONSE_SCHEMA } from './contract.js';

/** A usable final answer. */
export interface FinalAnswer {
  readonly message: string;
  readonly patch: readonly JsonPatchOperation[] | null;
}

/** The answer, or why it cannot be used. */
export type FinalAnswerParse =
  | { readonly ok: true; readonly answer: FinalAnswer }
  | { readonly ok: false; readonly reason: string };

const FENCE = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/;

function parseText(text: string): { ok: true; value: unknown } | { ok: false; reason: string } {
  const trimmed = text.trim();
  if (trimmed === '') return { ok: false, reason: 'the answer is empty' };
  const body = FENCE.exec(trimmed)?.[1] ?? trimmed;
  try {
    return { ok: true, value: JSON.parse(body) };
  } catch (error) {
    return { ok: false, reason: `the answer is not JSON (${(error as Error).message})` };
  }
}

/** Parse and check a final answer (one without tool calls). Never throws. */
export function parseFinalAnswer(response: ModelResponse): FinalAnswerParse {
  if (response.finishReason === 'length')
    return { ok: false, reason: 'the answer was cut off at the output token limit; answer more briefly' };
  let value: unknown = response.output;
  if (value === undefined) {
    const parsed = parseText(typeof response.text === 'string' ? response.text : '');
    if (!parsed.ok) return parsed;
    value = parsed.value;
  }
  const checked = compileSchema(FINAL_RESPONSE_SCHEMA).validate(value);
  if (!checked.ok) {
    const issues = checked.issues.slice(0, 5).map((issue) => `${toJsonPointer(issue.path) || '/'}: ${issue.message}`);
    return {
      ok: false,
      reason: `the answer does not have the required shape {"message": string, "patch": array | null} (${issues.join('; ')})`,
    };
  }
  return { ok: true, answer: value as FinalAnswer };
}
