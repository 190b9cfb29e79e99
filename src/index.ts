export { canonicalJson } from './core/canonical-json.js';
export { type Clock, createManualClock, type ManualClock, systemClock } from './core/clock.js';
export { fingerprint, sha256Hex } from './core/fingerprint.js';
export { type AsyncScope, createAsyncScope } from './core/scope.js';
export {
  CanonicalJsonError,
  GuardError,
  type GuardErrorOptions,
  LedgerAlreadyResolvedError,
  LedgerError,
  LedgerFencedError,
  LedgerHardBlockError,
  LedgerIdentityConflictError,
  LedgerPollTimeoutError,
  LedgerReleaseRefusedError,
  LedgerSoftBlockError,
  LedgerStorageCorruptError,
  LedgerStorageUnavailableError,
} from './errors.js';
export {
  markCrossed,
  markMaybeCrossed,
  recordExternalOperation,
  renewLease,
  sideEffect,
} from './ledger/boundary-markers.js';
export { createLedger } from './ledger/create-ledger.js';
export {
  advanceBoundary,
  Boundary,
  CLASS_DEFAULTS,
  type ClassDefaults,
  Gate,
  Outcome,
  RetryPermission,
  resolveSideEffectClass,
  SIDE_EFFECT_CLASS_ALIASES,
  SideEffectClass,
  Spendability,
} from './ledger/envelope.js';
export {
  type GateAttempt,
  type GateDecision,
  isExpired,
  isLeaseExpired,
  resolveGate,
  resolveReadGate,
  resolveSideEffectGate,
} from './ledger/resolve-gate.js';
export {
  argsFingerprint,
  TRANSITION_KEY_SCHEMA,
  type TransitionKeyInput,
  ticketKey,
  transitionKey,
} from './ledger/transition-key.js';
export type {
  JsonValue,
  LedgerScope,
  OperatorResolution,
  RecordedError,
  RecordKind,
  TransitionRecord,
} from './ledger/transition-record.js';
export type {
  ArgsDriftPolicy,
  AuditInput,
  CallOptions,
  Ledger,
  LedgeredFunction,
  LedgerLogger,
  LedgerOptions,
  ReconcileRequest,
  Reconciler,
  ReconcileVerdict,
  ReleaseInput,
  TaskCallOptions,
  TaskSpec,
  ToolIdentity,
  ToolSpec,
  WaitOptions,
} from './ledger/types.js';
export type {
  CreateResult,
  LedgerStorage,
  ListPage,
  ListQuery,
  StorageCapabilities,
} from './storage/ledger-storage.js';
export { createMemoryStorage } from './storage/memory.js';
