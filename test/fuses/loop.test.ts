import { describe, expect, it } from 'vitest';
import { FuseConfigError } from '../../src/fuses/errors.js';
import { createFuseBox } from '../../src/fuses/fuse-box.js';
import { type LoopFuseOptions, loopFuse } from '../../src/fuses/loop.js';
import { FuseCode } from '../../src/fuses/verdict.js';
import { refused } from './helpers.js';

function loopRun(options: LoopFuseOptions = {}) {
  return createFuseBox({ loop: loopFuse(options), keepLog: false }).forRun('run-1');
}

describe('loopFuse: repeats', () => {
  it('gives [allow, allow, refuse] for an identical call with threshold 3 (lesson)', () => {
    const run = loopRun({ repeatThreshold: 3 });
    const call = { name: 'search_docs', args: { q: 'refund policy' } };

    const verdicts = [run.checkToolCall(call), run.checkToolCall(call), run.checkToolCall(call)];

    expect(verdicts.map((v) => v.allowed)).toEqual([true, true, false]);
    const third = refused(verdicts[2] ?? { allowed: true });
    expect(third.code).toBe(FuseCode.loop_repeat);
    expect(third.evidence).toEqual({ tool: 'search_docs', count: 3, threshold: 3 });
    expect(third.note).toContain('3rd identical call');
  });

  it('ignores call ids and key order when comparing calls', () => {
    const run = loopRun();

    run.checkToolCall({ id: 'call_1', name: 'f', args: { a: 1, b: { c: 2, d: 3 } } });
    run.checkToolCall({ id: 'call_2', name: 'f', args: { b: { d: 3, c: 2 }, a: 1 } });

    expect(refused(run.checkToolCall({ id: 'call_3', name: 'f', args: { b: { c: 2, d: 3 }, a: 1 } })).code).toBe(
      FuseCode.loop_repeat,
    );
  });

  it('ends the run by default: the refusal is terminal and every later call is refused', () => {
    const run = loopRun();
    const call = { name: 'f', args: { x: 1 } };
    run.checkToolCall(call);
    run.checkToolCall(call);

    const third = refused(run.checkToolCall(call));

    expect(third).toMatchObject({ code: FuseCode.loop_repeat, terminal: true });
    expect(run.stopped).toBe(third);
    expect(refused(run.checkToolCall({ name: 'f', args: { x: 2 } })).code).toBe(FuseCode.run_stopped);
    expect(refused(run.checkModelCall({ model: 'm', messages: [], maxOutputTokens: 1 }).verdict).code).toBe(
      FuseCode.run_stopped,
    );
  });

  it('with `terminal: false`, keeps refusing a repeated call, and lets a different one through', () => {
    const run = loopRun({ terminal: false });
    const call = { name: 'f', args: { x: 1 } };
    run.checkToolCall(call);
    run.checkToolCall(call);

    expect(run.checkToolCall(call).allowed).toBe(false);
    expect(run.checkToolCall(call).allowed).toBe(false);
    expect(run.checkToolCall({ name: 'f', args: { x: 2 } }).allowed).toBe(true);
  });

  it('raises the threshold of a tool with an allowance', () => {
    const run = loopRun({ allowances: { poll_status: 20 } });
    const poll = { name: 'poll_status', args: { job: 'j1' } };

    const allowed = Array.from({ length: 19 }, () => run.checkToolCall(poll).allowed);

    expect(allowed.every(Boolean)).toBe(true);
    expect(refused(run.checkToolCall(poll)).evidence.threshold).toBe(20);
  });

  it('never refuses a polling tool whose result changes (lesson)', () => {
    const run = loopRun({ repeatThreshold: 3 });
    const poll = { name: 'poll_status', args: { job: 'j1' } };

    for (let i = 0; i < 1_000; i++) {
      expect(run.checkToolCall(poll).allowed).toBe(true);
      run.recordToolResult({ ...poll, result: { status: 'running', progress: i } });
    }
  });

  it('refuses a repeat whose results stay the same, even when they are recorded', () => {
    const run = loopRun({ repeatThreshold: 3 });
    const poll = { name: 'poll_status', args: { job: 'j1' } };

    for (let i = 0; i < 2; i++) {
      expect(run.checkToolCall(poll).allowed).toBe(true);
      run.recordToolResult({ ...poll, result: { status: 'pending' } });
    }

    expect(refused(run.checkToolCall(poll)).code).toBe(FuseCode.loop_repeat);
  });

  it('restarts the count at the last change of result', () => {
    const run = loopRun({ repeatThreshold: 3 });
    const poll = { name: 'poll_status', args: {} };
    const results = ['queued', 'running', 'running'];

    for (const status of results) {
      expect(run.checkToolCall(poll).allowed).toBe(true);
      run.recordToolResult({ ...poll, result: { status } });
    }

    expect(run.checkToolCall(poll).allowed).toBe(false);
  });

  it('forgets repeats that have left the window', () => {
    const run = loopRun({ repeatThreshold: 3, maxCycleLength: 2, window: 4 });
    const a = { name: 'a', args: {} };

    run.checkToolCall(a);
    run.checkToolCall(a);
    for (const name of ['b', 'c', 'd', 'e']) run.checkToolCall({ name, args: {} });

    expect(run.checkToolCall(a).allowed).toBe(true);
  });

  it('can make loop refusals terminal', () => {
    const run = loopRun({ repeatThreshold: 2, terminal: true });
    run.checkToolCall({ name: 'f', args: {} });

    expect(refused(run.checkToolCall({ name: 'f', args: {} })).terminal).toBe(true);
    expect(refused(run.checkToolCall({ name: 'g', args: {} })).code).toBe(FuseCode.run_stopped);
  });
});

