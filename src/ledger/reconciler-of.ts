/**
 * A reconciler as the ledger calls it: a function, or an object with a `reconcile` method (the
 * protocol mycelium-runtime's reconcilers follow), bound once at definition. Anything else is
 * refused then — never accepted and silently ignored, which would hard-block every ambiguous call
 * the reconciler was written to resolve.
 */
import { InvalidOptionError } from '../errors.js';
import type { Reconciler, ReconcilerObject } from './types.js';

/** The reconciler to call, or undefined when none is given; throws `invalid_option` for anything else. */
export function reconcilerOf(value: Reconciler | ReconcilerObject | undefined, where: string): Reconciler | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'function') return value;
  if (typeof value === 'object' && value !== null && typeof value.reconcile === 'function') {
    const object = value;
    return function reconcileWithObject(request) {
      return object.reconcile(request);
    };
  }
  throw new InvalidOptionError(
    'reconciler',
    `${where} \`reconciler\` must be a function \`(request) => verdict\` or an object with \`reconcile(request)\`, got \`${value === null ? 'null' : typeof value}\``,
  );
}
