/**
 * The storage conformance suite: one behaviour contract every `LedgerStorage` driver runs.
 *
 * Published code: it uses `node:assert/strict` and registers with whatever test framework the
 * caller passes, so it imports none.
 */

import { checkOptions, recordArgument } from '../invalid-argument.js';
import { defineDecisionCases } from './storage-conformance/decision-cases.js';
import { defineDenialCases } from './storage-conformance/denial-cases.js';
import { createConformanceSuite, type StorageConformanceOptions } from './storage-conformance/harness.js';
import { defineIdentityCases } from './storage-conformance/identity-cases.js';
import { defineLifecycleCases } from './storage-conformance/lifecycle-cases.js';
import { defineListCases } from './storage-conformance/list-cases.js';
import { defineRaceCases } from './storage-conformance/race-cases.js';
import { defineRecordCases } from './storage-conformance/record-cases.js';
import { defineUpdateCases } from './storage-conformance/update-cases.js';
import { defineWatchCases } from './storage-conformance/watch-cases.js';

export type { ConformanceTestApi, StorageConformanceOptions } from './storage-conformance/harness.js';
export { makeTestRecord } from './storage-conformance/make-test-record.js';

/**
 * Register the storage conformance cases for one driver.
 *
 * `open()` must return a new client on the same store at every call: the concurrency cases race
 * several clients against each other. Cases use random keys and tool names, so a shared server needs
 * no wipe between them; every client a case opens is closed when it ends.
 *
 * @example
 * import { describe, it } from 'vitest';
 * import { createSqliteStorage } from 'hyphae/sqlite';
 * import { describeStorageConformance } from 'hyphae/testing';
 *
 * describeStorageConformance({
 *   name: 'sqlite',
 *   open: () => createSqliteStorage({ path: '/tmp/ledger-conformance.db' }),
 *   api: { describe, it },
 * });
 */
export function describeStorageConformance(options: StorageConformanceOptions): void {
  checkOptions('describeStorageConformance', options, false);
  recordArgument('describeStorageConformance', 'options.api', options.api, ['describe', 'it']);
  const suite = createConformanceSuite(options);
  options.api.describe(`${options.name} storage conformance`, () => {
    defineRecordCases(suite);
    defineUpdateCases(suite);
    defineListCases(suite);
    defineRaceCases(suite);
    defineLifecycleCases(suite);
    defineWatchCases(suite);
    defineIdentityCases(suite);
    defineDecisionCases(suite);
    defineDenialCases(suite);
  });
}
