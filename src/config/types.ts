/**
 * The settings a `hyphae.yaml` parses to: camelCase, durations in milliseconds, paths absolute,
 * side-effect class aliases resolved. Secrets and URLs named by environment variable stay names
 * here; `loadConfig` reads them.
 */
import type { McpSecretsAction, McpToolPolicy } from '../boundary/mcp-tool-policy.js';
import type { TranscriptFormat } from '../context/transcript/types.js';
import type { BudgetFuseOptions } from '../fuses/budget-options.js';
import type { LoopFuseOptions } from '../fuses/loop-options.js';
import type { PermissionFuseOptions } from '../fuses/permission.js';
import type { ToolCapability } from '../ledger/tool-capability.js';
import type { ArgsDriftPolicy, ToolBoundary, ToolIdentity } from '../ledger/types.js';
import type { DeathSignalPolicy } from '../ledger/worker-death.js';
import type { RetryPermission, SideEffectClass, Spendability } from '../records/envelope.js';
import type { SecretField, StoreKind, TargetOf } from '../storage/drivers.js';

/** `production` turns on the rules that refuse unsafe stores and implicit identities. */
export type ConfigProfile = 'development' | 'production';

/** A value written in the file, or the name of the environment variable that holds it. */
export type ValueSource = { readonly value: string } | { readonly env: string };

/** A secret: in the file, in an environment variable, or in a file. */
export type SecretSource = ValueSource | { readonly file: string };

/** A store's settings as a config gives them: a driver's target, each secret (a URL, a DSN) as a source. */
type Sourced<T> = { readonly [K in keyof T]: K extends SecretField ? ValueSource : T[K] };

/** Where a ledger keeps its records: a store of a kind the drivers know (see `storage/drivers.ts`). */
export type StoreSettings = { readonly [K in StoreKind]: Sourced<TargetOf<K>> }[StoreKind];

/** Which tools or tasks a ledger covers: every configured one, or the listed ones. */
export type LedgerCoverage = 'all' | readonly string[];

/** The `transition` section: the identity and timing of the transition ledger. */
export interface TransitionSettings {
  readonly agentId: string;
  readonly policyVersion: string;
  readonly leaseTtlMs: number;
  readonly leaseRenewIntervalMs?: number;
  readonly pollTimeoutMs?: number;
  readonly reconcileTimeoutMs?: number;
  readonly deferReadOnlyUnknown: boolean;
  /** Which classes need worker-death evidence before an expired claim is taken over (default `'consequential'`). */
  readonly reclaimRequiresDeathSignal: DeathSignalPolicy;
  /** Heartbeat age after which an owner is presumed dead (default twice the lease). */
  readonly presumedDeadAfterMs?: number;
  /** A consequential call without a call id; unset: `require_explicit` in production, else `allow_derived`. */
  readonly requestIdentity?: 'allow_derived' | 'require_explicit';
}

/** The `action_ledger` section. */
export interface ActionLedgerSettings {
  readonly store: StoreSettings;
  readonly tools: LedgerCoverage;
  readonly onArgsDrift: ArgsDriftPolicy;
}

/** The `task_ledger` section; without a store of its own it shares the action ledger's. */
export interface TaskLedgerSettings {
  readonly store: StoreSettings | 'action_ledger';
  readonly tasks: LedgerCoverage;
  readonly leaseTtlMs?: number;
}

/** The `run_snapshots` section. */
export interface RunSnapshotsSettings {
  readonly store:
    | { readonly kind: 'memory' }
    | { readonly kind: 'sqlite'; readonly path: string; readonly tablePrefix?: string };
}

/** The `receipts` section. */
export interface ReceiptsSettings {
  readonly algorithm: 'hmac-sha256' | 'ed25519';
  readonly key: SecretSource;
  readonly keyId: string;
  /** Absolute path of the JSONL file; absent when receipts go to the action ledger's SQL store. */
  readonly path?: string;
}

/** `tools.<name>.protect`: a per-session TTL cache in front of a read tool. */
export interface ProtectSettings {
  readonly entityParam: string;
  readonly ttlMs: number;
  readonly maxEntries: number;
}

/** `tools.<name>.bounded`: argument and output validation, scoped paths and entity ids. */
export interface BoundedSettings {
  /** A JSON Schema or a field spec. */
  readonly schema: Readonly<Record<string, unknown>>;
  readonly outputSchema?: Readonly<Record<string, unknown>>;
  /** Absolute roots. */
  readonly allowedPaths?: readonly string[];
  readonly pathParams?: readonly string[];
  readonly entityPattern?: Readonly<Record<string, string>>;
}

