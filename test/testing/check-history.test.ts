import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LedgerHardBlockError, LedgerStorageUnavailableError } from '../../src/errors.js';
import type { TransitionRecord } from '../../src/records/transition-record.js';
import {
  checkHistory,
  createHistoryRecorder,
  formatAnomalies,
  type HistoryEvent,
  parseHistory,
} from '../../src/testing/index.js';
import { makeTestRecord } from '../../src/testing/storage-conformance.js';

function clock(): () => number {
  let t = 0;
  return () => ++t;
}

function kinds(events: readonly HistoryEvent[], options = {}): string[] {
  return checkHistory(events, options).anomalies.map((a) => a.kind);
}

const blocked = () =>
  new LedgerHardBlockError(makeTestRecord({ key: 'k', outcome: 'UNKNOWN' }), 'the outcome is unknown');

describe('checkHistory', () => {
  it('passes a history where one effect ran and every caller got its result or a typed refusal', () => {
    const h = createHistoryRecorder({ process: 'p1', now: clock() });
    const a = h.invoke({ caller: 'a', transition: 't' });
    const b = h.invoke({ caller: 'b', transition: 't' });
    h.effect('t', { id: 1 });
    a.ok({ id: 1 });
    b.ok({ id: 1 });
    const check = checkHistory(h.events());
    expect(check.ok).toBe(true);
    expect(check.stats).toEqual({ operations: 2, transitions: 1, effects: 1, results: 2, refusals: 0, unsettled: 0 });
  });

  it('finds a second effect, and a caller whose result is not the effect it belongs to', () => {
    const h = createHistoryRecorder({ process: 'p1', now: clock() });
    const a = h.invoke({ caller: 'a', transition: 't' });
    const b = h.invoke({ caller: 'b', transition: 't' });
    h.effect('t', { id: 1 });
    h.effect('t', { id: 2 });
    a.ok({ id: 1 });
    b.ok({ id: 2 });
    const check = checkHistory(h.events());
    expect(check.anomalies.map((x) => x.kind)).toEqual(['duplicate_effect', 'result_mismatch']);
    // The sub-history of the transition comes with the anomaly, in order.
    expect(check.anomalies[0]?.events.map((e) => e.type)).toEqual(['invoke', 'invoke', 'effect', 'effect', 'ok', 'ok']);
    expect(formatAnomalies(check.anomalies)).toContain('duplicate_effect in `t`: 2 effects ran for one transition');
  });

  it('allows repeated effects for a transition declared multi-use', () => {
    const h = createHistoryRecorder({ process: 'p1', now: clock() });
    h.invoke({ caller: 'a', transition: 'read' }).ok(2);
    h.effect('read', 1);
    h.effect('read', 2);
    expect(kinds(h.events(), { multiUse: ['read'] })).toEqual([]);
  });

  it('finds a result no effect produced, and an untyped error, but accepts the tool’s own errors', () => {
    const h = createHistoryRecorder({ process: 'p1', now: clock() });
    h.invoke({ caller: 'a', transition: 't' }).ok({ id: 9 });
    h.invoke({ caller: 'b', transition: 'u' }).fail(new RangeError('boom'));
    h.invoke({ caller: 'c', transition: 'v' }).fail(new TypeError('declined'));
    expect(kinds(h.events(), { toolErrors: ['TypeError'] })).toEqual(['result_without_effect', 'untyped_error']);
  });

  it('finds a refusal given after a caller already had the result, except a store that was down', () => {
    const h = createHistoryRecorder({ process: 'p1', now: clock() });
    const first = h.invoke({ caller: 'a', transition: 't' });
    h.effect('t', 'paid');
    first.ok('paid');
    h.invoke({ caller: 'b', transition: 't' }).fail(blocked());
    h.invoke({ caller: 'c', transition: 't' }).fail(
      new LedgerStorageUnavailableError('create', { cause: new Error('down') }),
    );
    const check = checkHistory(h.events());
    expect(check.anomalies.map((a) => a.kind)).toEqual(['lost_result']);
    expect(check.anomalies[0]?.message).toContain('ledger_hard_block');
  });

  it('expects every call to settle unless its process was killed', () => {
    const h = createHistoryRecorder({ process: 'worker-2', now: clock() });
    h.invoke({ caller: 'a', transition: 't' });
    expect(kinds(h.events())).toEqual(['unfinished']);
    expect(kinds(h.events(), { crashed: ['worker-2'] })).toEqual([]);
  });

  it('checks the final record against what happened', () => {
    const h = createHistoryRecorder({ process: 'p1', now: clock() });
    const op = h.invoke({ caller: 'a', transition: 't' });
    h.effect('t', { id: 1 });
    op.ok({ id: 1 });
    const record = (over: Partial<TransitionRecord>) => makeTestRecord({ key: 'k', ...over });
    const check = (r: TransitionRecord | null) => kinds(h.events(), { records: { t: r } });
    expect(check(record({ outcome: 'COMPLETED', result: { id: 1 } }))).toEqual([]);
    expect(check(record({ outcome: 'COMPLETED', result: { id: 2 } }))).toEqual(['record_state']);
    expect(check(record({ outcome: 'FAILED_BEFORE_EFFECT' }))).toEqual(['record_state']);
    expect(check(null)).toEqual(['record_state']);
  });

  it('refuses to settle one operation twice', () => {
    const op = createHistoryRecorder({ process: 'p1' }).invoke({ caller: 'a', transition: 't' });
    op.ok(1);
    expect(() => op.fail(new Error('late'))).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
  });
});

describe('histories across processes', () => {
  let dir = '';
  afterEach(() => {
    if (dir !== '') rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 });
  });

  it('merges JSON-line files in time order and drops a last line cut short by a kill', () => {
    dir = mkdtempSync(join(tmpdir(), 'hyphae-history-'));
    const files = ['a', 'b'].map((name) => join(dir, `${name}.jsonl`));
    let t = 0;
    const now = () => ++t;
    const a = createHistoryRecorder({ process: 'a', file: files[0] as string, now });
    const b = createHistoryRecorder({ process: 'b', file: files[1] as string, now });
    const first = a.invoke({ caller: 'x', transition: 't', callId: 'call-1' });
    const second = b.invoke({ caller: 'y', transition: 't', callId: 'call-1' });
    a.effect('t', 'paid');
    first.ok('paid');
    second.ok('paid');
    writeFileSync(files[1] as string, `${readFileSync(files[1] as string, 'utf8')}{"type":"inv`);
    const events = parseHistory(files.map((file) => readFileSync(file, 'utf8')));
    expect(events.map((e) => e.at)).toEqual([1, 2, 3, 4, 5]);
    expect(checkHistory(events).ok).toBe(true);
    expect(() =>
      parseHistory(['{"type":\n{"type":"effect","transition":"t","process":"a","result":1,"at":1}\n']),
    ).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
  });
});
