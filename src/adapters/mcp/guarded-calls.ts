/**
 * The proxy's guarded calls in flight, by client id: each one's abort, its upstream id once sent
 * and whether a cancellation goes upstream; and the bounded wait for them when the proxy closes,
 * so the outcomes of calls still running upstream get recorded.
 */

/** A guarded call in flight. */
export interface GuardedCall {
  readonly controller: AbortController;
  upId: number | undefined;
  forwardsCancel: boolean;
}

/** The calls in flight. */
export interface GuardedCalls {
  /** Track the call `key` while `run` runs; `run`'s rejection goes to `report`. */
  start(key: string, run: (call: GuardedCall) => Promise<void>, report: (error: unknown) => void): void;
  get(key: string): GuardedCall | undefined;
  /** Wait for every call in flight to settle, at most `ms` (none when `ms` ≤ 0). */
  drain(ms: number): Promise<void>;
  /** Abort every call still in flight. */
  abortAll(reason: Error): void;
}

/** An empty set of guarded calls. */
export function createGuardedCalls(): GuardedCalls {
  const calls = new Map<string, { readonly call: GuardedCall; readonly done: Promise<void> }>();
  return {
    start(key, run, report) {
      const call: GuardedCall = { controller: new AbortController(), upId: undefined, forwardsCancel: false };
      const entry = {
        call,
        done: run(call)
          .catch(report)
          .finally(() => {
            if (calls.get(key) === entry) calls.delete(key);
          }),
      };
      calls.set(key, entry);
    },
    get: (key) => calls.get(key)?.call,
    async drain(ms) {
      if (calls.size === 0 || ms <= 0) return;
      let timer: NodeJS.Timeout | undefined;
      const bound = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, ms);
      });
      await Promise.race([Promise.allSettled([...calls.values()].map((entry) => entry.done)), bound]);
      clearTimeout(timer);
    },
    abortAll(reason) {
      for (const { call } of calls.values()) call.controller.abort(reason);
    },
  };
}
