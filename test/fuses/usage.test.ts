import { describe, expect, it } from 'vitest';
import { readUsage } from '../../src/fuses/usage.js';

describe('readUsage', () => {
  it('reads -0 as 0, so a reading survives a JSON round trip unchanged', () => {
    const reading = readUsage({ inputTokens: -0, outputTokens: 0 });

    expect(JSON.parse(JSON.stringify(reading))).toEqual(reading);
    expect(reading).toMatchObject({ status: 'ok', inputTokens: 0 });
  });

  it.each([
    [
      'OpenAI Chat Completions',
      {
        prompt_tokens: 1200,
        completion_tokens: 300,
        total_tokens: 1500,
        prompt_tokens_details: { cached_tokens: 1000, audio_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 128 },
      },
      {
        format: 'openai_chat',
        inputTokens: 1200,
        cachedInputTokens: 1000,
        cacheWriteTokens: 0,
        outputTokens: 300,
        reasoningTokens: 128,
      },
    ],
    [
      'OpenAI Responses',
      {
        input_tokens: 900,
        output_tokens: 50,
        total_tokens: 950,
        input_tokens_details: { cached_tokens: 512 },
        output_tokens_details: { reasoning_tokens: 20 },
      },
      {
        format: 'openai_responses',
        inputTokens: 900,
        cachedInputTokens: 512,
        cacheWriteTokens: 0,
        outputTokens: 50,
        reasoningTokens: 20,
      },
    ],
    [
      'Anthropic (cache reads and writes come on top of input_tokens)',
      { input_tokens: 100, output_tokens: 40, cache_read_input_tokens: 2000, cache_creation_input_tokens: 300 },
      {
        format: 'anthropic',
        inputTokens: 2400,
        cachedInputTokens: 2000,
        cacheWriteTokens: 300,
        outputTokens: 40,
        reasoningTokens: 0,
      },
    ],
    [
      'Anthropic with null cache fields',
      { input_tokens: 100, output_tokens: 40, cache_read_input_tokens: null, cache_creation_input_tokens: null },
      { format: 'anthropic', inputTokens: 100, cachedInputTokens: 0, cacheWriteTokens: 0, outputTokens: 40 },
    ],
    [
      'AI SDK v5',
      { inputTokens: 800, outputTokens: 60, totalTokens: 860, reasoningTokens: 10, cachedInputTokens: 600 },
      {
        format: 'ai_sdk',
        inputTokens: 800,
        cachedInputTokens: 600,
        cacheWriteTokens: 0,
        outputTokens: 60,
        reasoningTokens: 10,
      },
    ],
    [
      'AI SDK v6 (token details)',
      {
        inputTokens: 800,
        inputTokenDetails: { noCacheTokens: 150, cacheReadTokens: 600, cacheWriteTokens: 50 },
        outputTokens: 60,
        outputTokenDetails: { textTokens: 45, reasoningTokens: 15 },
        totalTokens: 860,
      },
      {
        format: 'ai_sdk',
        inputTokens: 800,
        cachedInputTokens: 600,
        cacheWriteTokens: 50,
        outputTokens: 60,
        reasoningTokens: 15,
      },
    ],
    [
      'AI SDK provider spec v3 (nested)',
      {
        inputTokens: { total: 800, noCache: 150, cacheRead: 600, cacheWrite: 50 },
        outputTokens: { total: 60, text: 45, reasoning: 15 },
      },
      {
        format: 'ai_sdk_nested',
        inputTokens: 800,
        cachedInputTokens: 600,
        cacheWriteTokens: 50,
        outputTokens: 60,
        reasoningTokens: 15,
      },
    ],
    [
      'AI SDK nested without totals',
      {
        inputTokens: { total: undefined, noCache: 150, cacheRead: 600, cacheWrite: undefined },
        outputTokens: { total: undefined, text: 45, reasoning: 15 },
      },
      { format: 'ai_sdk_nested', inputTokens: 750, cachedInputTokens: 600, outputTokens: 60 },
    ],
    [
      'AI SDK v4',
      { promptTokens: 70, completionTokens: 7, totalTokens: 77 },
      { format: 'ai_sdk_v4', inputTokens: 70, cachedInputTokens: 0, outputTokens: 7 },
    ],
  ])('reads %s', (_name, usage, expected) => {
    expect(readUsage(usage)).toMatchObject({ status: 'ok', ...expected });
  });

  it.each([
    undefined,
    null,
    'lots',
    [],
    {},
    { tokens: 5 },
    { prompt_tokens: 5 },
    { inputTokens: undefined, outputTokens: undefined, totalTokens: undefined },
    { inputTokens: { total: undefined }, outputTokens: { total: undefined } },
  ])('calls %o missing', (usage) => {
    expect(readUsage(usage)).toEqual({ status: 'missing' });
  });

  it.each([
    [{ prompt_tokens: -1, completion_tokens: 0 }, '`prompt_tokens`'],
    [{ input_tokens: 1, output_tokens: Number.NaN }, '`output_tokens`'],
    [{ inputTokens: Number.POSITIVE_INFINITY, outputTokens: 1 }, '`inputTokens`'],
    [{ inputTokens: { total: -3 }, outputTokens: { total: 1 } }, '`inputTokens.total`'],
    [{ prompt_tokens: 1, completion_tokens: '2' }, '`completion_tokens`'],
    [{ prompt_tokens: 1, completion_tokens: 2, prompt_tokens_details: 7 }, '`prompt_tokens_details`'],
    [{ input_tokens: 10, output_tokens: 1, input_tokens_details: { cached_tokens: 11 } }, 'exceed the input tokens'],
  ])('calls %o invalid', (usage, reason) => {
    const reading = readUsage(usage);

    expect(reading.status).toBe('invalid');
    expect(reading.status === 'invalid' ? reading.reason : '').toContain(reason);
  });

  it('reads a usage object whose getters throw as invalid, without throwing', () => {
    const usage = {
      get prompt_tokens(): number {
        throw new Error('getter exploded');
      },
      completion_tokens: 1,
    };

    expect(readUsage(usage)).toEqual({ status: 'invalid', reason: 'getter exploded' });
  });
});
