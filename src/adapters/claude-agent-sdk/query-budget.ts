/**
 * The budget of a Claude Agent SDK query. The Claude Code binary sends the model requests itself,
 * so the pre-flight runs at the last points hyphae controls before the next request — the hooks
 * between model calls — on an estimate of that request: the last answer's booked input, its
 * content (the answer's output, counted while its usage is not final), the tool results since, and
 * the expected output. `observe` books the real usage of the query's messages.
 */
import type { ModelReservation } from '../../fuses/budget.js';
import type { FuseRun } from '../../fuses/run-box.js';
import type { GuardRun } from '../shared/run-types.js';
import type { GuardRefusal } from '../shared/types.js';
import type { ClaudeSdkMessageLike } from './types.js';

/** The model the pre-flight names before an answer of the query names one. */
const UNNAMED_MODEL = 'claude';

/** Where the budget reads and books: the guard run, and the fuse run under it. */
export interface QueryBudgetContext {
  readonly run: GuardRun;
  readonly fuseRun: () => FuseRun | undefined;
  readonly model: string | undefined;
  readonly maxOutputTokens: number | undefined;
}

/** The budget of one query: `preflight` at each hook before a model request, `observe` per message. */
export interface QueryBudget {
  /** Add what the next request carries (the prompt, a tool result) to the estimate. */
  add(part: unknown): void;
  /**
   * Check the next request against the budget, from the hook of tool call `callId` (none before the
   * first request); the refusal that stops the run, or `null`.
   */
  preflight(callId?: string): GuardRefusal | null;
  observe(message: ClaudeSdkMessageLike): void;
}

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}

function count(value: unknown, key: string): number {
  const n = field(value, key);
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : 0;
}

/** Input tokens of an Anthropic usage: `input_tokens` leaves out cache reads and writes. */
function inputOf(usage: unknown): number {
  return (
    count(usage, 'input_tokens') + count(usage, 'cache_creation_input_tokens') + count(usage, 'cache_read_input_tokens')
  );
}

function blocksOf(message: unknown): unknown[] {
  const content = field(message, 'content');
  return Array.isArray(content) ? content : [];
}

/** Start the budget of one query. */
export function createQueryBudget(context: QueryBudgetContext): QueryBudget {
  const { run, fuseRun } = context;
  let model = context.model;
  // What the next request carries beyond the last answer's booked input: that answer's content and
  // what came after it (tool results; the prompt, before the first answer).
  let since: unknown[] = [];
  let lastInput = 0;
  // The last answer's content while its output tokens are not final: its output is spent already.
  let unbooked: unknown[] = [];
  let pending: ModelReservation | null = null;
  // Requests sent whose answer `observe` has not seen yet (a hook ran ahead of the stream), booked
  // in order as their answers arrive, the output expected of each, and the tool calls observed.
  const inFlight: ModelReservation[] = [];
  let behind = false;
  let expectedOutput = 0;
  const seen = new Set<string>();
  // Output tokens booked per answer id, the answer whose stream events arrive, and the query's total.
  const booked = new Map<string, number>();
  let streaming: string | undefined;
  let bookedTotal = 0;

  function book(usage: unknown, reservation: ModelReservation | null): void {
    const booking = fuseRun()?.recordModelUsage(usage, { ...(model === undefined ? {} : { model }), reservation });
    if (booking?.source === 'usage') bookedTotal += booking.tokens;
  }

  function answer(inner: unknown): void {
    const id = field(inner, 'id');
    const usage = field(inner, 'usage');
    if (typeof id !== 'string' || id === '') return;
    const blocks = blocksOf(inner);
    if (booked.has(id)) {
      // One answer streams as one message per content block, each with the usage of its start.
      since.push(...blocks);
      unbooked.push(...blocks);
      see(blocks);
      return;
    }
    see(blocks);
    const name = field(inner, 'model');
    if (typeof name === 'string' && name !== '') model = name;
    // Booked in place of the pre-flight's reservation (missing usage: the reservation is booked).
    const reservation = inFlight.shift() ?? pending;
    if (reservation === pending) pending = null;
    if (usage !== undefined || reservation !== null) book(usage, reservation);
    booked.set(id, count(usage, 'output_tokens'));
    lastInput = inputOf(usage);
    behind = false;
    // The results of this answer's calls that came before it was observed stay for the next request.
    const calls = new Set<unknown>(blocks.map((block) => field(block, 'id')).filter((id) => id !== undefined));
    since = [...blocks, ...since.filter((part) => calls.has(field(part, 'tool_use_id')))];
    unbooked = [...blocks];
  }

  function see(blocks: readonly unknown[]): void {
    for (const block of blocks) {
      const id = field(block, 'id');
      if (field(block, 'type') === 'tool_use' && typeof id === 'string') seen.add(id);
    }
  }

  /** A `message_delta` of the answer streaming: its output tokens so far, booked as they grow. */
  function delta(event: unknown): void {
    if (field(event, 'type') === 'message_start') {
      const id = field(field(event, 'message'), 'id');
      streaming = typeof id === 'string' ? id : undefined;
      return;
    }
    if (field(event, 'type') !== 'message_delta' || streaming === undefined) return;
    const before = booked.get(streaming);
    const output = count(field(event, 'usage'), 'output_tokens');
    if (before === undefined || output <= before) return;
    booked.set(streaming, output);
    book({ input_tokens: 0, output_tokens: output - before }, null);
    unbooked = [];
  }

  /** The query's result: its usage totals book what the stream left out (the last outputs). */
  function result(message: ClaudeSdkMessageLike): void {
    for (const reservation of inFlight.splice(0)) run.releaseModelCall(reservation);
    if (pending !== null) run.releaseModelCall(pending);
    pending = null;
    const usage = field(message, 'usage');
    const rest = inputOf(usage) + count(usage, 'output_tokens') - bookedTotal;
    if (rest > 0) book({ input_tokens: 0, output_tokens: rest }, null);
    unbooked = [];
  }

  return {
    add(part) {
      since.push(part);
    },
    preflight(callId) {
      const stopped = run.stopped;
      if (stopped !== null) return stopped;
      if (pending !== null) {
        // A call of an answer `observe` has not seen: the last reservation is a request already
        // sent, held until its answer is booked. Otherwise this is the same request checked again
        // (parallel tool calls): the newer estimate stands.
        if (callId !== undefined && !seen.has(callId) && !behind) {
          inFlight.push(pending);
          behind = true;
        } else {
          run.releaseModelCall(pending);
        }
      }
      pending = null;
      const gate = run.checkModelCall({
        model: model ?? UNNAMED_MODEL,
        messages: [...unbooked, ...since],
        // The output of each answer not seen yet is in the next request's prompt too.
        knownPromptTokens: lastInput + inFlight.length * expectedOutput,
        maxOutputTokens: context.maxOutputTokens,
        beginTurn: false,
      });
      if (gate.status === 'allowed') {
        pending = gate.reservation;
        expectedOutput = gate.maxOutputTokens;
        return null;
      }
      // A refusal the fuse would let wait is final here: the binary sends the request regardless.
      run.stop(gate.refusal);
      return run.stopped ?? gate.refusal;
    },
    observe(message) {
      if (message?.type === 'assistant') answer(message.message);
      else if (message?.type === 'stream_event') delta(message.event);
      else if (message?.type === 'result') result(message);
    },
  };
}
