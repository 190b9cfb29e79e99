import { describe, expect, it } from 'vitest';
import { budgetFuse } from '../../src/fuses/budget.js';
import { assertAllowed, FuseConfigError, FuseTrippedError } from '../../src/fuses/errors.js';
import type { FuseEvent } from '../../src/fuses/events.js';
import { createFuseBox } from '../../src/fuses/fuse-box.js';
import { loopFuse } from '../../src/fuses/loop.js';
import { permissionFuse } from '../../src/fuses/permission.js';
import type { ToolFuse } from '../../src/fuses/tool-fuse.js';
import { FuseCode } from '../../src/fuses/verdict.js';
import { REFUND_TOOLS, refundBox, refused } from './helpers.js';

describe('createFuseBox', () => {
  it('refuses the design example through the permission fuse', () => {
    const box = createFuseBox({
      permission: permissionFuse({
        granted: ['read'],
        tools: { lookup_order: ['read'], issue_refund: ['write', 'spend_money'] },
      }),
      loop: loopFuse({ repeatThreshold: 3, maxCycleLength: 4 }),
      budget: budgetFuse({ maxUsd: 0.05, price: { inputPer1k: 0.05, outputPer1k: 0.15 } }),
    });

    const verdict = box.forRun('run-1').checkToolCall({ name: 'issue_refund', args: { amount: 40 } });

    expect(verdict.allowed).toBe(false);
    expect(refused(verdict).fuse).toBe('permission');
  });

  it('checks permission before loop, so refused calls never count as repeats', () => {
    const run = refundBox().forRun('run-1');

    for (let i = 0; i < 2; i++)
      expect(refused(run.checkToolCall({ name: 'issue_refund', args: {} })).fuse).toBe('permission');
    expect(run.stats().loop?.calls).toBe(0);
  });

  it('keeps runs apart and gives the same box back for the same id', () => {
    const box = refundBox();
    const call = { name: 'lookup_order', args: { id: 1 } };
    const first = box.forRun('run-1');
    first.checkToolCall(call);
    first.checkToolCall(call);

    const other = box.forRun('run-2');

    expect(other.checkToolCall(call).allowed).toBe(true);
    expect(box.forRun('run-1')).toBe(first);
    expect(box.forRun('run-1').checkToolCall(call).allowed).toBe(false);
  });

  it('forgets an ended run: its object refuses everything, a new one starts fresh', () => {
    const box = refundBox();
    const call = { name: 'lookup_order', args: { id: 1 } };
    const old = box.forRun('run-1');
    old.checkToolCall(call);
    old.checkToolCall(call);

    old.end();
    const fresh = box.forRun('run-1');

    expect(fresh).not.toBe(old);
    expect(fresh.checkToolCall(call).allowed).toBe(true);
    expect(refused(old.checkToolCall(call)).reason).toBe('Run `run-1` has ended');
    expect(old.release('res-1')).toBe(false);
  });

  it('requires a run id to hold state', () => {
    expect(() => refundBox().forRun('')).toThrow(FuseConfigError);
  });
});

describe('terminal latch', () => {
  it('refuses the sibling calls of a turn after a terminal refusal (trap)', () => {
    const run = refundBox({
      permission: permissionFuse({ granted: ['read'], tools: REFUND_TOOLS, maxDenials: 1 }),
    }).forRun('run-1');
    const turn = [
      { id: 'c1', name: 'issue_refund', args: { amount: 40 } },
      { id: 'c2', name: 'lookup_order', args: { id: 1 } },
      { id: 'c3', name: 'search_docs', args: { q: 'refund' } },
    ];

    const verdicts = turn.map((call) => run.checkToolCall(call));

    expect(refused(verdicts[0] ?? { allowed: true })).toMatchObject({
      code: FuseCode.permission_denied,
      terminal: true,
    });
    for (const verdict of verdicts.slice(1)) {
      expect(refused(verdict)).toMatchObject({ fuse: 'box', code: FuseCode.run_stopped, terminal: true });
      expect(refused(verdict).evidence.stoppedBy).toMatchObject({ fuse: 'permission', code: 'permission_denied' });
    }
    expect(refused(verdicts[1] ?? { allowed: true }).note).toContain('`lookup_order` was NOT executed');
    expect(run.stopped?.code).toBe(FuseCode.permission_denied);
    expect(refused(run.checkModelCall({ model: 'gpt-4o', messages: [], maxOutputTokens: 1 }).verdict).code).toBe(
      FuseCode.run_stopped,
    );
  });

  it('clears on reset, together with the permission denials (trap)', () => {
    const run = refundBox({
      permission: permissionFuse({ granted: ['read'], tools: REFUND_TOOLS, maxDenials: 1 }),
    }).forRun('run-1');
    run.checkToolCall({ name: 'issue_refund', args: {} });

    run.reset();

    expect(run.stopped).toBeNull();
    expect(run.checkToolCall({ name: 'lookup_order', args: {} }).allowed).toBe(true);
    expect(run.stats().permission).toEqual({ denials: 0 });
  });
});

