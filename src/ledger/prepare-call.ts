/**
 * Turn a spec, arguments and call options into the identity of one transition.
 */
import { canonicalJson } from '../core/canonical-json.js';
import { fingerprint, sha256Hex } from '../core/fingerprint.js';
import { GuardError } from '../errors.js';
import type { DecisionVerdict, TransitionDecision } from '../records/decision.js';
import { CLASS_DEFAULTS, type RetryPermission, type SideEffectClass, type Spendability } from '../records/envelope.js';
import type { LedgerScope } from '../records/transition-record.js';
import { LedgerDecisionDeniedError, readCallerVerdicts } from './caller-verdicts.js';
import { composeDecision } from './decision.js';
import { reconcilerOf } from './reconciler-of.js';
import type { GateAttempt } from './resolve-gate.js';
import { resolveSideEffectClass } from './resolve-side-effect-class.js';
import { resolveCapability, type ToolCapability } from './tool-capability.js';
import {
  argsFingerprint,
  normalizeScope,
  type TransitionKeyTemplate,
  ticketKey,
  transitionKeyTemplate,
} from './transition-key.js';
import type {
  ArgsDriftPolicy,
  CallOptions,
  Reconciler,
  TaskSpec,
  ToolBoundary,
  ToolIdentity,
  ToolSpec,
} from './types.js';

/** A spec with its defaults resolved and frozen. */
export interface ResolvedSpec {
  readonly kind: 'tool' | 'task';
  readonly name: string;
  readonly sideEffectClass: SideEffectClass;
  readonly retryPermission: RetryPermission;
  readonly spendability: Spendability;
  readonly providerIdempotencyKeyParam: string | undefined;
  readonly providerIdempotencyKeyTtlMs: number | undefined;
  readonly identity: ToolIdentity;
  readonly excludedParams: readonly string[];
  readonly reconciler: Reconciler | undefined;
  /** How the outcome of an unfinished call can be established (declared, or derived). */
  readonly capability: ToolCapability;
  readonly leaseTtlMs: number | undefined;
  readonly onArgsDrift: ArgsDriftPolicy | undefined;
  /** Where the side-effect boundary sits: `'body'` writes the claim `maybe_crossed`. */
  readonly boundary: ToolBoundary;
  readonly idFrom: readonly string[] | undefined;
}

function invalid(message: string): GuardError {
  return new GuardError('invalid_spec', message);
}

/**
 * Check and freeze a tool or task spec.
 *
 * @param ledgerReconciler whether the ledger has a default reconciler (a `queryable` mechanism).
 */
export function resolveSpec(kind: 'tool' | 'task', spec: ToolSpec | TaskSpec, ledgerReconciler = false): ResolvedSpec {
  if (typeof spec.name !== 'string' || spec.name.trim() === '')
    throw invalid('A ledgered tool needs a non-empty `name`');
  const rawClass = spec.sideEffectClass ?? (kind === 'task' ? 'idempotent_mutate' : undefined);
  if (rawClass === undefined) throw invalid(`Tool \`${spec.name}\` must declare \`sideEffectClass\``);
  const sideEffectClass = resolveSideEffectClass(rawClass);
  const defaults = CLASS_DEFAULTS[sideEffectClass];
  const ttl = spec.providerIdempotencyKeyTtlMs;
  if (ttl !== undefined && (!Number.isFinite(ttl) || ttl < 0)) {
    throw invalid(
      `Tool \`${spec.name}\`: \`providerIdempotencyKeyTtlMs\` must be a non-negative number, got \`${ttl}\``,
    );
  }
  const boundary = spec.boundary ?? 'marked';
  if (boundary !== 'marked' && boundary !== 'body') {
    throw invalid(
      `${kind === 'tool' ? 'Tool' : 'Task'} \`${spec.name}\`: \`boundary\` must be 'marked' or 'body', got \`${String(boundary)}\``,
    );
  }
  const keyParam = spec.providerIdempotencyKeyParam;
  const toolSpec = spec as ToolSpec;
  const idFrom = (spec as TaskSpec).idFrom;
  if (idFrom !== undefined && idFrom.length === 0)
    throw invalid(`Task \`${spec.name}\`: \`idFrom\` must name at least one field`);
  const reconciler = reconcilerOf(spec.reconciler, `${kind === 'tool' ? 'Tool' : 'Task'} \`${spec.name}\`:`);
  const capability = resolveCapability(spec.name, sideEffectClass, spec.capability, {
    reconciler: reconciler !== undefined || ledgerReconciler,
    providerKey: keyParam !== undefined,
  });
  return Object.freeze({
    kind,
    name: spec.name,
    sideEffectClass,
    retryPermission: spec.retryPermission ?? defaults.retryPermission,
    spendability: spec.spendability ?? defaults.spendability,
    providerIdempotencyKeyParam: keyParam,
    providerIdempotencyKeyTtlMs: ttl,
    identity: kind === 'tool' ? (toolSpec.identity ?? 'call') : 'intent',
    excludedParams: Object.freeze([...(spec.bookkeepingParams ?? []), ...(keyParam === undefined ? [] : [keyParam])]),
    reconciler,
    capability,
    leaseTtlMs: spec.leaseTtlMs,
    onArgsDrift: kind === 'tool' ? toolSpec.onArgsDrift : 'off',
    boundary,
    idFrom: idFrom === undefined ? undefined : Object.freeze([...idFrom]),
  });
}

