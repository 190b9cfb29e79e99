/**
 * Tool capability: can the outcome of an unfinished call be established? Orthogonal to the
 * side-effect class (is a second call safe?), as in mycelium-runtime 1.34.
 *
 * | class | allowed | derived when undeclared |
 * | --- | --- | --- |
 * | `read`, `idempotent_mutate` | `idempotent`, `queryable`¹, `blind` | `idempotent` |
 * | `keyed_mutate` | `queryable`¹, `blind` | `queryable` with a key or reconciler, else `blind` |
 * | `non_idempotent_mutate` | `queryable`², `blind` | `queryable` with a reconciler, else `blind` |
 * | `irreversible` | `blind` | `blind` |
 *
 * ¹ needs a reconciler or a provider idempotency-key parameter; ² needs a reconciler. A declaration
 * may always tighten (towards `blind`), never loosen past what the class and its mechanisms allow.
 */
import { isTermOf, type ValueOf } from '../core/vocabulary.js';
import { ToolCapabilityDeclarationError } from '../errors.js';
import { recordArgument } from '../invalid-argument.js';
import type { SideEffectClass } from '../records/envelope.js';

/** How the outcome of an unfinished call can be established. */
export const ToolCapability = {
  /** Repeating the call is intrinsically safe. */
  idempotent: 'idempotent',
  /** A reconciler or the provider's idempotency key establishes or dedupes the outcome. */
  queryable: 'queryable',
  /** The outcome cannot be probed: an ambiguous record never retries. */
  blind: 'blind',
} as const;
/** How the outcome of an unfinished call can be established. */
export type ToolCapability = ValueOf<typeof ToolCapability>;

/** The probes a tool has: its own or the ledger's reconciler, a provider idempotency-key parameter. */
export interface CapabilityMechanisms {
  readonly reconciler: boolean;
  readonly providerKey: boolean;
}

const RANK: Readonly<Record<ToolCapability, number>> = { idempotent: 0, queryable: 1, blind: 2 };

/** True for a known capability name. */
export function isToolCapability(value: unknown): value is ToolCapability {
  return isTermOf(ToolCapability, value);
}

function canQuery(sideEffectClass: SideEffectClass, mechanisms: CapabilityMechanisms): boolean {
  switch (sideEffectClass) {
    case 'irreversible':
      return false;
    case 'non_idempotent_mutate':
      return mechanisms.reconciler;
    default:
      return mechanisms.reconciler || mechanisms.providerKey;
  }
}

/** The loosest capability the class and mechanisms support: what an undeclared tool gets. */
export function derivedCapability(sideEffectClass: SideEffectClass, mechanisms: CapabilityMechanisms): ToolCapability {
  recordArgument('derivedCapability', 'mechanisms', mechanisms, ['reconciler', 'providerKey']);
  if (sideEffectClass === 'read' || sideEffectClass === 'idempotent_mutate') return 'idempotent';
  return canQuery(sideEffectClass, mechanisms) ? 'queryable' : 'blind';
}

/** The capabilities a tool of this class with these mechanisms may declare, loosest first. */
export function allowedCapabilities(
  sideEffectClass: SideEffectClass,
  mechanisms: CapabilityMechanisms,
): readonly ToolCapability[] {
  recordArgument('allowedCapabilities', 'mechanisms', mechanisms, ['reconciler', 'providerKey']);
  const floor = RANK[derivedCapability(sideEffectClass, mechanisms)];
  return (Object.keys(RANK) as ToolCapability[]).filter(
    (name) => RANK[name] >= floor && (name !== 'queryable' || canQuery(sideEffectClass, mechanisms)),
  );
}

/**
 * The capability of a tool: its declaration when the class and mechanisms allow it, else a
 * `ToolCapabilityDeclarationError` naming the tool, the class and the allowed capabilities.
 */
export function resolveCapability(
  tool: string,
  sideEffectClass: SideEffectClass,
  declared: unknown,
  mechanisms: CapabilityMechanisms,
): ToolCapability {
  const allowed = allowedCapabilities(sideEffectClass, mechanisms);
  if (declared === undefined) return derivedCapability(sideEffectClass, mechanisms);
  if (!isToolCapability(declared)) {
    throw new ToolCapabilityDeclarationError(
      tool,
      sideEffectClass,
      String(declared),
      allowed,
      'it is not a capability (`idempotent`, `queryable` or `blind`)',
    );
  }
  if (allowed.includes(declared)) return declared;
  const why =
    declared === 'queryable' && sideEffectClass !== 'irreversible'
      ? sideEffectClass === 'non_idempotent_mutate'
        ? 'nothing can query its outcome; give it a `reconciler`'
        : 'nothing can query its outcome; give it a `reconciler` or a `providerIdempotencyKeyParam`'
      : `it is looser than \`${sideEffectClass}\` allows, and would let an ambiguous call run twice`;
  throw new ToolCapabilityDeclarationError(tool, sideEffectClass, declared, allowed, why);
}