/** `tools.<name>`. */
export interface ToolSettings {
  readonly sideEffectClass?: SideEffectClass;
  readonly retryPermission?: RetryPermission;
  readonly spendability?: Spendability;
  readonly providerIdempotencyKeyParam?: string;
  readonly providerIdempotencyKeyTtlMs?: number;
  readonly capability?: ToolCapability;
  readonly identity?: ToolIdentity;
  /** The argument whose value identifies the request; it replaces the model's tool call id. */
  readonly requestIdParam?: string;
  readonly bookkeepingParams?: readonly string[];
  readonly leaseTtlMs?: number;
  readonly onArgsDrift?: ArgsDriftPolicy;
  /** Where the side-effect boundary sits (see `ToolSpec.boundary`). */
  readonly boundary?: ToolBoundary;
  /** Scopes the permission fuse requires for this tool. */
  readonly permissions?: readonly string[];
  readonly protect?: ProtectSettings;
  readonly bounded?: BoundedSettings;
}

/** `tasks.<name>`. */
export interface TaskSettings {
  readonly sideEffectClass?: SideEffectClass;
  readonly retryPermission?: RetryPermission;
  readonly spendability?: Spendability;
  readonly idFrom?: readonly string[];
  readonly capability?: ToolCapability;
  readonly providerIdempotencyKeyParam?: string;
  readonly providerIdempotencyKeyTtlMs?: number;
  readonly bookkeepingParams?: readonly string[];
  readonly leaseTtlMs?: number;
  /** Where the side-effect boundary sits (see `ToolSpec.boundary`). */
  readonly boundary?: ToolBoundary;
}

/** The `registry` section, with `auto` resolved to the configured tool names. */
export interface RegistrySettings {
  readonly allowed: readonly string[];
  readonly auto: boolean;
}

/** The `runner` section. */
export interface RunnerSettings {
  readonly maxLlmRetries?: number;
  readonly maxToolRetries?: number;
}

/** A model price, US dollars per 1,000 tokens. */
export interface PriceSettings {
  readonly inputPer1k: number;
  readonly outputPer1k: number;
  readonly cachedInputPer1k?: number;
  readonly cacheWriteInputPer1k?: number;
}

/**
 * The `fuses` section: the options of each fuse but those code supplies (a verdict name, a token
 * counter; the permission fuse's tools come from `tools.<name>.permissions`).
 */
export interface FusesSettings {
  readonly permission?: Omit<PermissionFuseOptions, 'tools' | 'name'>;
  readonly loop?: Omit<LoopFuseOptions, 'name'>;
  readonly budget?: Omit<BudgetFuseOptions, 'tokenCounter' | 'name'>;
}

/** The `history_guard` section. */
export interface HistoryGuardSettings {
  readonly maxTokens?: number;
  readonly maxMessages?: number;
  readonly warnAt?: number;
  readonly duplicates?: 'adjacent' | 'anywhere' | 'off';
  readonly onDuplicate?: 'report' | 'raise';
  readonly model?: string;
  readonly tokenizer: 'chars' | 'gpt';
}

/** The `transcript` section. */
export interface TranscriptSettings {
  readonly repair: boolean;
  readonly unanswered: 'synthesize' | 'drop';
  readonly validate: boolean;
  readonly format?: TranscriptFormat;
}

/** The `mcp` section: the policy of the guarding MCP proxy. */
export interface McpSettings {
  readonly principal: string;
  readonly session: string;
  /** The visible tools; absent: every tool the server lists. */
  readonly allow?: readonly string[];
  readonly retryWindowMs: number;
  readonly pinning: boolean;
  readonly secrets: McpSecretsAction;
  readonly budget: { readonly maxCalls?: number; readonly maxUsd?: number };
  /** How long a stopped session stays stopped; absent: until the client starts a new session. */
  readonly cooldownMs?: number;
  /** What a client's cancellation of a call that may not run twice does. */
  readonly cancel: 'finish' | 'forward';
  /** How long a stopping proxy waits for guarded calls still running upstream. */
  readonly drainMs: number;
  readonly tools: Readonly<Record<string, McpToolPolicy>>;
}

/** A whole `hyphae.yaml`, checked and parsed. */
export interface ConfigSettings {
  readonly profile: ConfigProfile;
  readonly transition?: TransitionSettings;
  readonly actionLedger?: ActionLedgerSettings;
  readonly taskLedger?: TaskLedgerSettings;
  readonly runSnapshots?: RunSnapshotsSettings;
  readonly receipts?: ReceiptsSettings;
  readonly tools: Readonly<Record<string, ToolSettings>>;
  readonly tasks: Readonly<Record<string, TaskSettings>>;
  readonly registry?: RegistrySettings;
  readonly runner?: RunnerSettings;
  readonly fuses?: FusesSettings;
  readonly historyGuard?: HistoryGuardSettings;
  readonly transcript?: TranscriptSettings;
  readonly mcp?: McpSettings;
}
