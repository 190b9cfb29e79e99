/**
 * A one-consumer async queue: the guarded body pushes a streaming tool's preliminary results, the
 * generator the AI SDK iterates yields them as they come.
 */

/** Push values in, iterate them out once. */
export interface Channel<T> extends AsyncIterable<T> {
  push(value: T): void;
  /** No more values; the iteration ends once the buffer is drained. */
  close(): void;
}

/** Create an unbounded single-consumer channel. */
export function createChannel<T>(): Channel<T> {
  const buffer: T[] = [];
  let closed = false;
  let wake: (() => void) | null = null;
  const notify = (): void => {
    const waiting = wake;
    wake = null;
    waiting?.();
  };
  return {
    push(value) {
      if (closed) return;
      buffer.push(value);
      notify();
    },
    close() {
      closed = true;
      notify();
    },
    async *[Symbol.asyncIterator]() {
      for (;;) {
        if (buffer.length > 0) {
          yield buffer.shift() as T;
          continue;
        }
        if (closed) return;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
    },
  };
}
