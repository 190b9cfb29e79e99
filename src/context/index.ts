/**
 * The context guards: sessions and the TTL cache, transcript validation and repair, the history
 * guard, token counting and run snapshots.
 *
 * Every name below is meant for the root entry (`hyphae`); the SQLite snapshot driver
 * (`createSqliteSnapshotStorage` in `src/storage/sqlite-snapshots.ts`) belongs to `hyphae/sqlite`.
 * Nothing here imports a driver or loads `gpt-tokenizer` on import.
 */

export {
  type RunSnapshot,
  type RunState,
  RunStatus,
  type SnapshotInput,
  type SnapshotStorage,
} from '../storage/snapshot-storage.js';
export {
  CacheKeyError,
  HistoryDropError,
  type HistoryDropFinding,
  HistoryDuplicateError,
  type HistoryLimit,
  HistoryTruncatedError,
  SnapshotNotFoundError,
  SnapshotStorageError,
  TranscriptError,
} from './errors.js';
export { compareHistories, type DropReport } from './history/check-drops.js';
export {
  createHistoryGuard,
  type DuplicateTurn,
  type HistoryEvent,
  type HistoryGuard,
  type HistoryGuardOptions,
  type HistoryReport,
} from './history/history-guard.js';
export { turnFingerprint } from './history/turn-fingerprint.js';
export { type EntitySelector, type ProtectedTool, type ProtectOptions, protect, protectKey } from './protect.js';
export { createSession, currentSession, type Session, type SessionOptions, withSession } from './session.js';
export { createMemorySnapshotStorage } from './snapshots/memory-snapshot-storage.js';
export { mergeState } from './snapshots/merge-state.js';
export {
  createRunSnapshots,
  type RunHandle,
  type RunOptions,
  type RunSnapshots,
  type RunSnapshotsOptions,
  type SnapshotEvent,
} from './snapshots/run-snapshots.js';
export {
  charTokenCounter,
  countHistoryTokens,
  createCharTokenCounter,
  createGptTokenCounter,
  type GptTokenCounterOptions,
  messageText,
  type TokenCounter,
  tokenCounterFromFunction,
} from './tokens.js';
export { fromAiSdkMessages, toAiSdkMessages } from './transcript/convert-ai-sdk.js';
export { fromAnthropicMessages, toAnthropicMessages } from './transcript/convert-anthropic.js';
export { detectTranscriptFormat } from './transcript/detect-format.js';
export { type RepairTranscriptOptions, repairTranscript, type TranscriptRepair } from './transcript/repair.js';
export type { UnansweredPolicy } from './transcript/repair-plan.js';
export { ARTIFACT_KEYS } from './transcript/turns.js';
export {
  type AiSdkMessage,
  type AiSdkToolCallPart,
  type AiSdkToolResultOutput,
  type AiSdkToolResultPart,
  type AnthropicMessage,
  type AnthropicToolResultBlock,
  type AnthropicToolUseBlock,
  type ChatAssistantMessage,
  type ChatMessage,
  type ChatSystemMessage,
  type ChatToolCall,
  type ChatToolMessage,
  type ChatUserMessage,
  type ContentPart,
  type TranscriptChange,
  TranscriptChangeKind,
  type TranscriptFormat,
  type TranscriptIssue,
  TranscriptIssueCode,
  type TranscriptValidation,
} from './transcript/types.js';
export { assertTranscript, type ValidateTranscriptOptions, validateTranscript } from './transcript/validate.js';
export type { CacheStats } from './ttl-cache.js';
