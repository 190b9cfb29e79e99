/**
 * Errors of the context guards: TTL cache, transcripts, history guard and run snapshots.
 *
 * They extend {@link GuardError} here rather than in `src/errors.ts` so the context module stays
 * self-contained; the lead may move them when the root index is wired.
 */
import { GuardError, type GuardErrorOptions } from '../errors.js';
import type { TranscriptIssue } from './transcript/types.js';

/** Which limit a history overflowed. */
export type HistoryLimit = 'tokens' | 'messages';

/** A history is longer than the guard allows: a framework would truncate it silently. */
export class HistoryTruncatedError extends GuardError {
  readonly messageCount: number;
  readonly estimatedTokens: number;
  readonly limit: HistoryLimit;
  readonly max: number;

  constructor(input: { messageCount: number; estimatedTokens: number; limit: HistoryLimit; max: number }) {
    const value = input.limit === 'tokens' ? input.estimatedTokens : input.messageCount;
    super(
      'history_truncated',
      `History of ${input.messageCount} messages (${input.estimatedTokens} tokens) exceeds the \`${input.limit}\` limit: ${value} > ${input.max}`,
    );
    this.messageCount = input.messageCount;
    this.estimatedTokens = input.estimatedTokens;
    this.limit = input.limit;
    this.max = input.max;
  }
}

/** A history holds a duplicated turn (`onDuplicate: 'raise'`). */
export class HistoryDuplicateError extends GuardError {
  readonly duplicates: readonly { readonly index: number; readonly firstIndex: number }[];

  constructor(duplicates: readonly { readonly index: number; readonly firstIndex: number }[]) {
    const first = duplicates[0];
    const where = first === undefined ? '' : `: message ${first.index} repeats message ${first.firstIndex}`;
    super('history_duplicate_turn', `History holds ${duplicates.length} duplicated turn(s)${where}`);
    this.duplicates = duplicates;
  }
}

/** One message a framework removed or moved, as {@link HistoryDropError} reports it. */
export interface HistoryDropFinding {
  readonly kind: 'dropped' | 'reordered';
  /** Index in the original history. */
  readonly index: number;
}

/** A framework removed or reordered messages of a history (see `checkForDrops`). */
export class HistoryDropError extends GuardError {
  readonly findings: readonly HistoryDropFinding[];

  constructor(findings: readonly HistoryDropFinding[]) {
    const first = findings[0];
    const where = first === undefined ? '' : `; first: message ${first.index} ${first.kind}`;
    super('history_messages_dropped', `History lost ${findings.length} message(s) in processing${where}`);
    this.findings = findings;
  }
}

/** A transcript is malformed; `issues` lists every finding. */
export class TranscriptError extends GuardError {
  readonly issues: readonly TranscriptIssue[];

  constructor(issues: readonly TranscriptIssue[]) {
    const first = issues[0];
    const detail =
      first === undefined ? '' : `: ${first.message}${issues.length > 1 ? ` (and ${issues.length - 1} more)` : ''}`;
    super('transcript_invalid', `Transcript is invalid${detail}`);
    this.issues = issues;
  }
}

/** A protected tool could not derive a cache key from its arguments. */
export class CacheKeyError extends GuardError {
  readonly tool: string;

  constructor(tool: string, reason: string, options: GuardErrorOptions = {}) {
    super('cache_key_invalid', `Protected tool \`${tool}\` cannot build a cache key: ${reason}`, options);
    this.tool = tool;
  }
}

/** `resume(runId)` found no snapshot of the run. */
export class SnapshotNotFoundError extends GuardError {
  readonly runId: string;

  constructor(runId: string) {
    super('snapshot_not_found', `No snapshot of run \`${runId}\``);
    this.runId = runId;
  }
}

export { SnapshotStorageError } from '../storage/snapshot-storage.js';
