/**
 * Reading the model's final answer: exactly `{ message, patch }`, or a protocol error saying why not.
 */
import { compileSchema } from '../../boundary/compile-schema.js';
import type { JsonPatchOperation } from '../json-patch/apply-json-patch.js';
import type { ModelResponse } from '../models/types.js';
import { FINAL_RESPONSE_SCHEMA } from './contract.js';
import { describeIssues, parseModelJson } from './model-json.js';

/** A usable final answer. */
export interface FinalAnswer {
  readonly message: string;
  readonly patch: readonly JsonPatchOperation[] | null;
}

/** The answer, or why it cannot be used. */
export type FinalAnswerParse =
  | { readonly ok: true; readonly answer: FinalAnswer }
  | { readonly ok: false; readonly reason: string };

/** Parse and check a final answer (one without tool calls). Never throws. */
export function parseFinalAnswer(response: ModelResponse): FinalAnswerParse {
  if (response.finishReason === 'length')
    return { ok: false, reason: 'the answer was cut off at the output token limit; answer more briefly' };
  let value: unknown = response.output;
  if (value === undefined) {
    const text = typeof response.text === 'string' ? response.text : '';
    if (text.trim() === '') return { ok: false, reason: 'the answer is empty' };
    const parsed = parseModelJson(text);
    if (!parsed.ok) return { ok: false, reason: `the answer is not JSON (${parsed.error.message})` };
    value = parsed.value;
  }
  const checked = compileSchema(FINAL_RESPONSE_SCHEMA).validate(value);
  if (!checked.ok) {
    return {
      ok: false,
      reason: `the answer does not have the required shape {"message": string, "patch": array | null} (${describeIssues(checked.issues)})`,
    };
  }
  return { ok: true, answer: value as FinalAnswer };
}
