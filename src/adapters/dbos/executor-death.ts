/**
 * A restarted DBOS executor as worker-death evidence. DBOS recovers an executor's pending
 * workflows when a process with that executor id launches: by DBOS's own contract the process that
 * ran them is gone. The ledger hears the same fact, so a recovered step meets its dead claim at
 * once instead of waiting until the owner is presumed dead (twice the lease, ten minutes at the
 * defaults):
 *
 *   process 1 (executor A)  claim ─► charge ─► SIGKILL
 *   process 2 (executor A)  markExecutorDead(ledger) ─► DBOS.launch() ─► recovered step ─► hard block, now
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import { GuardError } from '../../core/guard-error.js';
import { InvalidArgumentError, recordArgument, stringArgument } from '../../invalid-argument.js';
import type { Ledger } from '../../ledger/types.js';
import type { TransitionRecord } from '../../records/transition-record.js';

function executorIdArgument(fn: string, executorID: string): string {
  if (stringArgument(fn, 'executorID', executorID).trim() === '') {
    throw new InvalidArgumentError(fn, 'executorID', 'must be a non-empty string');
  }
  return executorID;
}

/**
 * The ledger owner id of a DBOS executor's processes (`dbos:<executorID>`): pass it to
 * `createLedger({ ownerId })`, so {@link markExecutorDead} finds their claims.
 */
export function dbosOwnerId(executorID: string = DBOS.executorID): string {
  return `dbos:${executorIdArgument('dbosOwnerId', executorID)}`;
}

/**
 * Record that the earlier processes of DBOS executor `executorID` are gone: every IN_FLIGHT claim
 * their ledgers (created with `ownerId: dbosOwnerId(executorID)`) still hold is marked dead, by
 * `dbos`, so the steps DBOS recovers meet those claims at once (a step that died mid-effect
 * hard-blocks now; one that died before its effect is taken over). Call it before `DBOS.launch()`,
 * which starts the recovery; once this process has launched under that executor id, its own claims
 * would be among them, so it refuses (`dbos_launched`). Returns the records it marked.
 *
 * @example
 * const ledger = createLedger({ storage, agentId: 'shop', policyVersion: 'shop.1', ownerId: dbosOwnerId(executorID) });
 * DBOS.setConfig({ name: 'shop', systemDatabaseUrl, executorID });
 * await markExecutorDead(ledger, executorID);
 * await DBOS.launch();
 */
export async function markExecutorDead(
  ledger: Ledger,
  executorID: string = DBOS.executorID,
): Promise<readonly TransitionRecord[]> {
  recordArgument('markExecutorDead', 'ledger', ledger, ['markWorkerDead']);
  if (typeof ledger.markWorkerDead !== 'function') {
    throw new InvalidArgumentError(
      'markExecutorDead',
      'ledger',
      'must be a ledger (`createLedger`): it has no `markWorkerDead`',
    );
  }
  executorIdArgument('markExecutorDead', executorID);
  if (DBOS.isInitialized() && DBOS.executorID === executorID) {
    throw new GuardError(
      'dbos_launched',
      `\`markExecutorDead\` was called after DBOS launched as executor \`${executorID}\`: this process's own claims would be marked dead; call it before \`DBOS.launch()\``,
    );
  }
  return ledger.markWorkerDead(
    { owner: dbosOwnerId(executorID) },
    {
      by: 'dbos',
      reason: `executor \`${executorID}\` restarted: DBOS recovers its pending workflows`,
      overrideHeartbeat: true,
    },
  );
}
