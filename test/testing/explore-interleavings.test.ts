import { describe, expect, it } from 'vitest';
import { exploreInterleavings, formatSchedule, replaySchedule, withoutVersionCheck } from '../../src/testing/index.js';

describe('exploreInterleavings', () => {
  it('finds no anomaly in any schedule of two workers with a crash, a lease expiry and a release', async () => {
    const report = await exploreInterleavings({ workers: 2, depth: 7 });
    expect(report.exhaustive).toBe(true);
    expect(report.schedules).toBeGreaterThan(100);
    expect(report.failures).toBe(0);
    expect(report.shortestFailing).toBeNull();
    // Some schedules ran the payment (one effect each), others hard-blocked it (none).
    expect(report.effects).toBeGreaterThan(0);
    expect(report.effects).toBeLessThanOrEqual(report.schedules);
  });

  it('finds no anomaly for three workers, exhaustively to depth 6 and over seeded random schedules', async () => {
    const report = await exploreInterleavings({ workers: 3, depth: 6, randomSchedules: 300, seed: 11 });
    expect(report.exhaustive).toBe(true);
    expect(report.randomSchedules).toBe(300);
    expect(report.failures).toBe(0);
  });

  it('finds the duplicate payment when compare-and-set ignores the version, and prints the schedule', async () => {
    const options = { workers: 3, depth: 6, storage: withoutVersionCheck, stopOnFailure: true };
    const report = await exploreInterleavings(options);
    const failing = report.shortestFailing;
    expect(failing).not.toBeNull();
    if (failing === null) return;
    expect(failing.anomalies.map((a) => a.kind)).toContain('duplicate_effect');
    const text = formatSchedule(failing);
    expect(text).toContain('crash w1');
    expect(text).toContain('operator releases not_executed');
    expect(text).toContain('duplicate_effect in `pay:call-1`: 2 effects ran for one transition');
    // The decisions replay the same schedule, step for step.
    const again = await replaySchedule(options, failing.decisions);
    expect(again.trace).toEqual(failing.trace);
    expect(again.anomalies.map((a) => a.kind)).toEqual(failing.anomalies.map((a) => a.kind));
    // The same schedule on the correct store is clean.
    const { storage: _bug, ...correct } = options;
    expect((await replaySchedule(correct, failing.decisions)).anomalies).toEqual([]);
  });

  it('explores the same schedules for the same seed', async () => {
    const run = () =>
      exploreInterleavings({ workers: 3, depth: 3, randomSchedules: 50, seed: 5, storage: withoutVersionCheck });
    const [a, b] = [await run(), await run()];
    expect(b).toEqual(a);
  });

  it('refuses options it cannot honour', async () => {
    await expect(exploreInterleavings({ workers: 0 })).rejects.toMatchObject({ code: 'invalid_option' });
    await expect(exploreInterleavings({ depth: -1 })).rejects.toMatchObject({ code: 'invalid_option' });
  });
});
