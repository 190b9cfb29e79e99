/**
 * The memory backend; its baseline is the bare async call of the same body.
 */
import { createMemoryStorage } from '../../../src/index.js';
import type { Backend } from '../backend.js';
import { bareCallCase } from '../cases.js';

/** In-process memory storage. */
export const memoryBackend: Backend = {
  name: 'memory',
  baseline: 'bare async call of the same no-op body',
  target: { kind: 'overheadUs', max: 10, text: 'memory ledgered call overhead ≤ 10 µs' },
  available: async () => null,
  async open() {
    return {
      storage: createMemoryStorage,
      baselines() {
        const bare = bareCallCase('memory');
        return { call: bare, replay: bare, sideEffect: bare };
      },
      close: async () => undefined,
    };
  },
};
