/**
 * `config.prepareMessages`: transcript repair, then validation, then the history guard.
 */
import { createHistoryGuard, type HistoryEvent, type HistoryGuard } from '../context/history/history-guard.js';
import { createGptTokenCounter } from '../context/tokens.js';
import { repairTranscript } from '../context/transcript/repair.js';
import type { TranscriptChange } from '../context/transcript/types.js';
import { assertTranscript } from '../context/transcript/validate.js';
import { arrayArgument, readArgument } from '../invalid-argument.js';
import { pickDefined } from './defined.js';
import type { HistoryGuardSettings, TranscriptSettings } from './types.js';

/** What preparing messages reports. */
export type PrepareMessagesEvent =
  | { readonly type: 'transcript_repaired'; readonly changes: readonly TranscriptChange[] }
  | { readonly type: 'history'; readonly event: HistoryEvent };

/** Build the history guard of `history_guard`. */
export function historyGuardOf(
  settings: HistoryGuardSettings,
  emit: (event: PrepareMessagesEvent) => void,
): HistoryGuard {
  return createHistoryGuard({
    ...pickDefined(settings, ['maxTokens', 'maxMessages', 'warnAt', 'duplicates', 'onDuplicate', 'model']),
    ...(settings.tokenizer === 'gpt' ? { tokenCounter: createGptTokenCounter() } : {}),
    onEvent: (event) => emit({ type: 'history', event }),
  });
}

/**
 * Prepare `messages` for a model call: repair (a new array; the input is never changed), refuse a
 * transcript still invalid (`TranscriptError`), then measure it (`HistoryTruncatedError` past a
 * limit). `messages` that are not an array are an `InvalidArgumentError`. Without a `transcript` section or a history guard, that step is skipped.
 */
export function prepareMessagesWith<M>(
  messages: readonly M[],
  transcript: TranscriptSettings | undefined,
  guard: HistoryGuard | undefined,
  emit: (event: PrepareMessagesEvent) => void,
): M[] {
  arrayArgument('prepareMessages', 'messages', messages);
  let out = readArgument('prepareMessages', 'messages', () => [...messages]);
  if (transcript !== undefined) {
    const format = transcript.format === undefined ? {} : { format: transcript.format };
    if (transcript.repair) {
      const repaired = repairTranscript(out, { unanswered: transcript.unanswered, ...format });
      if (repaired.changes.length > 0) emit({ type: 'transcript_repaired', changes: repaired.changes });
      out = repaired.messages;
    }
    if (transcript.validate) assertTranscript(out, format);
  }
  guard?.validate(out);
  return out;
}
