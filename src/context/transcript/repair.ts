/**
 * `repairTranscript`: a new transcript that passes `validateTranscript`, and the list of changes.
 */
import { InvalidArgumentError, readArgument, readOptions } from '../../invalid-argument.js';
import { blockOwners } from './analyze.js';
import { adapterFor, messagesArgument } from './detect-format.js';
import { planRepair, type RepairPlan, type UnansweredPolicy } from './repair-plan.js';
import { type FormatAdapter, isObj, type OutResult, stripMessage, type Turn, type TurnEdit } from './turns.js';
import type { TranscriptChange, TranscriptFormat } from './types.js';

/** Options of {@link repairTranscript}. */
export interface RepairTranscriptOptions {
  /**
   * A call with no result anywhere: `synthesize` (default) answers it with a result saying it was
   * NOT executed; `drop` removes the call (and its message, when nothing else is left).
   */
  readonly unanswered?: UnansweredPolicy;
  /** The message format; detected from the messages when omitted. */
  readonly format?: TranscriptFormat;
}

/** What {@link repairTranscript} returns. */
export interface TranscriptRepair<M> {
  /** A new array; unchanged messages are the input objects themselves, changed ones are copies. */
  readonly messages: M[];
  readonly changes: readonly TranscriptChange[];
  readonly format: TranscriptFormat;
}

function unchanged(turn: Turn, edit: TurnEdit): boolean {
  if (turn.artifacts.length > 0 || edit.appended.length > 0) return false;
  for (const call of turn.calls) {
    const out = edit.calls.get(call);
    if (out === undefined || out.id !== call.id || out.source !== call.source) return false;
    if (call.hasIndex && out.index !== call.index) return false;
  }
  for (const result of turn.results) {
    const out = edit.results.get(result);
    if (out === undefined || out.id !== result.id || out.source !== result.source) return false;
  }
  return true;
}

const NONE: readonly OutResult[] = Object.freeze([]);

function write(turns: readonly Turn[], owners: Int32Array, adapter: FormatAdapter, plan: RepairPlan): unknown[] {
  const output: unknown[] = [];
  const plain: TurnEdit = { calls: plan.calls, results: plan.results, appended: NONE };
  let pending: readonly OutResult[] = NONE;
  let pendingOwner = -1;
  for (const turn of turns) {
    const owner = owners[turn.index] ?? -1;
    // Results appended to a block go right after its last turn (`run`), or into its turn (`next`).
    const inline = adapter.block === 'next' && owner === pendingOwner && pending.length > 0;
    if (pending.length > 0 && owner !== pendingOwner) {
      output.push(...adapter.resultMessages(pending));
      pending = NONE;
    }
    if (plan.dropped.has(turn.index)) continue;
    const edit: TurnEdit = inline ? { ...plain, appended: pending } : plain;
    if (inline) pending = NONE;
    if (unchanged(turn, edit)) output.push(turn.source);
    else {
      // Every written message is stripped last, whatever the format keeps: a repair reports an
      // artifact only when it removes it (a `tool_calls` key an Anthropic message should not have).
      const written = adapter.write(turn, edit).map((message) => (isObj(message) ? stripMessage(message) : message));
      if (written.length === 0 && turn.role === 'assistant') {
        plan.changes.push({
          kind: 'dropped_empty_message',
          index: turn.index,
          message: `Dropped message ${turn.index}: nothing was left in it`,
        });
      }
      output.push(...written);
    }
    if (turn.role === 'assistant') {
      pending = plan.appended.get(turn.index) ?? NONE;
      pendingOwner = turn.index;
    }
  }
  if (pending.length > 0) output.push(...adapter.resultMessages(pending));
  return output;
}

/**
 * Repair a transcript in any of the three formats, in O(n). The input is never mutated.
 *
 * Invalid-role messages and orphan results are dropped; a misplaced result moves to the block
 * right after its call (or is dropped when that block already answers it); of several calls or
 * results with one id the first position survives with the last content; a call without an id
 * gets one; `fc_…` ids mixed into `call_…` ids (or the reverse, whichever is fewer) are renamed,
 * results included; `index` fields are set to the call's position; parse artifacts are stripped.
 * An unanswered call is dropped or answered with a result saying it was NOT executed — never a
 * fabricated success. Every change is listed in `changes`; the output always passes
 * `validateTranscript`, and repairing it again changes nothing. Messages that are not an array, bad
 * options, or messages whose getters throw are refused with `InvalidArgumentError`
 * (`invalid_argument`).
 *
 * @example
 * const { messages, changes } = repairTranscript(history, { unanswered: 'synthesize' });
 * for (const change of changes) logger.warn(change.message);
 */
export function repairTranscript<M>(
  messages: readonly M[],
  options: RepairTranscriptOptions = {},
): TranscriptRepair<M> {
  const list = messagesArgument('repairTranscript', messages);
  const read = readOptions('repairTranscript', options, ['unanswered', 'format']);
  const unanswered = read.unanswered ?? 'synthesize';
  if (unanswered !== 'drop' && unanswered !== 'synthesize') {
    throw new InvalidArgumentError(
      'repairTranscript',
      'options.unanswered',
      `must be \`drop\` or \`synthesize\`, got \`${String(unanswered)}\``,
    );
  }
  const adapter = adapterFor('repairTranscript', list, read.format);
  // Messages are the caller's: a getter or Proxy trap that throws is refused as an argument error.
  const { repaired, changes } = readArgument('repairTranscript', 'messages', () => {
    const turns = list.map((message, index) => adapter.read(message, index));
    const owners = blockOwners(turns, adapter);
    const plan = planRepair(turns, owners, adapter, unanswered);
    return {
      repaired: write(turns, owners, adapter, plan) as M[],
      changes: plan.changes.sort((a, b) => a.index - b.index),
    };
  });
  return { messages: repaired, changes, format: adapter.format };
}
