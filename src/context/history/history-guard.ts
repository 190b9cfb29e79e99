/**
 * The history guard: loud limits on history size (instead of a framework's silent truncation),
 * duplicate-turn detection and detection of messages a framework dropped or reordered.
 */

import { InvalidArgumentError, optionsOf } from '../../invalid-argument.js';
import { HistoryDropError, HistoryDuplicateError, type HistoryLimit, HistoryTruncatedError } from '../errors.js';
import { charTokenCounter, type MessageTokenCounter, tokenCounterFromFunction } from '../tokens.js';
import { compareHistories, type DropReport } from './check-drops.js';
import { turnFingerprint } from './turn-fingerprint.js';

/** Something the guard noticed. */
export type HistoryEvent =
  | { readonly type: 'near_limit'; readonly limit: HistoryLimit; readonly value: number; readonly max: number }
  | { readonly type: 'overflow'; readonly limit: HistoryLimit; readonly value: number; readonly max: number }
  | { readonly type: 'duplicate_turn'; readonly index: number; readonly firstIndex: number }
  | { readonly type: 'messages_dropped'; readonly report: DropReport };

/** Options of {@link createHistoryGuard}. */
export interface HistoryGuardOptions {
  readonly maxTokens?: number;
  readonly maxMessages?: number;
  /** Fraction of a limit at which `near_limit` is emitted. Default 0.8. */
  readonly warnAt?: number;
  /**
   * Default chars/4. Either a message counter, or the `(text, model) => number` function the budget
   * fuse takes (`defaultTokenCounter`), so both guards count with one tokenizer.
   */
  readonly tokenCounter?: MessageTokenCounter | ((text: string, model: string) => number);
  /** Model passed to the counter. */
  readonly model?: string;
  /**
   * Where duplicates are looked for: `adjacent` (default) — a turn equal to the one right before it,
   * and a turn that carries tool-call ids (an assistant turn with calls, a tool result) equal to any
   * earlier one, since ids are unique and such a repeat is always a replayed turn; `anywhere` — any
   * earlier turn; `off`.
   */
  readonly duplicates?: 'adjacent' | 'anywhere' | 'off';
  /**
   * `raise` (default): `validate` throws {@link HistoryDuplicateError}, as it does past a limit;
   * `report`: duplicates are only in the report and events.
   */
  readonly onDuplicate?: 'report' | 'raise';
  /** Receives events; called synchronously, its errors propagate. */
  readonly onEvent?: (event: HistoryEvent) => void;
}

/** A turn identical to an earlier one. */
export interface DuplicateTurn {
  readonly index: number;
  readonly firstIndex: number;
}

/** What {@link HistoryGuard.validate} measured. */
export interface HistoryReport {
  readonly messageCount: number;
  readonly estimatedTokens: number;
  readonly nearLimit: readonly HistoryLimit[];
  readonly duplicates: readonly DuplicateTurn[];
}

/** A history guard. */
export interface HistoryGuard {
  /** Measure `messages`; throws {@link HistoryTruncatedError} past a limit. */
  validate(messages: readonly unknown[]): HistoryReport;
  /** Turns identical (role, full content, tool calls and ids) to an earlier one. */
  findDuplicates(messages: readonly unknown[]): DuplicateTurn[];
  /** Compare a history before and after a framework processed it. */
  checkForDrops(original: readonly unknown[], processed: readonly unknown[]): DropReport;
  /** Like `checkForDrops`, but throws {@link HistoryDropError}. */
  assertNoDrops(original: readonly unknown[], processed: readonly unknown[]): void;
}

/** Whether a turn carries tool-call ids: an assistant turn with calls, or a tool result, in any format. */
function carriesCallIds(message: unknown): boolean {
  if (typeof message !== 'object' || message === null) return false;
  const m = message as Record<string, unknown>;
  if (typeof m.tool_call_id === 'string' || (Array.isArray(m.tool_calls) && m.tool_calls.length > 0)) return true;
  // AI SDK and Anthropic turns carry their ids in content parts.
  return (
    Array.isArray(m.content) &&
    m.content.some((part) => {
      const p = part as Record<string, unknown> | null;
      return (
        p !== null &&
        typeof p === 'object' &&
        (typeof p.toolCallId === 'string' || typeof p.id === 'string' || typeof p.tool_use_id === 'string')
      );
    })
  );
}