describe('loopFuse: cycles', () => {
  it('refuses A,B,A,B at the fourth call while no call is repeated three times (lesson)', () => {
    const run = loopRun({ repeatThreshold: 3, maxCycleLength: 4 });
    const a = { name: 'lookup_order', args: { id: 1 } };
    const b = { name: 'search_docs', args: { q: 'x' } };

    const verdicts = [a, b, a, b].map((call) => run.checkToolCall(call));

    expect(verdicts.map((v) => v.allowed)).toEqual([true, true, true, false]);
    const fourth = refused(verdicts[3] ?? { allowed: true });
    expect(fourth.code).toBe(FuseCode.loop_cycle);
    expect(fourth.evidence).toEqual({ tool: 'search_docs', period: 2, cycle: ['lookup_order', 'search_docs'] });
    expect(fourth.note).toContain('`lookup_order` → `search_docs`');
  });

  it('refuses a period-3 cycle at the end of its second period', () => {
    const run = loopRun();
    const calls = ['a', 'b', 'c', 'a', 'b', 'c'].map((name) => ({ name, args: {} }));

    expect(calls.map((call) => run.checkToolCall(call).allowed)).toEqual([true, true, true, true, true, false]);
  });

  it('does not look for cycles longer than `maxCycleLength`', () => {
    const run = loopRun({ maxCycleLength: 4 });
    const calls = [...'abcdeabcde'].map((name) => ({ name, args: {} }));

    expect(calls.every((call) => run.checkToolCall(call).allowed)).toBe(true);
  });

  it('treats a cycle whose results change as progress', () => {
    // `sleep` always returns the same thing, so it needs an allowance for its own repeats.
    const run = loopRun({ allowances: { sleep: 1_000 } });
    const poll = { name: 'poll_status', args: {} };
    const wait = { name: 'sleep', args: { ms: 1000 } };

    for (let i = 0; i < 50; i++) {
      expect(run.checkToolCall(poll).allowed).toBe(true);
      run.recordToolResult({ ...poll, result: { progress: i } });
      expect(run.checkToolCall(wait).allowed).toBe(true);
      run.recordToolResult({ ...wait, result: null });
    }
  });

  it('refuses the same cycle when the results do not change', () => {
    const run = loopRun({ allowances: { sleep: 1_000 } });
    const poll = { name: 'poll_status', args: {} };
    const wait = { name: 'sleep', args: { ms: 1000 } };

    const verdicts = [poll, wait, poll, wait].map((call) => {
      const verdict = run.checkToolCall(call);
      run.recordToolResult({ ...call, result: { status: 'pending' } });
      return verdict;
    });

    expect(refused(verdicts[3] ?? { allowed: true }).code).toBe(FuseCode.loop_cycle);
  });

  it('lets a cycle made only of tools with allowances run up to their thresholds', () => {
    const run = loopRun({ allowances: { poll_status: 10, sleep: 10 } });
    const poll = { name: 'poll_status', args: {} };
    const wait = { name: 'sleep', args: {} };

    const verdicts = Array.from({ length: 20 }, (_, i) => run.checkToolCall(i % 2 === 0 ? poll : wait).allowed);

    expect(verdicts.slice(0, 18).every(Boolean)).toBe(true);
    expect(verdicts.slice(18)).toEqual([false, false]);
  });
});

describe('loopFuse: construction and memory', () => {
  it.each([
    [{ repeatThreshold: 1 }, 'repeatThreshold'],
    [{ repeatThreshold: 2.5 }, 'repeatThreshold'],
    [{ repeatThreshold: Number.NaN }, 'repeatThreshold'],
    [{ maxCycleLength: 0 }, 'maxCycleLength'],
    [{ allowances: { poll: 1 } }, 'allowances.poll'],
    [{ maxCycleLength: 4, window: 7 }, 'window'],
  ] as const)('rejects %o with a typed error naming `%s`', (options, option) => {
    const error = (() => {
      try {
        loopFuse(options);
      } catch (caught) {
        return caught;
      }
      return null;
    })();

    expect(error).toBeInstanceOf(FuseConfigError);
    expect((error as FuseConfigError).code).toBe('invalid_option');
    expect((error as FuseConfigError).option).toBe(option);
  });

  it('keeps its state bounded over 100k calls', () => {
    const run = loopRun({ window: 128 });
    let maxSignatures = 0;

    for (let i = 0; i < 100_000; i++) {
      run.checkToolCall({ name: `tool_${i % 7}`, args: { page: i % 1_000, q: `query ${i}` } });
      if (i % 1_000 === 0) maxSignatures = Math.max(maxSignatures, run.stats().loop?.signatures ?? 0);
    }

    const stats = run.stats().loop;
    expect(stats?.calls).toBe(100_000);
    expect(stats?.capacity).toBe(128);
    expect(stats?.window).toBeLessThanOrEqual(128);
    expect(stats?.signatures).toBeLessThanOrEqual(128);
    expect(maxSignatures).toBeLessThanOrEqual(128);
  });

  it('empties its window on reset', () => {
    const run = loopRun();
    run.checkToolCall({ name: 'f', args: {} });
    run.checkToolCall({ name: 'f', args: {} });

    run.reset();

    expect(run.stats().loop).toMatchObject({ window: 0, signatures: 0, calls: 0 });
    expect(run.checkToolCall({ name: 'f', args: {} }).allowed).toBe(true);
  });
});
