/**
 * `validateTranscript`: every structural problem of a tool-calling transcript, as data.
 */

import { readArgument, readOptions } from '../../invalid-argument.js';
import { TranscriptError } from '../errors.js';
import { blockOwners, countFamilies, familyOf, familyPrefix } from './analyze.js';
import { adapterFor, messagesArgument } from './detect-format.js';
import type { Turn } from './turns.js';
import type { TranscriptFormat, TranscriptIssue, TranscriptIssueCode, TranscriptValidation } from './types.js';

/** Options of {@link validateTranscript} and {@link assertTranscript}. */
export interface ValidateTranscriptOptions {
  /** The message format; detected from the messages when omitted. */
  readonly format?: TranscriptFormat;
}

type Report = (code: TranscriptIssueCode, index: number, message: string, toolCallId?: string) => void;

function checkCalls(turns: readonly Turn[], report: Report): Map<string, number> {
  const declared = new Map<string, number>();
  for (const turn of turns) {
    if (turn.role === null) {
      report(
        'invalid_role',
        turn.index,
        `Message ${turn.index} has role \`${String(turn.rawRole)}\`, which the format does not allow`,
      );
      continue;
    }
    for (const path of turn.artifacts) {
      report('parsed_artifact', turn.index, `Message ${turn.index} carries the SDK parse artifact \`${path}\``);
    }
    for (const call of turn.calls) {
      const { id } = call;
      if (id === undefined) {
        report(
          'missing_tool_call_id',
          turn.index,
          `Tool call ${call.position} (\`${call.name}\`) of message ${turn.index} has no id`,
        );
      } else if (declared.has(id)) {
        report(
          'duplicate_tool_call_ids',
          turn.index,
          `Tool call id \`${id}\` is declared again (first in message ${declared.get(id)})`,
          id,
        );
      } else {
        declared.set(id, turn.index);
      }
      if (call.hasIndex && call.index !== call.position) {
        report(
          'nonzero_tool_call_index',
          turn.index,
          `Tool call \`${id ?? call.name}\` has \`index\` ${JSON.stringify(call.index) ?? 'undefined'} but is at position ${call.position}`,
          ...(id === undefined ? [] : [id]),
        );
      }
    }
  }
  return declared;
}

function checkFamilies(turns: readonly Turn[], report: Report): void {
  const { minority, majority } = countFamilies(turns);
  if (minority === null || majority === null) return;
  const message = (id: string): string =>
    `Tool call id \`${id}\` is an \`${familyPrefix(minority)}…\` id in a transcript of \`${familyPrefix(majority)}…\` ids`;
  for (const turn of turns) {
    if (turn.role === null) continue;
    for (const items of [turn.calls, turn.results]) {
      for (const { id } of items) {
        if (id !== undefined && familyOf(id) === minority)
          report('mixed_tool_call_id_families', turn.index, message(id), id);
      }
    }
  }
}

function checkResults(
  turns: readonly Turn[],
  owners: Int32Array,
  declared: Map<string, number>,
  report: Report,
): Map<number, Set<string>> {
  const answered = new Map<number, Set<string>>();
  const ownerIds = new Map<number, Set<string | undefined>>();
  const declaredBy = (owner: number): Set<string | undefined> => {
    const ids = ownerIds.get(owner) ?? new Set(turns[owner]?.calls.map((call) => call.id));
    ownerIds.set(owner, ids);
    return ids;
  };
  for (const turn of turns) {
    if (turn.role === null || turn.results.length === 0) continue;
    const owner = owners[turn.index] ?? -1;
    for (const { id } of turn.results) {
      if (id === undefined) {
        report('missing_tool_call_id', turn.index, `Tool result in message ${turn.index} has no tool call id`);
      } else if (!declared.has(id)) {
        const why =
          declared.size === 0 ? 'no assistant message declared any tool call' : 'no assistant message declared it';
        report('orphaned_tool_result', turn.index, `Tool result for \`${id}\` is orphaned: ${why}`, id);
      } else if (owner < 0 || !declaredBy(owner).has(id)) {
        report(
          'misplaced_tool_result',
          turn.index,
          `Tool result for \`${id}\` is not in the results right after message ${declared.get(id)}`,
          id,
        );
      } else {
        const ids = answered.get(owner) ?? new Set<string>();
        answered.set(owner, ids);
        if (ids.has(id))
          report('duplicate_tool_call_ids', turn.index, `Tool call \`${id}\` is answered more than once`, id);
        ids.add(id);
      }
    }
  }
  return answered;
}

