import { describe, expect, it } from 'vitest';
import { allOf, anyOf, except } from '../../src/fuses/combinators.js';
import { createFuseBox } from '../../src/fuses/fuse-box.js';
import { loopFuse } from '../../src/fuses/loop.js';
import { permissionFuse } from '../../src/fuses/permission.js';
import type { ToolFuse } from '../../src/fuses/tool-fuse.js';
import { ALLOWED, FuseCode } from '../../src/fuses/verdict.js';
import { REFUND_TOOLS, refused } from './helpers.js';

const readOnly = permissionFuse({ granted: ['read'], tools: REFUND_TOOLS, name: 'reader', maxDenials: 100 });
const refunder = permissionFuse({
  granted: ['write', 'spend_money'],
  tools: REFUND_TOOLS,
  name: 'refunder',
  maxDenials: 100,
});

function throwing(name: string): ToolFuse {
  return {
    name,
    start: () => ({
      check: () => {
        throw new Error('boom');
      },
      commit: () => {},
      recordResult: () => {},
      reset: () => {},
      stats: () => ({}),
    }),
  };
}

const allowAll: ToolFuse = {
  name: 'allow_all',
  start: () => ({ check: () => ALLOWED, commit() {}, recordResult() {}, reset() {}, stats: () => ({}) }),
};

function runWith(permission: ToolFuse, loop?: ToolFuse) {
  return createFuseBox({ permission, ...(loop === undefined ? {} : { loop }) }).forRun('run-1');
}

describe('allOf', () => {
  it('allows only what every fuse allows and answers with the first refusal', () => {
    const run = runWith(allOf(readOnly, refunder));

    expect(refused(run.checkToolCall({ name: 'lookup_order', args: {} })).fuse).toBe('refunder');
    expect(refused(run.checkToolCall({ name: 'issue_refund', args: {} })).fuse).toBe('reader');
  });

  it('allows with no fuses at all', () => {
    expect(runWith(allOf()).checkToolCall({ name: 'x', args: {} }).allowed).toBe(true);
  });

  it('turns a throwing fuse into a terminal internal-error refusal', () => {
    const run = runWith(allOf(allowAll, throwing('buggy')));

    const verdict = refused(run.checkToolCall({ name: 'lookup_order', args: {} }));

    expect(verdict).toMatchObject({ fuse: 'buggy', code: FuseCode.fuse_internal_error, terminal: true });
    expect(verdict.evidence.error).toBe('boom');
  });

  it('keeps a call another fuse refused out of the loop history', () => {
    const run = runWith(allOf(loopFuse(), readOnly));
    const refund = { name: 'issue_refund', args: { amount: 5 } };

    for (let i = 0; i < 5; i++) expect(refused(run.checkToolCall(refund)).fuse).toBe('reader');
    expect(run.stats().permission).toMatchObject({ 'loop.calls': 0 });
  });
});

describe('anyOf', () => {
  it('allows what at least one fuse allows', () => {
    const run = runWith(anyOf(readOnly, refunder));

    expect(run.checkToolCall({ name: 'lookup_order', args: {} }).allowed).toBe(true);
    expect(run.checkToolCall({ name: 'issue_refund', args: {} }).allowed).toBe(true);
  });

  it('answers with the first refusal when all refuse', () => {
    const run = runWith(anyOf(readOnly, refunder));

    const verdict = refused(run.checkToolCall({ name: 'delete_repo', args: {} }));

    expect(verdict).toMatchObject({ fuse: 'reader', code: FuseCode.unknown_tool });
  });

  it('counts a throwing fuse as one refusal, so another fuse can still allow', () => {
    expect(runWith(anyOf(throwing('buggy'), allowAll)).checkToolCall({ name: 'f', args: {} }).allowed).toBe(true);
    expect(refused(runWith(anyOf(throwing('buggy'))).checkToolCall({ name: 'f', args: {} })).code).toBe(
      FuseCode.fuse_internal_error,
    );
  });

  it('reports the stats of its fuses under their names', () => {
    const run = runWith(anyOf(readOnly, refunder));
    run.checkToolCall({ name: 'delete_repo', args: {} });

    expect(run.stats().permission).toEqual({ 'reader.denials': 1, 'refunder.denials': 0 });
  });
});

describe('except', () => {
  it('skips the fuse for the named tools', () => {
    const run = runWith(allowAll, except('sleep', loopFuse()));

    for (let i = 0; i < 10; i++) expect(run.checkToolCall({ name: 'sleep', args: { ms: 100 } }).allowed).toBe(true);
    run.checkToolCall({ name: 'f', args: {} });
    run.checkToolCall({ name: 'f', args: {} });
    expect(refused(run.checkToolCall({ name: 'f', args: {} })).code).toBe(FuseCode.loop_repeat);
  });

  it('takes a list of names or a predicate', () => {
    const byList = runWith(except(['delete_repo', 'drop_table'], readOnly));
    const byPredicate = runWith(except((call) => call.name.startsWith('lookup_'), refunder));

    expect(byList.checkToolCall({ name: 'drop_table', args: {} }).allowed).toBe(true);
    expect(byList.checkToolCall({ name: 'issue_refund', args: {} }).allowed).toBe(false);
    expect(byPredicate.checkToolCall({ name: 'lookup_order', args: {} }).allowed).toBe(true);
    expect(byPredicate.checkToolCall({ name: 'search_docs', args: {} }).allowed).toBe(false);
  });

  it('applies the fuse when the predicate throws', () => {
    const run = runWith(
      except(() => {
        throw new Error('bad predicate');
      }, readOnly),
    );

    expect(refused(run.checkToolCall({ name: 'issue_refund', args: {} })).fuse).toBe('reader');
  });
});
