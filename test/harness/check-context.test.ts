import { describe, expect, it } from 'vitest';
import { checkContext } from '../../src/harness/context-policy/check-context.js';
import {
  ContextPolicyError,
  compactToolResults,
  HarnessConfigError,
  type ModelMessage,
} from '../../src/harness/index.js';

const system: ModelMessage = { role: 'system', content: 'contract' };
const prompt: ModelMessage = { role: 'user', content: 'Request: x' };
const ask: ModelMessage = {
  role: 'assistant',
  content: '',
  toolCalls: [
    { id: 'a', name: 'f', input: {} },
    { id: 'b', name: 'g', input: {} },
  ],
};
const resultA: ModelMessage = {
  role: 'tool',
  toolCallId: 'a',
  toolName: 'f',
  content: '{"ref":"ev_1","result":1}',
  isError: false,
  evidenceRef: 'ev_1',
};
const resultB: ModelMessage = {
  role: 'tool',
  toolCallId: 'b',
  toolName: 'g',
  content: '{"status":"failed"}',
  isError: true,
};
const transcript = [system, prompt, ask, resultA, resultB];

describe('checkContext', () => {
  it('accepts a transcript that keeps the pins and answers every call in order', () => {
    expect(() => checkContext('p', transcript, transcript, 1)).not.toThrow();
  });

  it('refuses results out of order, missing, orphaned, or calls before the run prompt', () => {
    const refused = (messages: ModelMessage[]) => () => checkContext('p', messages, transcript, 1);

    expect(refused([system, prompt, ask, resultB, resultA])).toThrow(ContextPolicyError);
    expect(refused([system, prompt, ask, resultA])).toThrow(/`b` of `g`/);
    expect(refused([system, prompt, resultA])).toThrow(/does not follow its tool call/);
    expect(refused([system, ask, resultA, resultB, prompt])).toThrow(/before the run prompt/);
    expect(refused([system, system, prompt])).toThrow(/only the first message/);
  });
});

describe('compactToolResults', () => {
  it('compacts only succeeded results with a ref, once enough model calls followed them', async () => {
    const policy = compactToolResults({ afterModelCalls: 2 });
    const later: ModelMessage[] = [
      { role: 'assistant', content: 'x' },
      { role: 'user', content: 'y' },
    ];

    const once = await policy.apply([...transcript, ...later], {
      runId: 'r',
      step: 3,
      modelCalls: 2,
      runPromptIndex: 1,
    });
    const twice = await policy.apply([...transcript, ...later, ...later], {
      runId: 'r',
      step: 4,
      modelCalls: 3,
      runPromptIndex: 1,
    });

    expect(once[3]).toEqual(resultA);
    expect(JSON.parse(twice[3]?.content ?? '')).toMatchObject({ compacted: true, ref: 'ev_1' });
    expect(twice[4]).toEqual(resultB);
  });

  it('refuses a threshold below one', () => {
    expect(() => compactToolResults({ afterModelCalls: 0 })).toThrow(HarnessConfigError);
  });
});