/** Everything the executor needs to know about one call. */
export interface PreparedCall {
  readonly spec: ResolvedSpec;
  readonly args: unknown;
  readonly key: string;
  readonly scope: LedgerScope;
  readonly ticket: string | null;
  readonly ticketKey: string | null;
  readonly argsFingerprint: string;
  readonly attempt: GateAttempt;
  /** The caller's check verdicts, written with the claim as its decision. */
  readonly verdicts: readonly DecisionVerdict[];
  /** The decision of those verdicts when one denies: the call is refused and claims nothing. */
  readonly denied: TransitionDecision | null;
  /** The provider's operation id the caller gave, written with the claim. */
  readonly externalOperationRef: string | null;
}

/** The ambient scope and dispatch id set by `ledger.run`. */
export interface RunContext {
  readonly scope: LedgerScope;
  readonly dispatchId?: string;
}

function providerKeyOf(spec: ResolvedSpec, args: unknown): string | null {
  const param = spec.providerIdempotencyKeyParam;
  if (param === undefined || args === null || typeof args !== 'object') return null;
  const value = (args as Record<string, unknown>)[param];
  if (value === undefined || value === null || value === '') return null;
  // A key with no JSON form (a function, NaN) is refused here, before anything is claimed.
  return typeof value === 'string' ? value : canonicalJson(value);
}

function taskIdOf(spec: ResolvedSpec, args: unknown, options: CallOptions & { taskId?: string }): string {
  if (options.taskId !== undefined) return options.taskId;
  if (spec.idFrom !== undefined) {
    const record = (args ?? {}) as Record<string, unknown>;
    const picked: Record<string, unknown> = {};
    for (const field of spec.idFrom) {
      if (record[field] === undefined) {
        throw new GuardError(
          'invalid_arguments',
          `Task \`${spec.name}\` takes its id from \`${field}\`, which is missing`,
        );
      }
      picked[field] = record[field];
    }
    return fingerprint(picked);
  }
  return fingerprint(args ?? null);
}

// The quoted constant members of each spec's keys, per ledger identity (agent, policy version).
const templates = new WeakMap<ResolvedSpec, TransitionKeyTemplate>();

function templateOf(spec: ResolvedSpec, agentId: string, policyVersion: string): TransitionKeyTemplate {
  const cached = templates.get(spec);
  if (cached !== undefined && cached.constants.agentId === agentId && cached.constants.policyVersion === policyVersion)
    return cached;
  const template = transitionKeyTemplate({
    ...(spec.kind === 'task' ? { kind: 'task' as const } : {}),
    tool: spec.name,
    sideEffectClass: spec.sideEffectClass,
    agentId,
    policyVersion,
  });
  templates.set(spec, template);
  return template;
}

/** Compute the identity of one call. */
export function prepareCall(
  spec: ResolvedSpec,
  agentId: string,
  policyVersion: string,
  args: unknown,
  options: CallOptions & { taskId?: string },
  context: RunContext | undefined,
): PreparedCall {
  const verdicts = readCallerVerdicts(spec.name, options.verdicts);
  const decision = verdicts.length === 0 ? null : composeDecision(verdicts);
  const denied = decision === null || decision.allowed ? null : decision;
  if (denied === null) return identify(spec, agentId, policyVersion, args, options, context, verdicts, null);
  try {
    return identify(spec, agentId, policyVersion, args, options, context, verdicts, denied);
  } catch (cause) {
    // A refused call whose arguments cannot be identified is still refused as such (no record).
    throw new LedgerDecisionDeniedError(spec.name, denied, { cause });
  }
}

function identify(
  spec: ResolvedSpec,
  agentId: string,
  policyVersion: string,
  args: unknown,
  options: CallOptions & { taskId?: string },
  context: RunContext | undefined,
  verdicts: readonly DecisionVerdict[],
  denied: TransitionDecision | null,
): PreparedCall {
  const scope = normalizeScope(options.scope ?? context?.scope);
  const attempt: GateAttempt = {
    providerIdempotencyKey: providerKeyOf(spec, args),
    providerKeyParamDeclared: spec.providerIdempotencyKeyParam !== undefined,
    capability: spec.capability,
    ...(spec.providerIdempotencyKeyTtlMs === undefined
      ? {}
      : { providerIdempotencyKeyTtlMs: spec.providerIdempotencyKeyTtlMs }),
  };
  if (spec.kind === 'task') {
    const taskId = taskIdOf(spec, args, options);
    const identity = fingerprint({ taskId });
    return {
      spec,
      args,
      scope,
      ticket: taskId,
      ticketKey: null,
      argsFingerprint: identity,
      attempt,
      verdicts,
      denied,
      externalOperationRef: options.externalOperationRef ?? null,
      key: sha256Hex(templateOf(spec, agentId, policyVersion).text(identity, scope, undefined)),
    };
  }
  const fp = argsFingerprint(args, spec.excludedParams);
  const dispatchId = options.toolCallId ?? options.requestId ?? context?.dispatchId;
  const ticket = dispatchId ?? null;
  return {
    spec,
    args,
    scope,
    ticket,
    ticketKey: ticket === null || spec.onArgsDrift === 'off' ? null : ticketKey(scope, agentId, ticket),
    argsFingerprint: fp,
    attempt,
    verdicts,
    denied,
    externalOperationRef: options.externalOperationRef ?? null,
    key: sha256Hex(
      templateOf(spec, agentId, policyVersion).text(
        fp,
        scope,
        spec.identity === 'call' && dispatchId !== undefined ? dispatchId : undefined,
      ),
    ),
  };
}
