import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  charTokenCounter,
  createCharTokenCounter,
  createGptTokenCounter,
  type MessageTokenCounter,
  tokenCounterFromFunction,
} from '../../src/context/tokens.js';
import { toAiSdkMessages } from '../../src/context/transcript/convert-ai-sdk.js';
import { toAnthropicMessages } from '../../src/context/transcript/convert-anthropic.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('chars/4 counter', () => {
  it('rounds characters / 4 up', () => {
    expect(charTokenCounter.count('')).toBe(0);
    expect(charTokenCounter.count('hello world')).toBe(3);
    expect(createCharTokenCounter({ charsPerToken: 2 }).count('abcde')).toBe(3);
    expect(() => createCharTokenCounter({ charsPerToken: 0 })).toThrow(
      '`options.charsPerToken` must be a positive number',
    );
  });

  it('counts messages with per-message overhead, tool calls included', () => {
    const plain = charTokenCounter.countMessages([{ role: 'user', content: 'hi' }]);
    const withCall = charTokenCounter.countMessages([
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"id":"c_123"}' } }],
      },
    ]);

    expect(plain).toBe(3 + 3 + Math.ceil('user\nhi'.length / 4));
    expect(withCall).toBeGreaterThan(plain + 5);
  });
});

describe('gpt-tokenizer counter', () => {
  const counter: MessageTokenCounter = createGptTokenCounter();

  it('counts OpenAI models with their encoding and falls back to chars/4 for others', () => {
    expect(counter.count('hello world', 'gpt-4o')).toBe(2);
    expect(counter.count('hello world', 'openai/gpt-4.1-mini')).toBe(2);
    expect(counter.count('hello world', 'gpt-4')).toBe(2);
    expect(counter.count('hello world', 'claude-sonnet-4')).toBe(3);
    expect(counter.count('hello world')).toBe(2);
  });

  it('tells o200k from cl100k models apart', () => {
    const text = 'Ένα κείμενο στα ελληνικά για να δούμε τη διαφορά των κωδικοποιήσεων.';
    expect(counter.count(text, 'gpt-4o')).not.toBe(counter.count(text, 'gpt-3.5-turbo'));
  });

  it('counts special-token text as text instead of throwing', () => {
    expect(counter.count('a <|endoftext|> b', 'gpt-4o')).toBeGreaterThan(3);
  });

  it('counts the same conversation close to equally in all three formats', () => {
    const chat = [
      { role: 'user' as const, content: 'What is the weather in Oslo today?' },
      {
        role: 'assistant' as const,
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function' as const, function: { name: 'weather', arguments: '{"city":"Oslo"}' } },
        ],
      },
      { role: 'tool' as const, tool_call_id: 'call_1', content: 'Four degrees and light rain' },
    ];

    const openai = counter.countMessages(chat, 'gpt-4o');
    const aiSdk = counter.countMessages(toAiSdkMessages(chat), 'gpt-4o');
    const anthropic = counter.countMessages(toAnthropicMessages(chat).messages, 'gpt-4o');

    for (const other of [aiSdk, anthropic]) expect(Math.abs(other - openai)).toBeLessThanOrEqual(openai * 0.3);
  });

  it('uses the fallback for a non-OpenAI model when counting messages', () => {
    const fallback: MessageTokenCounter = { name: 'fixed', count: () => 7, countMessages: () => 42 };
    const custom = createGptTokenCounter({ fallback });

    expect(custom.count('anything', 'gemini-2.5-pro')).toBe(7);
    expect(custom.countMessages([], 'gemini-2.5-pro')).toBe(42);
  });

  it('adapts a plain count function (such as the budget fuse counter)', () => {
    const seen: string[] = [];
    const adapted = tokenCounterFromFunction(
      'fn',
      (text, model) => {
        seen.push(model);
        return text.length;
      },
      'gpt-4o',
    );

    expect(adapted.count('abc')).toBe(3);
    expect(adapted.countMessages([{ role: 'user', content: 'hi' }], 'o3')).toBe(3 + 3 + 'user\nhi'.length);
    expect(seen).toEqual(['gpt-4o', 'o3']);
  });

  it('is not loaded when the root entry is imported', () => {
    const script = [
      "const { createRequire } = await import('node:module');",
      "await import('./src/index.ts');",
      'const cache = createRequire(import.meta.url).cache;',
      "process.stdout.write(String(Object.keys(cache).some((key) => key.includes('gpt-tokenizer'))));",
    ].join('\n');

    const loaded = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: ROOT,
      encoding: 'utf8',
    });

    expect(loaded).toBe('false');
  });
});
