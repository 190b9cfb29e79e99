/**
 * Histories of ledgered calls: every invocation and completion, and every effect at a provider.
 *
 * A history is what a checker reads to judge exactly-once after the fact, the way Jepsen's checkers
 * judge a database: the test records what each caller asked and got, and what the provider did,
 * from any number of processes; the checker needs nothing else.
 */
import { appendFileSync } from 'node:fs';
import { GuardError, InvalidOptionError } from '../../errors.js';
import {
  arrayArgument,
  checkOptions,
  InvalidArgumentError,
  stringArgument,
  unreadableArgument,
} from '../../invalid-argument.js';

/** A typed error as the history keeps it: the class name and the stable code, if any. */
export interface HistoryError {
  readonly name: string;
  /** The `GuardError` code; null for an error that carries none (an untyped error). */
  readonly code: string | null;
  readonly message: string;
}

/** One event of a history. `at` is epoch milliseconds with sub-millisecond precision. */
export type HistoryEvent =
  | {
      readonly type: 'invoke';
      /** Unique per history: `<process>/<n>`. */
      readonly op: string;
      readonly process: string;
      /** The caller within its process (a worker, a contender). */
      readonly caller: string;
      /** The transition the call belongs to, as the test names it (a call id, an intent). */
      readonly transition: string;
      readonly callId: string | null;
      readonly at: number;
    }
  | { readonly type: 'ok'; readonly op: string; readonly result: unknown; readonly at: number }
  | { readonly type: 'fail'; readonly op: string; readonly error: HistoryError; readonly at: number }
  | {
      readonly type: 'effect';
      readonly transition: string;
      readonly process: string;
      readonly result: unknown;
      readonly at: number;
    };

/** What an invocation hands back: call exactly one of them when the call settles. */
export interface HistoryOperation {
  readonly op: string;
  ok(result: unknown): void;
  fail(error: unknown): void;
}

/** Records one process's part of a history, in memory and optionally as JSON lines in a file. */
export interface HistoryRecorder {
  readonly process: string;
  /** A caller starts a call of `transition`. */
  invoke(input: { readonly caller: string; readonly transition: string; readonly callId?: string }): HistoryOperation;
  /** The provider performed the effect of `transition`, with this result. */
  effect(transition: string, result: unknown): void;
  /** Run `call`, recording its invocation and its result or error (which it re-throws). */
  record<R>(
    input: { readonly caller: string; readonly transition: string; readonly callId?: string },
    call: () => Promise<R>,
  ): Promise<R>;
  /** The events this recorder wrote, in order. */
  events(): readonly HistoryEvent[];
}

/** Options of {@link createHistoryRecorder}. */
export interface HistoryRecorderOptions {
  /** The process name in every event. Default `pid-<pid>`. */
  readonly process?: string;
  /** Append each event as one JSON line to this file (synchronously, so a `SIGKILL` loses none). */
  readonly file?: string;
  /** Time source; default wall-clock with sub-millisecond precision. */
  readonly now?: () => number;
}

/** The history form of a thrown value. */
export function historyError(error: unknown): HistoryError {
  try {
    if (error instanceof GuardError) return { name: error.name, code: error.code, message: error.message };
    if (error instanceof Error) return { name: error.name, code: null, message: error.message };
    return { name: typeof error, code: null, message: String(error) };
  } catch (cause) {
    return unreadableArgument('historyError', 'error', cause);
  }
}

function wallClock(): number {
  return performance.timeOrigin + performance.now();
}

/**
 * Create a recorder for one process's part of a history.
 *
 * @example
 * const history = createHistoryRecorder({ process: 'worker-1', file: 'history.jsonl' });
 * const pay = ledger.tool(spec, async (args) => {
 *   const charge = await provider.charge(args);
 *   history.effect('call-1', charge);
 *   return charge;
 * });
 * await history.record({ caller: 'c1', transition: 'call-1' }, () => pay(args, { toolCallId: 'call-1' }));
 * checkHistory(history.events()).ok; // true when exactly-once held
 */
export function createHistoryRecorder(options: HistoryRecorderOptions = {}): HistoryRecorder {
  checkOptions('createHistoryRecorder', options);
  const process = options.process ?? `pid-${globalThis.process.pid}`;
  if (typeof process !== 'string' || process === '')
    throw new InvalidOptionError('process', '`process` must be a non-empty string');
  const now = options.now ?? wallClock;
  const events: HistoryEvent[] = [];
  let next = 0;

  function write(event: HistoryEvent): void {
    events.push(event);
    if (options.file !== undefined) appendFileSync(options.file, `${JSON.stringify(event)}\n`);
  }

  function invoke(input: {
    readonly caller: string;
    readonly transition: string;
    readonly callId?: string;
  }): HistoryOperation {
    next += 1;
    const op = `${process}/${next}`;
    write({
      type: 'invoke',
      op,
      process,
      caller: input.caller,
      transition: input.transition,
      callId: input.callId ?? null,
      at: now(),
    });
    let settled = false;
    const settle = (event: HistoryEvent): void => {
      if (settled) {
        throw new InvalidArgumentError('record', 'operation', `\`${op}\` is settled twice (ok or fail, once)`);
      }
      settled = true;
      write(event);
    };
    return {
      op,
      ok: function ok(result) {
        settle({ type: 'ok', op, result: result === undefined ? null : result, at: now() });
      },
      fail: function fail(error) {
        settle({ type: 'fail', op, error: historyError(error), at: now() });
      },
    };
  }

  return {
    process,
    invoke,
    effect: function effect(transition, result) {
      write({ type: 'effect', transition, process, result: result === undefined ? null : result, at: now() });
    },
    record: async function record(input, call) {
      const operation = invoke(input);
      try {
        const result = await call();
        operation.ok(result);
        return result;
      } catch (error) {
        operation.fail(error);
        throw error;
      }
    },
    events: () => events,
  };
}

/**
 * Read histories written as JSON lines (one file per process) into one history. A last line cut
 * short by a `SIGKILL` mid-write is dropped; any other unreadable line is an error.
 */
export function parseHistory(texts: readonly string[]): HistoryEvent[] {
  arrayArgument('parseHistory', 'texts', texts);
  for (const [i, text] of texts.entries()) stringArgument('parseHistory', `texts[${i}]`, text);
  const events: HistoryEvent[] = [];
  for (const [textIndex, text] of texts.entries()) {
    const lines = text.split('\n');
    lines.forEach((line, index) => {
      if (line.trim() === '') return;
      try {
        events.push(JSON.parse(line) as HistoryEvent);
      } catch (error) {
        const last = index === lines.length - 1 || lines.slice(index + 1).every((rest) => rest.trim() === '');
        if (!last) {
          throw new InvalidArgumentError('parseHistory', `texts[${textIndex}]`, `line ${index + 1} is not JSON`, {
            cause: error,
          });
        }
      }
    });
  }
  return events.sort((a, b) => a.at - b.at);
}