describe('never throws', () => {
  const hostile = [
    null,
    undefined,
    {},
    { name: 42, args: {} },
    { name: 'lookup_order', args: { n: 10n } },
    { name: 'lookup_order', args: { f: () => 1 } },
    { name: 'lookup_order', args: { x: Number.NaN } },
  ];

  it.each(hostile)('answers %o with an `invalid_call` refusal', (call) => {
    const run = refundBox().forRun('run-1');

    const verdict = refused(run.checkToolCall(call as never));

    expect(verdict).toMatchObject({ fuse: 'box', code: FuseCode.invalid_call, terminal: false });
    expect(() => run.recordToolResult(call as never)).not.toThrow();
  });

  it('turns a fuse that throws in `check`, `commit` or `recordResult` into a terminal refusal', () => {
    const breaking = (where: 'check' | 'commit' | 'recordResult'): ToolFuse => ({
      name: `broken_${where}`,
      start: () => ({
        check: () => {
          if (where === 'check') throw new TypeError('check broke');
          return { allowed: true };
        },
        commit: () => {
          if (where === 'commit') throw new TypeError('commit broke');
        },
        recordResult: () => {
          if (where === 'recordResult') throw new TypeError('record broke');
        },
        reset: () => {},
        stats: () => ({}),
      }),
    });

    for (const where of ['check', 'commit'] as const) {
      const run = createFuseBox({ loop: breaking(where) }).forRun('run-1');
      expect(refused(run.checkToolCall({ name: 'f', args: {} }))).toMatchObject({
        fuse: `broken_${where}`,
        code: FuseCode.fuse_internal_error,
        terminal: true,
      });
    }
    const run = createFuseBox({ loop: breaking('recordResult') }).forRun('run-1');
    expect(run.checkToolCall({ name: 'f', args: {} }).allowed).toBe(true);
    expect(refused(run.recordToolResult({ name: 'f', args: {}, result: 1 })).code).toBe(FuseCode.fuse_internal_error);
    expect(refused(run.checkToolCall({ name: 'g', args: {} })).code).toBe(FuseCode.run_stopped);
  });

  it('turns a fuse that returns no verdict into a terminal refusal', () => {
    const silent: ToolFuse = {
      name: 'silent',
      start: () => ({
        check: () => undefined as never,
        commit: () => {},
        recordResult: () => {},
        reset: () => {},
        stats: () => {
          throw new Error('no stats');
        },
      }),
    };
    const run = createFuseBox({ loop: silent }).forRun('run-1');

    expect(refused(run.checkToolCall({ name: 'f', args: {} }))).toMatchObject({
      fuse: 'silent',
      code: FuseCode.fuse_internal_error,
      evidence: { error: 'the fuse returned no verdict' },
    });
    expect(run.stats()).toEqual({ loop: {} });
  });

  it('has a throwing twin for callers that prefer exceptions', () => {
    const run = refundBox().forRun('run-1');
    const verdict = run.checkToolCall({ name: 'issue_refund', args: {} });

    expect(() => assertAllowed(verdict)).toThrow(FuseTrippedError);
    try {
      assertAllowed(verdict);
    } catch (error) {
      expect((error as FuseTrippedError).verdict).toBe(verdict);
      expect((error as FuseTrippedError).llmMessage).toContain('NOT executed');
    }
  });
});

describe('event log', () => {
  it('logs every decision as JSON with its input and verdict', () => {
    const box = refundBox();
    const run = box.forRun('run-1');
    run.checkToolCall({ id: 'c1', name: 'lookup_order', args: { b: 2, a: 1 } });
    run.recordToolResult({ id: 'c1', name: 'lookup_order', args: { a: 1, b: 2 }, result: { total: 40 } });

    expect(JSON.parse(JSON.stringify(box.log))).toEqual(box.log);
    expect(box.log[0]).toEqual({
      type: 'tool_call',
      runId: 'run-1',
      at: 1_000,
      call: { id: 'c1', name: 'lookup_order', argsJson: '{"a":1,"b":2}' },
      verdict: { allowed: true },
    });
    expect(box.log[1]).toMatchObject({
      type: 'tool_result',
      resultFingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
  });

  it('streams events to `onEvent`, ignores a throwing hook, and can keep no log', () => {
    const seen: FuseEvent[] = [];
    const box = refundBox({
      keepLog: false,
      onEvent: (event) => {
        seen.push(event);
        throw new Error('sink down');
      },
    });

    const verdict = box.forRun('run-1').checkToolCall({ name: 'lookup_order', args: {} });

    expect(verdict.allowed).toBe(true);
    expect(seen).toHaveLength(1);
    expect(box.log).toEqual([]);
  });

  it('fingerprints results that are not plain JSON through their JSON form', () => {
    const box = refundBox();
    const run = box.forRun('run-1');
    const call = { name: 'lookup_order', args: {} };
    run.recordToolResult({ ...call, result: new Date(0) });
    run.recordToolResult({ ...call, result: undefined });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    run.recordToolResult({ ...call, result: cyclic });

    const fingerprints = box.log.map((event) => (event.type === 'tool_result' ? event.resultFingerprint : 'n/a'));

    expect(fingerprints[0]).toMatch(/^[0-9a-f]{64}$/);
    expect(fingerprints[1]).toMatch(/^[0-9a-f]{64}$/);
    expect(fingerprints[2]).toBeNull();
  });
});
