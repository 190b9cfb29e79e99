import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../src/core/clock.js';
import { budgetFuse } from '../../src/fuses/budget.js';
import { FuseLogError } from '../../src/fuses/errors.js';
import type { FuseEvent } from '../../src/fuses/events.js';
import { createFuseBox, type FuseBoxOptions } from '../../src/fuses/fuse-box.js';
import { loopFuse } from '../../src/fuses/loop.js';
import { permissionFuse } from '../../src/fuses/permission.js';
import { charCounter, REFUND_TOOLS } from './helpers.js';

function options(tokenCounter = charCounter): FuseBoxOptions {
  return {
    permission: permissionFuse({ granted: ['read'], tools: REFUND_TOOLS, maxDenials: 2 }),
    // Not terminal: the scenario goes on after a refusal to reach every kind of verdict.
    loop: loopFuse({ repeatThreshold: 3, maxCycleLength: 4, terminal: false }),
    budget: budgetFuse({
      maxUsd: 0.05,
      maxTokens: 5_000,
      price: { inputPer1k: 0.01, outputPer1k: 0.03 },
      tokenCounter,
      terminal: false,
    }),
    clock: createManualClock(0),
  };
}

/** A run through every kind of event, over two runs, with refusals, a latch and a reset. */
function recordedBox() {
  const box = createFuseBox(options());
  const a = box.forRun('run-a');
  const b = box.forRun('run-b');
  const lookup = { name: 'lookup_order', args: { id: 7 } };
  const poll = { name: 'poll_status', args: { job: 'j1' } };
  const messages = [{ role: 'user', content: 'Refund order 7, please.' }];

  const first = a.checkModelCall({ model: 'gpt-4o', messages, maxOutputTokens: 500 });
  a.checkToolCall({ id: 'c1', ...lookup });
  a.recordToolResult({ id: 'c1', ...lookup, result: { status: 'shipped' } });
  a.checkToolCall({ id: 'c2', name: 'issue_refund', args: { amount: 40 } });
  b.checkToolCall(lookup);
  a.recordModelUsage({ prompt_tokens: 40, completion_tokens: 25 }, { reservation: first.reservation });
  for (let i = 0; i < 4; i++) {
    a.checkToolCall(poll);
    a.recordToolResult({ ...poll, result: { progress: Math.min(i, 2) } });
  }
  for (const call of [lookup, lookup, lookup]) a.checkToolCall(call);
  const other = { name: 'lookup_order', args: { id: 8 } };
  const search = { name: 'search_docs', args: { q: 'refunds' } };
  for (const call of [other, search, other, search]) a.checkToolCall(call);
  const second = b.checkModelCall({
    model: 'gpt-4o',
    messages,
    tools: [{ name: 'lookup_order' }],
    maxOutputTokens: 4_000,
  });
  const third = b.checkModelCall({ model: 'gpt-4o', messages, maxOutputTokens: 800 });
  const fourth = b.checkModelCall({ model: 'gpt-4o', messages, maxOutputTokens: 100 });
  b.release(fourth.reservation ?? 'none');
  b.recordModelUsage(undefined, { reservation: third.reservation });
  expect(second.reservation).toBeNull();
  a.checkToolCall({ id: 'c3', name: 'issue_refund', args: { amount: 40 } });
  a.checkToolCall({ id: 'c4', ...lookup });
  a.checkModelCall({ model: 'gpt-4o', messages, maxOutputTokens: 10 });
  a.reset();
  a.checkToolCall({ id: 'c5', ...lookup });
  b.checkToolCall({ name: 'bogus', args: { n: 1n } });
  b.recordModelUsage({ prompt_tokens: -1, completion_tokens: 1 }, { model: 'gpt-4o' });
  b.checkToolCall(lookup);
  b.end();
  box.forRun('run-b').checkToolCall(lookup);
  return box;
}

describe('replay', () => {
  it('covers every kind of event and refusal in the scenario', () => {
    const box = recordedBox();
    const kinds = new Set(box.log.map((event) => event.type));
    const verdicts = box.log.flatMap((event) =>
      'verdict' in event ? [event.verdict] : 'booking' in event ? [event.booking.verdict] : [],
    );
    const codes = new Set(verdicts.flatMap((verdict) => (verdict.allowed ? [] : [verdict.code])));

    expect([...kinds].sort()).toEqual([
      'end',
      'model_call',
      'model_usage',
      'release',
      'reset',
      'tool_call',
      'tool_result',
    ]);
    expect(codes).toEqual(
      new Set([
        'permission_denied',
        'loop_repeat',
        'loop_cycle',
        'budget_usd_exceeded',
        'budget_invalid_usage',
        'invalid_call',
        'run_stopped',
      ]),
    );
  });

  it('gives identical verdicts on two replays, deep-equal to the recorded ones', () => {
    const box = recordedBox();

    const first = box.replay(box.log);
    const second = box.replay(box.log);

    expect(first).toEqual(second);
    expect(first).toEqual(box.log);
  });

  it('replays a log that went through JSON, in a fresh box with the same fuses', () => {
    const recorded = recordedBox();
    const stored: FuseEvent[] = JSON.parse(JSON.stringify(recorded.log));

    expect(createFuseBox(options()).replay(stored)).toEqual(recorded.log);
  });

  it('gates the recorded token counts, not a re-count (a replay needs no tokenizer)', () => {
    const recorded = recordedBox();
    const broken = createFuseBox(
      options(() => {
        throw new Error('no tokenizer here');
      }),
    );

    expect(broken.replay(recorded.log)).toEqual(recorded.log);
  });

  it('leaves the live box alone', () => {
    const box = recordedBox();
    const length = box.log.length;
    const run = box.forRun('run-a');
    const before = run.stats();

    box.replay(box.log);

    expect(box.log).toHaveLength(length);
    expect(run.stats()).toEqual(before);
  });

  it('refuses a log it cannot read', () => {
    const box = createFuseBox(options());

    expect(() => box.replay([{ type: 'explode', runId: 'r', at: 0 } as never])).toThrow(FuseLogError);
    expect(() => box.replay([null as never])).toThrow(FuseLogError);
  });
});
