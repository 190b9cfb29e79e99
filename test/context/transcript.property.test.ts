import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { repairTranscript } from '../../src/context/transcript/repair.js';
import type { TranscriptFormat } from '../../src/context/transcript/types.js';
import { validateTranscript } from '../../src/context/transcript/validate.js';
import { type Abstract, type AbstractCall, deepFreeze, FORMATS, render } from './transcript-fixtures.js';

const ID = fc.constantFrom<string | undefined>('call_1', 'call_2', 'call_3', 'fc_1', 'fc_2', 'toolu_1', 'x', undefined);

const call: fc.Arbitrary<AbstractCall> = fc
  .record(
    {
      id: ID,
      name: fc.constantFrom('lookup', 'pay'),
      index: fc.integer({ min: 0, max: 3 }),
      parsed: fc.constant(true as const),
    },
    { requiredKeys: [] },
  )
  .map(({ id, ...rest }) => (id === undefined ? rest : { id, ...rest }));

const item: fc.Arbitrary<Abstract> = fc.oneof(
  { weight: 2, arbitrary: fc.string({ maxLength: 5 }).map((text): Abstract => ({ kind: 'user', text })) },
  {
    weight: 4,
    arbitrary: fc
      .record({
        calls: fc.array(call, { maxLength: 3 }),
        text: fc.option(fc.string({ maxLength: 5 }), { nil: undefined }),
        parsed: fc.boolean(),
      })
      .map(
        ({ calls, text, parsed }): Abstract => ({
          kind: 'assistant',
          calls,
          ...(text === undefined ? {} : { text }),
          ...(parsed ? { parsed: true as const } : {}),
        }),
      ),
  },
  {
    weight: 4,
    arbitrary: fc.array(fc.record({ id: ID, text: fc.string({ maxLength: 5 }) }), { minLength: 1, maxLength: 3 }).map(
      (results): Abstract => ({
        kind: 'results',
        results: results.map(({ id, text }) => (id === undefined ? { text } : { id, text })),
      }),
    ),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom<Abstract>({ kind: 'invalid', role: 'robot' }, { kind: 'invalid', role: 'function' }),
  },
);

const transcript = fc.tuple(fc.array(item, { maxLength: 14 }), fc.constantFrom(...FORMATS));
const policy = fc.constantFrom('drop' as const, 'synthesize' as const);

/** Messages of any shape, including ones no format allows, with the format to read them as. */
const garbage = fc.tuple(
  fc.array(
    fc.oneof(
      fc.anything({ maxDepth: 2 }),
      fc.record(
        {
          role: fc.constantFrom('system', 'user', 'assistant', 'tool', 'developer', 'robot'),
          content: fc.oneof(fc.string(), fc.constant(null), fc.array(fc.anything({ maxDepth: 2 }), { maxLength: 3 })),
          tool_calls: fc.array(
            fc.oneof(fc.anything({ maxDepth: 1 }), fc.record({ id: ID, index: fc.anything({ maxDepth: 0 }) })),
            { maxLength: 3 },
          ),
          tool_call_id: ID,
        },
        { requiredKeys: ['role'] },
      ),
    ),
    { maxLength: 10 },
  ),
  fc.constantFrom<TranscriptFormat>(...FORMATS),
);

describe('repairTranscript properties', () => {
  it('always produces a transcript that validates, in every format', () => {
    fc.assert(
      fc.property(transcript, policy, ([items, format], unanswered) => {
        const { messages } = render(items, format);
        const repaired = repairTranscript(messages, { unanswered, format });
        expect(validateTranscript(repaired.messages, { format }).issues).toEqual([]);
      }),
      { numRuns: 600 },
    );
  });

  it('is idempotent: repairing a repaired transcript changes nothing', () => {
    fc.assert(
      fc.property(transcript, policy, ([items, format], unanswered) => {
        const once = repairTranscript(render(items, format).messages, { unanswered, format });
        const twice = repairTranscript(once.messages, { unanswered, format });
        expect(twice.changes).toEqual([]);
        expect(twice.messages).toEqual(once.messages);
      }),
      { numRuns: 400 },
    );
  });

  it('never mutates its input (deep-frozen) and reports a change for every difference', () => {
    fc.assert(
      fc.property(transcript, policy, ([items, format], unanswered) => {
        const { messages } = render(items, format);
        const copy = structuredClone(messages);
        const repaired = repairTranscript(deepFreeze(messages), { unanswered, format });
        expect(messages).toEqual(copy);
        // A transcript that needed no change is returned as is; one that changed says why.
        const valid = validateTranscript(messages, { format }).ok;
        expect(repaired.changes.length === 0).toBe(valid);
        if (valid) expect(repaired.messages).toEqual(messages);
      }),
      { numRuns: 400 },
    );
  });

  it('survives arbitrary garbage: the output validates and repairing again is a no-op', () => {
    fc.assert(
      fc.property(garbage, policy, ([messages, format], unanswered) => {
        const copy = structuredClone(messages);
        const once = repairTranscript(deepFreeze(messages), { unanswered, format });
        expect(validateTranscript(once.messages, { format }).issues).toEqual([]);
        expect(repairTranscript(once.messages, { unanswered, format }).changes).toEqual([]);
        expect(messages).toEqual(copy);
      }),
      { numRuns: 400 },
    );
  });

  it('detects the format of a rendered transcript with tool traffic', () => {
    fc.assert(
      fc.property(transcript, ([items, format]) => {
        const { messages } = render(items, format);
        const hasTraffic = items.some(
          (i) => i.kind === 'results' || (i.kind === 'assistant' && (i.calls?.length ?? 0) > 0),
        );
        fc.pre(hasTraffic);
        expect(validateTranscript(messages).format).toBe(format);
      }),
      { numRuns: 200 },
    );
  });
});
