/**
 * Before a claim: a store that may lose records (an evicting Redis) refuses side-effecting calls
 * unless its hazard was accepted, and is reported once through the logger otherwise.
 */
import { LedgerStorageUnsafeError } from '../errors.js';
import type { StorageHazard } from '../storage/ledger-storage.js';
import { asStorageError } from './active-claim.js';
import type { ExecutorContext } from './executor-context.js';
import type { PreparedCall } from './prepare-call.js';

function apply(ctx: ExecutorContext, call: PreparedCall, hazards: readonly StorageHazard[]): void {
  const store = ctx.storage.capabilities.name;
  for (const hazard of hazards) {
    if (!hazard.accepted && call.spec.sideEffectClass !== 'read') {
      throw new LedgerStorageUnsafeError(store, hazard.code, hazard.message);
    }
    // One warning per hazard and ledger; the set is the ledger's warn-once memory.
    const seen = `storage:${hazard.code}`;
    if (ctx.markerWarned.has(seen)) continue;
    ctx.markerWarned.add(seen);
    ctx.logger?.warn?.(`Ledger storage \`${store}\` may lose records: ${hazard.message}`, {
      hazard: hazard.code,
      accepted: hazard.accepted,
      tool: call.spec.name,
    });
  }
}

/** Refuse or warn for the store's hazards; synchronous once the driver knows them. */
export function checkStorageHazards(ctx: ExecutorContext, call: PreparedCall): void | Promise<void> {
  const found = ctx.storage.hazards?.();
  if (found === undefined) return;
  if (!(found instanceof Promise)) return apply(ctx, call, found);
  return found.then(
    (hazards) => apply(ctx, call, hazards),
    (error: unknown) => {
      throw asStorageError('claim', error);
    },
  );
}
