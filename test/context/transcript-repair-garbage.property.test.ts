import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { prepareMessagesWith } from '../../src/config/prepare-messages.js';
import { repairTranscript } from '../../src/context/transcript/repair.js';
import type { TranscriptFormat } from '../../src/context/transcript/types.js';
import { validateTranscript } from '../../src/context/transcript/validate.js';
import { deepFreeze, FORMATS } from './transcript-fixtures.js';

const ID = fc.constantFrom<unknown>('call_1', 'call_2', 'fc_1', 'toolu_1', 'x', '', 7, undefined);
const ARTIFACT = fc.constantFrom('parsed', 'parsed_arguments', 'parsed_output');

/** An object that may carry parse artifacts (and other noise) next to the keys given. */
function noisy(base: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<Record<string, unknown>> {
  return fc
    .tuple(
      base,
      fc.uniqueArray(ARTIFACT, { maxLength: 2 }),
      fc.option(fc.anything({ maxDepth: 1 }), { nil: undefined }),
    )
    .map(([value, artifacts, extra]) => {
      const out: Record<string, unknown> = { ...value };
      for (const key of artifacts) out[key] = true;
      if (extra !== undefined) out.extra = extra;
      return out;
    });
}

const fn = noisy(
  fc.record(
    { name: fc.constantFrom('lookup', 'pay', 5), arguments: fc.constantFrom('{}', '{"a":1}') },
    { requiredKeys: [] },
  ),
);

const openAiCall = noisy(
  fc.record(
    { id: ID, type: fc.constant('function'), function: fn, index: fc.anything({ maxDepth: 0 }) },
    { requiredKeys: [] },
  ),
);

const part = fc.oneof(
  noisy(fc.record({ type: fc.constant('text'), text: fc.string({ maxLength: 3 }) })),
  noisy(
    fc.record(
      { type: fc.constant('tool_use'), id: ID, name: fc.constantFrom('lookup', 'pay'), input: fc.constant({}) },
      { requiredKeys: ['type'] },
    ),
  ),
  noisy(
    fc.record(
      { type: fc.constant('tool_result'), tool_use_id: ID, content: fc.string({ maxLength: 3 }) },
      { requiredKeys: ['type'] },
    ),
  ),
  noisy(
    fc.record(
      {
        type: fc.constant('tool-call'),
        toolCallId: ID,
        toolName: fc.constantFrom('lookup', 'pay'),
        input: fc.constant({}),
        providerExecuted: fc.boolean(),
      },
      { requiredKeys: ['type'] },
    ),
  ),
  noisy(
    fc.record(
      {
        type: fc.constant('tool-result'),
        toolCallId: ID,
        toolName: fc.constant('lookup'),
        output: fc.constant({ type: 'text', value: 'ok' }),
      },
      { requiredKeys: ['type'] },
    ),
  ),
  noisy(fc.record({ type: fc.constantFrom('server_tool_use', 'image', 'reasoning') })),
  fc.anything({ maxDepth: 1 }),
);

const message = fc.oneof(
  {
    weight: 8,
    arbitrary: noisy(
      fc.record(
        {
          role: fc.constantFrom('system', 'developer', 'user', 'assistant', 'tool', 'robot', 3),
          content: fc.oneof(fc.string({ maxLength: 3 }), fc.constant(null), fc.array(part, { maxLength: 4 })),
          tool_calls: fc.oneof(
            fc.array(fc.oneof(openAiCall, fc.anything({ maxDepth: 1 })), { maxLength: 3 }),
            fc.anything({ maxDepth: 1 }),
          ),
          tool_call_id: ID,
        },
        { requiredKeys: ['role'] },
      ),
    ),
  },
  { weight: 1, arbitrary: fc.anything({ maxDepth: 2 }) },
);

/** Hostile transcripts: any role with any key, parse artifacts anywhere the checks look, ids of every family. */
const garbage = fc.tuple(fc.array(message, { maxLength: 10 }), fc.constantFrom<TranscriptFormat>(...FORMATS));
const policy = fc.constantFrom('drop' as const, 'synthesize' as const);

describe('repairTranscript on hostile input', () => {
  it('does what it reports: the output validates and a second repair is a no-op, in every format', () => {
    fc.assert(
      fc.property(garbage, policy, ([messages, format], unanswered) => {
        const copy = structuredClone(messages);
        const once = repairTranscript(deepFreeze(messages), { unanswered, format });
        expect(validateTranscript(once.messages, { format }).issues).toEqual([]);
        const twice = repairTranscript(once.messages, { unanswered, format });
        expect(twice.changes).toEqual([]);
        expect(twice.messages).toEqual(once.messages);
        expect(messages).toEqual(copy);
      }),
      { numRuns: 10_000 },
    );
  });

  it('is accepted by prepareMessages with repair and validate on', () => {
    fc.assert(
      fc.property(garbage, policy, ([messages, format], unanswered) => {
        const settings = { repair: true, validate: true, unanswered, format } as const;
        expect(() => prepareMessagesWith(messages, settings, undefined, () => {})).not.toThrow();
      }),
      { numRuns: 5_000 },
    );
  });

  it('strips the artifacts it reports: tool_calls[].parsed on a developer message', () => {
    const messages = [{ role: 'developer', content: 'be brief', tool_calls: [{ parsed: true }] }];
    const repaired = repairTranscript(messages, { format: 'openai' });
    expect(repaired.changes.map((c) => c.kind)).toEqual(['stripped_artifact']);
    expect(repaired.messages).toEqual([{ role: 'developer', content: 'be brief', tool_calls: [{}] }]);
    expect(validateTranscript(repaired.messages, { format: 'openai' }).ok).toBe(true);
  });

  it('strips the artifacts it reports: tool_calls on an Anthropic assistant message', () => {
    const messages = [{ role: 'assistant', content: 'hi', tool_calls: [{ function: { parsed_arguments: {} } }] }];
    const repaired = repairTranscript(messages, { format: 'anthropic' });
    expect(repaired.changes.map((c) => c.kind)).toEqual(['stripped_artifact']);
    expect(validateTranscript(repaired.messages, { format: 'anthropic' }).ok).toBe(true);
  });
});