/** Every issue of `turns`, ordered by message index. */
export function findIssues(turns: readonly Turn[], owners: Int32Array): TranscriptIssue[] {
  const issues: TranscriptIssue[] = [];
  const report: Report = (code, index, message, toolCallId) => {
    issues.push(toolCallId === undefined ? { code, index, message } : { code, index, message, toolCallId });
  };
  const declared = checkCalls(turns, report);
  checkFamilies(turns, report);
  const answered = checkResults(turns, owners, declared, report);
  for (const turn of turns) {
    if (turn.role === null || turn.calls.length === 0) continue;
    const ids = answered.get(turn.index);
    const seen = new Set<string>();
    for (const { id, name } of turn.calls) {
      if (id === undefined || seen.has(id) || ids?.has(id) === true) continue;
      seen.add(id);
      report(
        'unanswered_tool_call',
        turn.index,
        `Tool call \`${id}\` (\`${name}\`) has no result right after message ${turn.index}`,
        id,
      );
    }
  }
  // Stable: issues of one message keep the order of the passes above.
  return issues.sort((a, b) => a.index - b.index);
}

/**
 * Check a transcript in any of the three formats and list every issue.
 *
 * Codes: `invalid_role`, `missing_tool_call_id`, `duplicate_tool_call_ids` (an id declared twice,
 * or answered twice), `mixed_tool_call_id_families` (`fc_…` with `call_…` ids), `nonzero_tool_call_index`
 * (a call's `index` field differs from its 0-based position among the message's calls, the value
 * OpenAI streaming deltas carry), `orphaned_tool_result` (no assistant message declared the id),
 * `misplaced_tool_result` (declared, but not in the result block right after the declaring message),
 * `unanswered_tool_call` (no result in that block) and `parsed_artifact` (a key only SDK parse
 * helpers add: `parsed`, `parsed_arguments`, `parsed_output`, on a message, a content part, a tool
 * call or its `function`). Issues are data; only a call it cannot read throws: messages that are not
 * an array, bad options or a getter that throws raise `InvalidArgumentError` (`invalid_argument`).
 *
 * @example
 * const { ok, issues } = validateTranscript([
 *   { role: 'user', content: 'refund order 7' },
 *   { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'refund', arguments: '{}' } }] },
 * ]);
 * // ok === false, issues[0].code === 'unanswered_tool_call'
 */
export function validateTranscript(
  messages: readonly unknown[],
  options: ValidateTranscriptOptions = {},
): TranscriptValidation {
  return validateAs('validateTranscript', messages, options);
}

function validateAs(fn: string, messages: readonly unknown[], options: ValidateTranscriptOptions | undefined) {
  const list = messagesArgument(fn, messages);
  const adapter = adapterFor(fn, list, readOptions(fn, options, ['format']).format);
  const issues = readArgument(fn, 'messages', () => {
    const turns = list.map((message, index) => adapter.read(message, index));
    return findIssues(turns, blockOwners(turns, adapter));
  });
  return { ok: issues.length === 0, format: adapter.format, issues };
}

/** Like {@link validateTranscript}, but throws {@link TranscriptError} listing the issues. */
export function assertTranscript(messages: readonly unknown[], options: ValidateTranscriptOptions = {}): void {
  const { issues } = validateAs('assertTranscript', messages, options);
  if (issues.length > 0) throw new TranscriptError(issues);
}
