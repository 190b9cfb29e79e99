import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../src/core/clock.js';
import { FuseConfigError } from '../../src/fuses/errors.js';
import { createFuseBox } from '../../src/fuses/fuse-box.js';
import { type LoopFuseOptions, loopFuse } from '../../src/fuses/loop.js';
import { permissionFuse } from '../../src/fuses/permission.js';
import { FuseCode } from '../../src/fuses/verdict.js';
import { refused } from './helpers.js';

function loopBox(options: LoopFuseOptions = {}) {
  return createFuseBox({ loop: loopFuse(options), clock: createManualClock(0) });
}

const search = { id: 'call_1', name: 'search_docs', args: { q: 'refunds' } };

describe('loop counting follows the model turn', () => {
  it('counts the same call id re-sent on a later turn as a repeat, and ends the run', () => {
    const run = loopBox({ repeatThreshold: 3 }).forRun('run-1');

    const verdicts = [1, 2, 3].map(() => {
      run.beginTurn();
      return run.checkToolCall(search);
    });

    expect(verdicts.map((v) => v.allowed)).toEqual([true, true, false]);
    expect(refused(verdicts[2] ?? { allowed: true })).toMatchObject({ code: FuseCode.loop_repeat, terminal: true });
    expect(run.turn).toBe(3);
  });

  it('does not count a redispatch of one call id within its turn', () => {
    const run = loopBox({ repeatThreshold: 2 }).forRun('run-1');
    run.beginTurn();

    const verdicts = Array.from({ length: 5 }, () => run.checkToolCall(search));

    expect(verdicts.every((v) => v.allowed)).toBe(true);
    expect(run.stats().loop).toMatchObject({ calls: 1 });
    expect(refused(run.checkToolCall({ ...search, id: 'call_2' })).code).toBe(FuseCode.loop_repeat);
  });

  it('remembers at most 1,024 call ids of one turn, so a run that never marks a turn stays bounded', () => {
    const run = loopBox({ repeatThreshold: 2, window: 2_000 }).forRun('run-1');
    run.checkToolCall(search);
    for (let i = 0; i < 1_024; i++) run.checkToolCall({ id: `other_${i}`, name: 'f', args: { i } });

    // Forgotten: the redispatch of the first id now counts.
    expect(refused(run.checkToolCall(search)).code).toBe(FuseCode.loop_repeat);
  });

  it('counts a reused call id with other arguments as a new call', () => {
    const run = loopBox({ repeatThreshold: 2 }).forRun('run-1');
    run.checkToolCall(search);

    expect(run.checkToolCall({ ...search, args: { q: 'shipping' } }).allowed).toBe(true);
    expect(run.stats().loop).toMatchObject({ calls: 2 });
  });

  it('continues a turn resumed under the same turn id, and begins one under a new id', () => {
    const run = loopBox({ repeatThreshold: 2 }).forRun('run-1');

    expect(run.beginTurn('msg_1')).toBe(true);
    run.checkToolCall(search);
    expect(run.beginTurn('msg_1')).toBe(false);

    expect(run.checkToolCall(search).allowed).toBe(true);
    expect(run.beginTurn('msg_2')).toBe(true);
    expect(refused(run.checkToolCall(search)).code).toBe(FuseCode.loop_repeat);
  });

  it('begins a turn at every model call pre-flight', () => {
    const run = loopBox({ repeatThreshold: 2 }).forRun('run-1');
    run.checkToolCall(search);

    run.checkModelCall({ model: 'm', messages: [], maxOutputTokens: 1 });

    expect(run.turn).toBe(1);
    expect(refused(run.checkToolCall(search)).code).toBe(FuseCode.loop_repeat);
  });

  it('begins no turn at a pre-flight taken while the turn’s calls still run, and replays the same', () => {
    const box = loopBox({ repeatThreshold: 2 });
    const run = box.forRun('run-1');
    run.checkToolCall(search);

    run.checkModelCall({ model: 'm', messages: [], maxOutputTokens: 1 }, { beginTurn: false });
    const redispatch = run.checkToolCall(search);

    expect(run.turn).toBe(0);
    expect(redispatch.allowed).toBe(true);
    expect(box.log.find((event) => event.type === 'model_call')).toMatchObject({ beginTurn: false });
    expect(box.replay(box.log).map((event) => event.type === 'tool_call' && event.verdict.allowed)).toEqual(
      box.log.map((event) => event.type === 'tool_call' && event.verdict.allowed),
    );
  });

  it('gives a redispatched denial its first verdict, so it is one denial', () => {
    const box = createFuseBox({
      permission: permissionFuse({ granted: ['read'], tools: { refund: ['spend_money'] }, maxDenials: 2 }),
    });
    const run = box.forRun('run-1');
    const refund = { id: 'call_9', name: 'refund', args: {} };

    const first = refused(run.checkToolCall(refund));
    const again = refused(run.checkToolCall(refund));

    expect(again).toBe(first);
    expect(first.terminal).toBe(false);
    expect(run.stopped).toBeNull();
  });
});

