/**
 * `hyphae init --stores`: initialise the ledger stores of an existing config once, at deploy time,
 * so a store opened later with `create: false` (the production profile's default) finds its ledger.
 */

import type { LedgerStorage } from '../../storage/ledger-storage.js';
import type { CommandContext } from '../command.js';
import { ExitCode } from '../command.js';
import { openLedgerStores } from './config-ledgers.js';

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Initialise every ledger store `file` names and print each ledger id; exit 1 when one fails. */
export async function initStores(file: string, ctx: CommandContext): Promise<ExitCode> {
  const storages = await openLedgerStores(file, ctx, { create: true });
  if (storages === undefined) return ExitCode.failed;
  let failed = 0;
  try {
    // With `create: true` every store is opened for real (none is a stand-in for a missing file).
    for (const storage of storages as LedgerStorage[]) {
      const name = storage.capabilities.name;
      try {
        if (storage.identity !== undefined) {
          const { ledgerId, createdAt } = await storage.identity();
          ctx.out.line(`${ctx.out.pass('Ledger')} ${name}: ${ledgerId} (since ${new Date(createdAt).toISOString()})`);
        } else {
          await (storage as { ensureSchema?: () => Promise<void> }).ensureSchema?.();
          ctx.out.line(`${ctx.out.pass('Ready')} ${name} (this store keeps no ledger id)`);
        }
      } catch (error) {
        failed += 1;
        ctx.err.line(`${ctx.err.fail('Failed')} ${name}: ${message(error)}`);
      }
    }
  } finally {
    await Promise.allSettled(storages.map((storage) => storage.close()));
  }
  return failed === 0 ? ExitCode.ok : ExitCode.failed;
}
