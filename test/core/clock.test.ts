import { describe, expect, it } from 'vitest';
import { createManualClock, systemClock } from '../../src/index.js';

/** Let every queued promise reaction run. */
const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('createManualClock — time', () => {
  it('starts at the given time and moves only when told to', () => {
    const clock = createManualClock(1_000);

    clock.advance(250);

    expect(clock.now()).toBe(1_250);
  });

  it('defaults to epoch 0', () => {
    expect(createManualClock().now()).toBe(0);
  });

  it('set moves time forward', () => {
    const clock = createManualClock(100);

    clock.set(180);

    expect(clock.now()).toBe(180);
  });

  it('set never moves time backwards', () => {
    const clock = createManualClock(100);

    clock.set(50);

    expect(clock.now()).toBe(100);
  });

  it('advance by a negative amount never moves time backwards', () => {
    const clock = createManualClock(100);

    try {
      clock.advance(-40);
    } catch {
      // Refusing the call is as good as ignoring it; moving backwards is not.
    }

    expect(clock.now()).toBe(100);
  });
});

describe('createManualClock — sleepers', () => {
  it('wakes a sleeper only once its deadline is reached', async () => {
    const clock = createManualClock(0);
    let woke = false;
    const sleeping = clock.sleep(100).then(() => {
      woke = true;
    });

    clock.advance(99);
    await flush();
    const beforeDeadline = woke;
    clock.advance(1);
    await sleeping;

    expect(beforeDeadline).toBe(false);
    expect(woke).toBe(true);
    expect(clock.pending).toBe(0);
  });

  it('wakes sleepers in deadline order when one advance passes them all', async () => {
    const clock = createManualClock(0);
    const order: number[] = [];
    const sleepers = [30, 10, 20].map((ms) => clock.sleep(ms).then(() => order.push(ms)));

    clock.advance(30);
    await Promise.all(sleepers);

    expect(order).toEqual([10, 20, 30]);
  });

  it('wakes sleepers in deadline order across several advances', async () => {
    const clock = createManualClock(0);
    const order: number[] = [];
    const sleepers = [30, 10, 20].map((ms) => clock.sleep(ms).then(() => order.push(ms)));

    for (let i = 0; i < 3; i++) {
      clock.advance(10);
      await flush();
    }
    await Promise.all(sleepers);

    expect(order).toEqual([10, 20, 30]);
  });

  it('wakes sleepers with the same deadline in the order they went to sleep', async () => {
    const clock = createManualClock(0);
    const order: string[] = [];
    const sleepers = ['first', 'second', 'third'].map((name) => clock.sleep(5).then(() => order.push(name)));

    clock.advance(5);
    await Promise.all(sleepers);

    expect(order).toEqual(['first', 'second', 'third']);
  });

  it('wakes sleepers reached by set', async () => {
    const clock = createManualClock(0);
    const sleeping = clock.sleep(40);

    clock.set(40);

    await expect(sleeping).resolves.toBeUndefined();
  });

  it('resolves a zero or negative sleep at once', async () => {
    const clock = createManualClock(0);

    await expect(clock.sleep(0)).resolves.toBeUndefined();
    await expect(clock.sleep(-5)).resolves.toBeUndefined();
    expect(clock.pending).toBe(0);
  });

  it('counts pending sleepers', () => {
    const clock = createManualClock(0);

    void clock.sleep(10);
    void clock.sleep(20);
    clock.advance(10);

    expect(clock.pending).toBe(1);
  });
});

describe('createManualClock — abort', () => {
  it('rejects with the signal reason when aborted while sleeping', async () => {
    const clock = createManualClock(0);
    const controller = new AbortController();
    const reason = new Error('stop');
    const sleeping = clock.sleep(100, controller.signal);

    controller.abort(reason);

    await expect(sleeping).rejects.toBe(reason);
    expect(clock.pending).toBe(0);
  });

  it('rejects at once when the signal is already aborted', async () => {
    const clock = createManualClock(0);
    const controller = new AbortController();
    controller.abort(new Error('already'));

    await expect(clock.sleep(100, controller.signal)).rejects.toThrow('already');
    expect(clock.pending).toBe(0);
  });

  it('rejects with an AbortError when aborted without a reason', async () => {
    const clock = createManualClock(0);
    const controller = new AbortController();
    const sleeping = clock.sleep(100, controller.signal);

    controller.abort();

    await expect(sleeping).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('an abort after waking changes nothing', async () => {
    const clock = createManualClock(0);
    const controller = new AbortController();
    const sleeping = clock.sleep(10, controller.signal);
    clock.advance(10);
    await sleeping;

    controller.abort(new Error('late'));

    await expect(sleeping).resolves.toBeUndefined();
    expect(clock.pending).toBe(0);
  });

  it('an aborted sleeper does not keep others from waking', async () => {
    const clock = createManualClock(0);
    const controller = new AbortController();
    const aborted = clock.sleep(10, controller.signal);
    const other = clock.sleep(10);

    controller.abort(new Error('gone'));
    clock.advance(10);

    await expect(aborted).rejects.toThrow('gone');
    await expect(other).resolves.toBeUndefined();
  });
});

describe('systemClock', () => {
  it('reads the wall clock', () => {
    const before = Date.now();
    const now = systemClock.now();

    expect(now).toBeGreaterThanOrEqual(before);
  });

  it('sleep resolves', async () => {
    await expect(systemClock.sleep(1)).resolves.toBeUndefined();
  });

  it('sleep rejects when aborted', async () => {
    const controller = new AbortController();
    const sleeping = systemClock.sleep(60_000, controller.signal);

    controller.abort(new Error('cancelled'));

    await expect(sleeping).rejects.toThrow('cancelled');
  });

  it('sleep rejects at once when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('early'));

    await expect(systemClock.sleep(60_000, controller.signal)).rejects.toThrow('early');
  });
});
