import { describe, expect, it } from 'vitest';
import { HistoryDropError, HistoryTruncatedError } from '../../src/context/errors.js';
import { createHistoryGuard, type HistoryEvent } from '../../src/context/history/history-guard.js';
import { turnFingerprint } from '../../src/context/history/turn-fingerprint.js';
import { createGptTokenCounter, type MessageTokenCounter } from '../../src/context/tokens.js';

const say = (role: string, content: string) => ({ role, content });
const toolTurn = (id: string) => ({
  role: 'assistant',
  content: '',
  tool_calls: [{ id, type: 'function', function: { name: 'lookup', arguments: '{}' } }],
});

/** A counter where every message costs 10 tokens, so limits are easy to reason about. */
const tenPerMessage: MessageTokenCounter = {
  name: 'ten',
  count: () => 10,
  countMessages: (messages) => messages.length * 10,
};

describe('history guard: limits', () => {
  it('raises HistoryTruncatedError past maxMessages, with the counts', () => {
    const events: HistoryEvent[] = [];
    const guard = createHistoryGuard({ maxMessages: 3, tokenCounter: tenPerMessage, onEvent: (e) => events.push(e) });
    const history = [say('user', 'a'), say('assistant', 'b'), say('user', 'c'), say('assistant', 'd')];

    const error = (() => {
      try {
        guard.validate(history);
      } catch (thrown) {
        return thrown;
      }
      return undefined;
    })();

    expect(error).toBeInstanceOf(HistoryTruncatedError);
    expect(error).toMatchObject({
      code: 'history_truncated',
      messageCount: 4,
      estimatedTokens: 40,
      limit: 'messages',
      max: 3,
    });
    expect(events).toEqual([{ type: 'overflow', limit: 'messages', value: 4, max: 3 }]);
  });

  it('raises past maxTokens and emits near_limit at the warnAt fraction', () => {
    const events: HistoryEvent[] = [];
    const guard = createHistoryGuard({
      maxTokens: 50,
      warnAt: 0.8,
      tokenCounter: tenPerMessage,
      onEvent: (e) => events.push(e),
    });

    const small = guard.validate([say('user', 'a'), say('user', 'b'), say('user', 'c')]);
    const near = guard.validate([say('user', 'a'), say('user', 'b'), say('user', 'c'), say('user', 'd')]);

    expect(small).toMatchObject({ messageCount: 3, estimatedTokens: 30, nearLimit: [] });
    expect(near.nearLimit).toEqual(['tokens']);
    expect(events).toEqual([{ type: 'near_limit', limit: 'tokens', value: 40, max: 50 }]);
    expect(() => guard.validate(Array.from({ length: 6 }, () => say('user', 'x')))).toThrow(
      'History of 6 messages (60 tokens) exceeds the `tokens` limit: 60 > 50',
    );
  });

  it('counts real tokens through the pluggable counter', () => {
    const history = [say('user', 'hello world '.repeat(50))];
    const byChars = createHistoryGuard().validate(history).estimatedTokens;
    const byTokenizer = createHistoryGuard({ tokenCounter: createGptTokenCounter(), model: 'gpt-4o' }).validate(
      history,
    ).estimatedTokens;

    expect(byTokenizer).toBeLessThan(byChars);
    expect(byTokenizer).toBe(3 + 3 + createGptTokenCounter().count(`user\n${'hello world '.repeat(50)}`, 'gpt-4o'));
  });

  it('validates its options', () => {
    expect(() => createHistoryGuard({ maxTokens: -1 })).toThrow('`options.maxTokens` must be a positive integer');
    expect(() => createHistoryGuard({ warnAt: 1.5 })).toThrow('`options.warnAt` must be in (0, 1]');
  });
});

