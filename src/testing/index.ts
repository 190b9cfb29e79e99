/**
 * `hyphae/testing`: the test kit for drivers and applications.
 */
export type { ConformanceTestApi, StorageConformanceOptions } from './storage-conformance.js';
export { describeStorageConformance, makeTestRecord } from './storage-conformance.js';
