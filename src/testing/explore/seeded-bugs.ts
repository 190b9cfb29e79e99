/**
 * Seeded bugs for proving that a checker can fail: storage wrappers that break one guarantee.
 */

import { checkOptions } from '../../invalid-argument.js';
import type { LedgerStorage } from '../../storage/ledger-storage.js';

/**
 * `base` with a compare-and-set that no longer checks the version: an update lands whenever the
 * record exists. The interleaving explorer must find the duplicate effect this lets through.
 */
export function withoutVersionCheck(base: LedgerStorage): LedgerStorage {
  checkOptions('withoutVersionCheck', base, false, 'base');
  return {
    ...base,
    async update(key, _expectedVersion, next) {
      const current = await base.get(key);
      return current === null ? false : base.update(key, current.version, next);
    },
  };
}
