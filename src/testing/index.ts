/**
 * `hyphae/testing`: the test kit for drivers and applications.
 *
 * @module
 */

export type { ExploreOptions, ExploreReport, FailingSchedule } from './explore/explore-interleavings.js';
export { exploreInterleavings, formatSchedule, replaySchedule } from './explore/explore-interleavings.js';
export type { Choice, ExploreFaults } from './explore/run-schedule.js';
export { withoutVersionCheck } from './explore/seeded-bugs.js';
export type {
  AnomalyKind,
  CheckHistoryOptions,
  HistoryAnomaly,
  HistoryCheck,
} from './history/check-history.js';
export { checkHistory, formatAnomalies } from './history/check-history.js';
export type {
  HistoryError,
  HistoryEvent,
  HistoryOperation,
  HistoryRecorder,
  HistoryRecorderOptions,
} from './history/history.js';
export { createHistoryRecorder, historyError, parseHistory } from './history/history.js';
export type { ConformanceTestApi, StorageConformanceOptions } from './storage-conformance.js';
export { describeStorageConformance, makeTestRecord } from './storage-conformance.js';
