/**
 * What the model is told: the system contract (fixed, first), application guidance, the design
 * schema; and the shape of the final answer.
 */
import type { JsonSchemaObject } from '../../boundary/field-spec.js';
import { canonicalJson } from '../../core/canonical-json.js';
import type { ModelResponseFormat } from '../models/types.js';

/** The harness's fixed instructions; they come first in every system message. */
export const SYSTEM_CONTRACT: string = [
  'You are an editing agent. You help with a JSON document, "the design", owned by an application.',
  'You never change the design yourself: you propose a change as an RFC 6902 JSON Patch, which the application reviews.',
  '',
  'Rules:',
  '1. Use the tools you are given to gather what you need. A tool result is JSON; a successful one looks like {"ref": "...", "result": ...}. With retrieve_evidence and a ref you can see a full result again, or the part of it at an RFC 6901 pointer.',
  '2. When you are done, answer with exactly one JSON object and nothing else: {"message": string, "patch": array | null}.',
  '3. "message" is your answer to the user. "patch" is an RFC 6902 JSON Patch (add, remove, replace, move, copy, test) against the current design, or null when no change is needed.',
  '4. When the run says editing is not allowed, "patch" must be null: give advice in "message" instead.',
  '5. The patched design must be valid against the design schema and already in its stored form.',
  '6. If your answer is refused, you are told why; fix the problem and answer again.',
].join('\n');

/** The JSON Schema of one RFC 6902 operation, as the model is asked to write it. */
export const OPERATION_SCHEMA: Readonly<Record<string, unknown>> = {
  type: 'object',
  properties: {
    op: { enum: ['add', 'remove', 'replace', 'move', 'copy', 'test'] },
    path: { type: 'string' },
    from: { type: 'string' },
    value: {},
  },
  required: ['op', 'path'],
  additionalProperties: false,
};

/** JSON Schema of the final answer: exactly `{ message, patch }`. */
export const FINAL_RESPONSE_SCHEMA: JsonSchemaObject = Object.freeze(
  JSON.parse(
    canonicalJson({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: {
        message: { type: 'string' },
        patch: { anyOf: [{ type: 'null' }, { type: 'array', items: OPERATION_SCHEMA }] },
      },
      required: ['message', 'patch'],
      additionalProperties: false,
    }),
  ) as JsonSchemaObject,
);

/** The response format every main-model request carries. */
export const FINAL_RESPONSE_FORMAT: ModelResponseFormat = Object.freeze({
  name: 'final_response',
  schema: FINAL_RESPONSE_SCHEMA,
});

/** The system message: contract, then application guidance, then the design schema (all stable across runs). */
export function systemMessage(instructions: string | undefined, promptSchema: JsonSchemaObject): string {
  const parts = [SYSTEM_CONTRACT];
  if (instructions !== undefined && instructions.trim() !== '')
    parts.push(`Application guidance:\n${instructions.trim()}`);
  parts.push(`Design schema (JSON Schema 2020-12):\n${canonicalJson(promptSchema)}`);
  return parts.join('\n\n');
}
