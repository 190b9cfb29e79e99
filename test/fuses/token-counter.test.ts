import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { measureModelCall } from '../../src/fuses/model-call.js';
import {
  approximateTokenCounter,
  defaultTokenCounter,
  openAiEncodingFor,
  preloadTokenizer,
} from '../../src/fuses/token-counter.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('openAiEncodingFor', () => {
  it.each([
    ['gpt-4o', 'o200k_base'],
    ['gpt-4o-mini-2024-07-18', 'o200k_base'],
    ['gpt-4.1-nano', 'o200k_base'],
    ['gpt-5', 'o200k_base'],
    ['o1', 'o200k_base'],
    ['o3-mini', 'o200k_base'],
    ['o4-mini-2025-04-16', 'o200k_base'],
    ['chatgpt-4o-latest', 'o200k_base'],
    ['openai/gpt-4o', 'o200k_base'],
    ['gpt-4', 'cl100k_base'],
    ['gpt-4-turbo', 'cl100k_base'],
    ['gpt-3.5-turbo', 'cl100k_base'],
    ['text-embedding-3-small', 'cl100k_base'],
    ['claude-sonnet-4', null],
    ['gemini-2.5-pro', null],
    ['o1x', null],
    ['llama-3.1-70b', null],
  ])('maps `%s` to %s', (model, encoding) => {
    expect(openAiEncodingFor(model)).toBe(encoding);
  });
});

describe('token counters', () => {
  it('estimates four characters a token for other models', () => {
    expect(approximateTokenCounter('abcdefghi', 'claude')).toBe(3);
    expect(defaultTokenCounter('abcdefghi', 'claude-sonnet-4')).toBe(3);
  });

  it('counts OpenAI models with gpt-tokenizer', () => {
    const text = 'The quick brown fox jumps over the lazy dog, again and again.';

    expect(preloadTokenizer('gpt-4o')).toBe(true);
    expect(defaultTokenCounter(text, 'gpt-4o')).toBe(countTokens(text));
  });

  it('counts special-token text as plain text instead of throwing', () => {
    expect(defaultTokenCounter('before <|endoftext|> after', 'gpt-4o')).toBeGreaterThan(3);
  });

  it('does not load gpt-tokenizer when the root entry is imported, only on first use', () => {
    const script = `
      import { createRequire } from 'node:module';
      const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((k) => k.includes('gpt-tokenizer'));
      const fuses = await import('./src/index.ts');
      const afterImport = loaded();
      fuses.budgetFuse({ maxUsd: 1, price: { inputPer1k: 1, outputPer1k: 1 } });
      const afterConstruction = loaded();
      fuses.defaultTokenCounter('hello', 'claude-sonnet-4');
      const afterOtherModel = loaded();
      fuses.defaultTokenCounter('hello', 'gpt-4o');
      console.log(JSON.stringify([afterImport, afterConstruction, afterOtherModel, loaded()]));
    `;

    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: root,
      encoding: 'utf8',
    });

    expect(JSON.parse(out.trim())).toEqual([false, false, false, true]);
  });
});

describe('measureModelCall', () => {
  it('counts message framing, tools and the completion cap', () => {
    const counter = (text: string): number => text.length;

    const facts = measureModelCall(
      {
        model: 'm',
        messages: ['abc', { role: 'user', content: 'hello' }, { role: 'assistant', content: null, tool_calls: [] }],
        tools: { a: 1 },
        maxOutputTokens: 9,
      },
      counter,
    );

    const assistant = JSON.stringify({ role: 'assistant', content: null, tool_calls: [] }).length;
    expect(facts).toEqual({
      model: 'm',
      promptTokens: 3 + 3 * 4 + 3 + 'user\nhello'.length + assistant,
      toolTokens: '{"a":1}'.length,
      maxOutputTokens: 9,
    });
  });

  it('adds the prompt tokens known without counting, and refuses a bad count', () => {
    const counter = (text: string): number => text.length;

    const known = measureModelCall(
      { model: 'm', messages: ['abc'], maxOutputTokens: 9, knownPromptTokens: 500 },
      counter,
    );
    const bad = measureModelCall({ model: 'm', messages: [], maxOutputTokens: 9, knownPromptTokens: -1 }, counter);

    expect(known).toMatchObject({ promptTokens: 500 + 3 + 4 + 3 });
    expect(bad).toMatchObject({ fault: 'invalid_request', message: expect.stringMatching(/knownPromptTokens/) });
  });
});
