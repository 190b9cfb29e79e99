import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../src/core/clock.js';
import { type CanaryFuseOptions, type CanarySample, canaryFuse } from '../../src/fuses/canary.js';
import { FuseConfigError } from '../../src/fuses/errors.js';

const gates = { maxErrorRateDelta: 0.02, maxP95LatencyRatio: 1.5, maxCostPerRequestRatio: 1.5, minSamples: 50 };

function canaryWith(options: Partial<CanaryFuseOptions> = {}) {
  return canaryFuse({ percent: 10, gates, clock: createManualClock(5_000), ...options });
}

function feed(
  canary: ReturnType<typeof canaryFuse>,
  arm: CanarySample['arm'],
  n: number,
  sample: Omit<CanarySample, 'arm'>,
) {
  for (let i = 0; i < n; i++)
    expect(canary.record({ arm, ...sample, latencyMs: sample.latencyMs + (i % 10) })).toEqual({ accepted: true });
}

describe('canaryFuse: routing', () => {
  it('routes an id the same way every time, and about `percent` of ids to the canary', () => {
    const canary = canaryWith();
    const ids = Array.from({ length: 10_000 }, (_, i) => `req-${i}`);

    const arms = ids.map((id) => canary.route(id));

    expect(ids.map((id) => canary.route(id))).toEqual(arms);
    const share = arms.filter((arm) => arm === 'canary').length / ids.length;
    expect(share).toBeGreaterThan(0.08);
    expect(share).toBeLessThan(0.12);
  });

  it('routes by SHA-256 of salt + id, so a salt reshuffles the split', () => {
    const a = canaryWith({ salt: 'exp-a', percent: 50 });
    const b = canaryWith({ salt: 'exp-b', percent: 50 });
    const ids = Array.from({ length: 200 }, (_, i) => `req-${i}`);

    const differing = ids.filter((id) => a.route(id) !== b.route(id)).length;

    expect(differing).toBeGreaterThan(50);
    expect(canaryWith({ percent: 0 }).route('x')).toBe('baseline');
    expect(canaryWith({ percent: 100 }).route('x')).toBe('canary');
  });
});

describe('canaryFuse: decisions', () => {
  it('waits until both arms have the minimum samples', () => {
    const canary = canaryWith();
    feed(canary, 'baseline', 500, { ok: true, latencyMs: 100, costUsd: 0.01 });
    feed(canary, 'canary', 49, { ok: true, latencyMs: 100, costUsd: 0.01 });

    const event = canary.decide();

    expect(event.decision).toBe('wait');
    expect(event.reasons).toEqual(['`canary` has 49 of 50 samples']);
  });

  it('rolls back a candidate that costs 2.2 times as much (lesson)', () => {
    const canary = canaryWith();
    feed(canary, 'baseline', 100, { ok: true, latencyMs: 100, costUsd: 0.01 });
    feed(canary, 'canary', 100, { ok: true, latencyMs: 100, costUsd: 0.022 });

    const event = canary.decide();

    expect(event.decision).toBe('rollback');
    expect(event.metrics.costRatio).toBeCloseTo(2.2, 9);
    expect(event.reasons).toEqual(["Cost per request ×2.20 the baseline's (allowed ×1.5)"]);
  });

  it('promotes a healthy candidate (lesson)', () => {
    const canary = canaryWith();
    feed(canary, 'baseline', 100, { ok: true, latencyMs: 100, costUsd: 0.01 });
    feed(canary, 'canary', 100, { ok: true, latencyMs: 105, costUsd: 0.011 });

    const event = canary.decide();

    expect(event.decision).toBe('promote');
    expect(event.reasons).toEqual([]);
  });

  it('does not roll back a tiny cost over a free baseline (lesson, trap)', () => {
    const canary = canaryWith();
    feed(canary, 'baseline', 100, { ok: true, latencyMs: 100, costUsd: 0 });
    feed(canary, 'canary', 100, { ok: true, latencyMs: 100, costUsd: 0.0002 });

    const event = canary.decide();

    expect(event.decision).toBe('promote');
    expect(event.metrics.costRatio).toBeNull();
    expect(event.metrics.costDeltaUsd).toBeCloseTo(0.0002, 12);
  });

  it('rolls back a free-baseline candidate whose cost exceeds the absolute allowance', () => {
    const canary = canaryWith({ gates: { ...gates, maxCostPerRequestDeltaUsd: 0.0001 } });
    feed(canary, 'baseline', 100, { ok: true, latencyMs: 100, costUsd: 0 });
    feed(canary, 'canary', 100, { ok: true, latencyMs: 100, costUsd: 0.0002 });

    expect(canary.decide().decision).toBe('rollback');
  });

  it('rolls back on error rate and on p95 latency', () => {
    const errors = canaryWith();
    feed(errors, 'baseline', 100, { ok: true, latencyMs: 100, costUsd: 0.01 });
    feed(errors, 'canary', 95, { ok: true, latencyMs: 100, costUsd: 0.01 });
    feed(errors, 'canary', 5, { ok: false, latencyMs: 100, costUsd: 0.01 });
    const slow = canaryWith();
    feed(slow, 'baseline', 100, { ok: true, latencyMs: 100, costUsd: 0.01 });
    feed(slow, 'canary', 100, { ok: true, latencyMs: 200, costUsd: 0.01 });

    expect(errors.decide()).toMatchObject({ decision: 'rollback', reasons: [expect.stringContaining('Error rate')] });
    expect(slow.decide()).toMatchObject({ decision: 'rollback', reasons: [expect.stringContaining('p95 latency')] });
  });

  it('logs every decision as an event', () => {
    const canary = canaryWith();
    canary.decide();
    feed(canary, 'baseline', 50, { ok: true, latencyMs: 1, costUsd: 0 });
    feed(canary, 'canary', 50, { ok: true, latencyMs: 1, costUsd: 0 });
    canary.decide();

    expect(canary.events.map((e) => [e.seq, e.at, e.decision])).toEqual([
      [1, 5_000, 'wait'],
      [2, 5_000, 'promote'],
    ]);
    expect(JSON.parse(JSON.stringify(canary.events))).toEqual(canary.events);
  });

  it.each([
    { arm: 'other', ok: true, latencyMs: 1, costUsd: 0 },
    { arm: 'canary', ok: 'yes', latencyMs: 1, costUsd: 0 },
    { arm: 'canary', ok: true, latencyMs: -1, costUsd: 0 },
    { arm: 'canary', ok: true, latencyMs: 1, costUsd: Number.NaN },
    null,
  ])('refuses the sample %o without throwing', (sample) => {
    const result = canaryWith().record(sample as never);

    expect(result.accepted).toBe(false);
  });

  it.each([
    { percent: 101 },
    { percent: Number.NaN },
    { gates: { ...gates, minSamples: 0 } },
    { gates: { ...gates, minSamples: 2.5 } },
    { gates: { ...gates, maxErrorRateDelta: -0.1 } },
  ])('rejects %o at construction', (options) => {
    expect(() => canaryWith(options as Partial<CanaryFuseOptions>)).toThrow(FuseConfigError);
  });
});