describe('history guard: duplicates', () => {
  it('flags a turn repeated right after itself', () => {
    const events: HistoryEvent[] = [];
    const guard = createHistoryGuard({ onDuplicate: 'report', onEvent: (e) => events.push(e) });

    const report = guard.validate([say('user', 'hi'), say('assistant', 'hello'), say('assistant', 'hello')]);

    expect(report.duplicates).toEqual([{ index: 2, firstIndex: 1 }]);
    expect(events).toContainEqual({ type: 'duplicate_turn', index: 2, firstIndex: 1 });
  });

  it('does not flag two tool-call turns with empty content (their call ids differ)', () => {
    const guard = createHistoryGuard({ duplicates: 'anywhere' });

    const found = guard.findDuplicates([
      toolTurn('call_1'),
      { role: 'tool', tool_call_id: 'call_1', content: '' },
      toolTurn('call_2'),
    ]);
    const adjacent = createHistoryGuard().findDuplicates([toolTurn('call_1'), toolTurn('call_2')]);

    expect(found).toEqual([]);
    expect(adjacent).toEqual([]);
  });

  it('flags the same tool-call turn (same ids) twice, and looks anywhere when asked', () => {
    const anywhere = createHistoryGuard({ duplicates: 'anywhere' });
    const history = [toolTurn('call_1'), say('user', 'again'), toolTurn('call_1')];

    expect(anywhere.findDuplicates(history)).toEqual([{ index: 2, firstIndex: 0 }]);
    // Call ids are unique: a turn that repeats them is a replayed turn wherever it is, so the
    // default finds it too; plain text repeated further apart ("yes" twice) is a conversation.
    expect(createHistoryGuard().findDuplicates(history)).toEqual([{ index: 2, firstIndex: 0 }]);
    expect(
      createHistoryGuard().findDuplicates([say('user', 'yes'), say('assistant', 'ok'), say('user', 'yes')]),
    ).toEqual([]);
    expect(createHistoryGuard({ duplicates: 'off' }).findDuplicates([toolTurn('a'), toolTurn('a')])).toEqual([]);
  });

  it('raises on a duplicated turn by default, as mycelium-runtime does', () => {
    const guard = createHistoryGuard();
    const replayed = [say('user', 'pay invoice 42'), toolTurn('call_9'), say('user', 'and?'), toolTurn('call_9')];

    expect(() => guard.validate(replayed)).toThrow(
      expect.objectContaining({ code: 'history_duplicate_turn', duplicates: [{ index: 3, firstIndex: 1 }] }),
    );
    expect(guard.validate([say('user', 'hi')]).duplicates).toEqual([]);
    // Tool-call turns with empty content are not duplicates when their call ids differ.
    expect(guard.validate([toolTurn('call_1'), toolTurn('call_2')]).duplicates).toEqual([]);
    expect(() => createHistoryGuard({ onDuplicate: 'explode' as never })).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
  });

  it('fingerprints full content in every format, not a prefix', () => {
    const long = 'x'.repeat(5000);
    const guard = createHistoryGuard();

    expect(guard.findDuplicates([say('user', `${long}a`), say('user', `${long}b`)])).toEqual([]);
    expect(
      guard.findDuplicates([
        { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'a', toolName: 'f', input: {} }] },
        { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'b', toolName: 'f', input: {} }] },
      ]),
    ).toEqual([]);
  });
});

describe('turn fingerprints', () => {
  it('fingerprint bytes, URLs and key order by value', () => {
    const image = (bytes: number[]) => ({ role: 'user', content: [{ type: 'image', image: new Uint8Array(bytes) }] });

    expect(turnFingerprint(image([1, 2]))).toBe(turnFingerprint(image([1, 2])));
    expect(turnFingerprint(image([1, 2]))).not.toBe(turnFingerprint(image([1, 3])));
    expect(turnFingerprint({ role: 'user', content: [{ type: 'image', image: new URL('https://x/a.png') }] })).toBe(
      turnFingerprint({ content: [{ image: new URL('https://x/a.png'), type: 'image' }], role: 'user' }),
    );
    expect(turnFingerprint({ role: 'user', content: 'a', parsed: 1 })).toBe(
      turnFingerprint({ role: 'user', content: 'a' }),
    );
  });
});

describe('history guard: drops and reorders', () => {
  const original = [
    say('system', 's'),
    say('user', 'a'),
    say('assistant', 'b'),
    say('user', 'c'),
    say('assistant', 'd'),
  ];

  it('accepts an identical or extended history', () => {
    const guard = createHistoryGuard();

    expect(guard.checkForDrops(original, [...original])).toEqual({ ok: true, dropped: [], reordered: [], added: [] });
    expect(guard.checkForDrops(original, [...original, say('user', 'e')])).toMatchObject({ ok: true, added: [5] });
  });

  it('detects a dropped message', () => {
    const events: HistoryEvent[] = [];
    const guard = createHistoryGuard({ onEvent: (e) => events.push(e) });

    const report = guard.checkForDrops(original, [original[0], original[3], original[4]]);

    expect(report).toMatchObject({ ok: false, dropped: [1, 2], reordered: [] });
    expect(events[0]).toMatchObject({ type: 'messages_dropped' });
  });

  it('detects a reorder (ordered fingerprints, not a set)', () => {
    const report = createHistoryGuard().checkForDrops(original, [
      original[0],
      original[3],
      original[1],
      original[2],
      original[4],
    ]);

    expect(report).toMatchObject({ ok: false, dropped: [], reordered: [3] });
  });

  it('counts repeated identical messages one by one', () => {
    const history = [say('user', 'ok'), say('assistant', 'x'), say('user', 'ok')];

    const report = createHistoryGuard().checkForDrops(history, [say('user', 'ok'), say('assistant', 'x')]);

    expect(report).toMatchObject({ ok: false, dropped: [2] });
  });

  it('assertNoDrops throws HistoryDropError listing the findings', () => {
    const guard = createHistoryGuard();

    expect(() => guard.assertNoDrops(original, original)).not.toThrow();
    expect(() => guard.assertNoDrops(original, original.slice(1))).toThrow(HistoryDropError);
    expect(() => guard.assertNoDrops(original, original.slice(1))).toThrow(
      'History lost 1 message(s) in processing; first: message 0 dropped',
    );
  });
});