function checkLimit(name: string, value: number | undefined): void {
  if (value !== undefined && !(Number.isInteger(value) && value > 0)) {
    throw new InvalidArgumentError(
      'createHistoryGuard',
      `options.${name}`,
      `must be a positive integer, got \`${value}\``,
    );
  }
}

/**
 * Create a history guard.
 *
 * @example
 * const guard = createHistoryGuard({ maxTokens: 100_000, maxMessages: 400, warnAt: 0.8,
 *   tokenCounter: createGptTokenCounter(), model: 'gpt-4o', onEvent: (event) => logger.warn(event) });
 * guard.validate(messages); // throws HistoryTruncatedError past a limit, HistoryDuplicateError on a replayed turn
 */
export function createHistoryGuard(given: HistoryGuardOptions = {}): HistoryGuard {
  const options = optionsOf('createHistoryGuard', given, true);
  const {
    maxTokens,
    maxMessages,
    warnAt = 0.8,
    tokenCounter: counterOption = charTokenCounter,
    model,
    duplicates = 'adjacent',
    onDuplicate = 'raise',
  } = options;
  if (onDuplicate !== 'report' && onDuplicate !== 'raise')
    throw new InvalidArgumentError(
      'createHistoryGuard',
      'options.onDuplicate',
      `must be \`report\` or \`raise\`, got \`${String(onDuplicate)}\``,
    );
  const tokenCounter =
    typeof counterOption === 'function'
      ? tokenCounterFromFunction(counterOption.name || 'custom', counterOption, model ?? 'gpt-4o')
      : counterOption;
  checkLimit('maxTokens', maxTokens);
  checkLimit('maxMessages', maxMessages);
  if (!(warnAt > 0 && warnAt <= 1))
    throw new InvalidArgumentError('createHistoryGuard', 'options.warnAt', `must be in (0, 1], got \`${warnAt}\``);
  const emit = options.onEvent ?? ((): void => undefined);

  function findDuplicates(messages: readonly unknown[]): DuplicateTurn[] {
    if (duplicates === 'off') return [];
    const found: DuplicateTurn[] = [];
    const first = new Map<string, number>();
    let previous: string | undefined;
    messages.forEach((message, index) => {
      const fingerprint = turnFingerprint(message);
      if (duplicates === 'adjacent' && !carriesCallIds(message)) {
        if (fingerprint === previous) found.push({ index, firstIndex: index - 1 });
        previous = fingerprint;
        return;
      }
      previous = fingerprint;
      const seen = first.get(fingerprint);
      if (seen === undefined) first.set(fingerprint, index);
      else found.push({ index, firstIndex: seen });
    });
    return found;
  }

  function checkForDrops(original: readonly unknown[], processed: readonly unknown[]): DropReport {
    const report = compareHistories(original, processed);
    if (!report.ok) emit({ type: 'messages_dropped', report });
    return report;
  }

  return {
    validate(messages) {
      const messageCount = messages.length;
      const estimatedTokens = tokenCounter.countMessages(messages, model);
      const nearLimit: HistoryLimit[] = [];
      const limits: [HistoryLimit, number, number | undefined][] = [
        ['messages', messageCount, maxMessages],
        ['tokens', estimatedTokens, maxTokens],
      ];
      for (const [limit, value, max] of limits) {
        if (max === undefined) continue;
        if (value > max) {
          emit({ type: 'overflow', limit, value, max });
          throw new HistoryTruncatedError({ messageCount, estimatedTokens, limit, max });
        }
        if (value >= warnAt * max) {
          nearLimit.push(limit);
          emit({ type: 'near_limit', limit, value, max });
        }
      }
      const found = findDuplicates(messages);
      for (const duplicate of found) emit({ type: 'duplicate_turn', ...duplicate });
      if (onDuplicate === 'raise' && found.length > 0) throw new HistoryDuplicateError(found);
      return { messageCount, estimatedTokens, nearLimit, duplicates: found };
    },
    findDuplicates,
    checkForDrops,
    assertNoDrops(original, processed) {
      const report = checkForDrops(original, processed);
      if (report.ok) return;
      const findings = [
        ...report.dropped.map((index) => ({ kind: 'dropped' as const, index })),
        ...report.reordered.map((index) => ({ kind: 'reordered' as const, index })),
      ].sort((a, b) => a.index - b.index);
      throw new HistoryDropError(findings);
    },
  };
}