describe('loop counting and failed calls', () => {
  const read = { name: 'read_file', args: { path: 'a.txt' } };

  it('never refuses a read that throws twice and succeeds on the third identical try', () => {
    const run = loopBox({ repeatThreshold: 3 }).forRun('run-1');

    const verdicts = [false, false, true].map((ok, turn) => {
      run.beginTurn();
      const verdict = run.checkToolCall({ id: `call_${turn}`, ...read });
      run.recordToolResult({ id: `call_${turn}`, ...read, result: ok ? 'text' : undefined }, { ok });
      return verdict;
    });

    expect(verdicts.every((v) => v.allowed)).toBe(true);
    expect(run.stopped).toBeNull();
  });

  it('counts failed retries as repeats once the allowance is spent', () => {
    const run = loopBox({ repeatThreshold: 3, retryAllowance: 2 }).forRun('run-1');

    const allowed: boolean[] = [];
    for (let i = 0; i < 6 && run.stopped === null; i++) {
      const verdict = run.checkToolCall(read);
      allowed.push(verdict.allowed);
      if (verdict.allowed) run.recordToolResult(read, { ok: false });
    }

    // Two failures are forgiven; then the streak counts again: 3rd counted call is refused.
    expect(allowed).toEqual([true, true, true, true, false]);
  });

  it('with `retryAllowance: 0`, counts a failed call like any other', () => {
    const run = loopBox({ repeatThreshold: 3, retryAllowance: 0 }).forRun('run-1');
    for (let i = 0; i < 2; i++) {
      run.checkToolCall(read);
      run.recordToolResult(read, { ok: false });
    }

    expect(refused(run.checkToolCall(read)).code).toBe(FuseCode.loop_repeat);
  });

  it('forgives again after a success', () => {
    const run = loopBox({ repeatThreshold: 3 }).forRun('run-1');
    const outcomes = [false, true, false, false, true];

    const allowed = outcomes.map((ok) => {
      const verdict = run.checkToolCall(read);
      run.recordToolResult({ ...read, result: 'same' }, { ok });
      return verdict.allowed;
    });

    expect(allowed.every(Boolean)).toBe(true);
  });

  it('refuses a negative or fractional allowance', () => {
    expect(() => loopFuse({ retryAllowance: -1 })).toThrow(FuseConfigError);
    expect(() => loopFuse({ retryAllowance: 1.5 })).toThrow(/`retryAllowance`/);
  });

  it('replays turns and failures to the same verdicts', () => {
    const box = loopBox({ repeatThreshold: 3 });
    const run = box.forRun('run-1');
    for (let turn = 0; turn < 4; turn++) {
      run.beginTurn(`msg_${turn}`);
      run.checkToolCall(search);
      run.checkToolCall(search);
      run.recordToolResult({ ...read, id: 'x' }, { ok: turn % 2 === 0 });
      run.checkToolCall({ id: 'x', ...read });
    }

    const stored = JSON.parse(JSON.stringify(box.log));

    expect(box.log.some((event) => event.type === 'turn')).toBe(true);
    expect(box.replay(stored)).toEqual(box.log);
  });
});
