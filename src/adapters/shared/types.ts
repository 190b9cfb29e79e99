/**
 * The shapes every adapter speaks: a tool call `{ id, name, args }`, the executor the framework
 * supplies, and the outcome the pipeline hands back so the adapter can answer with the same call id.
 */
import type { FuseRefusal } from '../../fuses/verdict.js';
import type { DecisionVerdict } from '../../records/decision.js';
import type { LedgerScope } from '../../records/transition-record.js';

/** A tool call as every adapter hands it over: parsed arguments, or the model's raw JSON text. */
export type ToolCallInput =
  | {
      /** The framework's tool call id: the ledger's ticket. */
      readonly id?: string | undefined;
      readonly name: string;
      readonly args: unknown;
      readonly argsText?: never;
    }
  | {
      readonly id?: string | undefined;
      readonly name: string;
      /** Raw JSON arguments (OpenAI, OpenAI Agents); `""` reads as `{}`. */
      readonly argsText: string;
      readonly args?: never;
    };

/** What the pipeline passes to the tool body besides the (validated) arguments. */
export interface ToolExecutionContext {
  readonly toolCallId: string | undefined;
  readonly abortSignal: AbortSignal | undefined;
  readonly scope: LedgerScope;
}

/**
 * The framework's tool body; runs only when every guard let the call through. `A` is the body's
 * arguments type, as its author declares it: the pipeline checks it only against the tool's
 * `schema`, so declare one for a body that relies on its arguments' shape.
 */
export type ToolExecutor<A = unknown> = (args: A, context: ToolExecutionContext) => unknown;

/** Options of one {@link GuardRun.executeToolCall}. */
export interface ExecuteToolCallOptions {
  /**
   * Passed to the body and to the ledger: when it fires the call is answered at once, and the
   * ledger keeps the claim until the body settles (a retry then returns its result).
   */
  readonly abortSignal?: AbortSignal | undefined;
  /**
   * The model turn the call belongs to (the id of the model message that asked for it): a turn id
   * other than the current one begins a turn first (see `GuardRun.beginTurn`). For adapters whose
   * model calls are not guarded; a guarded model call begins a turn by itself.
   */
  readonly turnId?: string | undefined;
  /**
   * Called once the call passed the fuses and its argument checks, before the ledger claims it: an
   * answer in its place (a call held for a human's approval) ends the call there, nothing claimed or
   * run; undefined lets it go on. A front door that asks for approval uses it, so nothing is asked
   * of a human for a call the guards would refuse anyway. `{ verdict }` lets it go on and records
   * that verdict (an approval found, say) in the decision the ledger writes with its claim; a
   * denying verdict refuses the call there.
   */
  readonly beforeClaim?:
    | ((args: unknown) => Promise<{ readonly answer: unknown } | { readonly verdict: DecisionVerdict } | undefined>)
    | undefined;
}

/** Where in the pipeline a call was refused. */
export const RefusalStage = {
  run: 'run',
  registry: 'registry',
  fuses: 'fuses',
  arguments: 'arguments',
  ledger: 'ledger',
  cache: 'cache',
  model: 'model',
} as const;
/** Where in the pipeline a call was refused. */
export type RefusalStage = (typeof RefusalStage)[keyof typeof RefusalStage];

/** A call that did NOT happen, and why. */
export interface GuardRefusal {
  readonly stage: RefusalStage;
  /** Stable code: a fuse code (`loop_repeat`), an error code (`ledger_hard_block`), `unknown_tool`, … */
  readonly code: string;
  /** For the model: names the call and says it did NOT happen. */
  readonly message: string;
  /** For the operator. */
  readonly reason: string;
  /** The run must stop: every later call of the run is refused until `reset()`. */
  readonly terminal: boolean;
  /** The fuse's verdict, when a fuse refused. */
  readonly verdict?: FuseRefusal;
  /** The error that stands behind the refusal (a registry, boundary or ledger error). */
  readonly error?: unknown;
}

/** Where a successful result came from. */
export type ResultSource = 'tool' | 'ledger' | 'cache';

/** The body ran (or an earlier run's result was returned). */
export interface ToolCallSuccess {
  readonly status: 'ok';
  readonly result: unknown;
  /** `tool` when the body ran now; `ledger` for a stored result of the same transition; `cache` for a cached read. */
  readonly source: ResultSource;
}

/** The call was refused before its body ran. */
export interface ToolCallRefusal extends GuardRefusal {
  readonly status: 'refused';
}

/** The body (or a guard after it started) failed. */
export interface ToolCallFailure {
  readonly status: 'error';
  readonly error: unknown;
  /** For the model: what failed and whether its effect may have happened. */
  readonly message: string;
  /** False only when the failure came before the body started (an abort while waiting, a guard bug). */
  readonly executed: boolean;
}

/** What one tool call came to; every adapter turns it into a tool result with the same call id. */
export type ToolCallOutcome = ToolCallSuccess | ToolCallRefusal | ToolCallFailure;

/** Events a pipeline reports through `onEvent`. */
export type GuardEvent =
  | {
      readonly type: 'tool_call';
      readonly runId: string;
      readonly threadId: string | undefined;
      readonly toolCallId: string | undefined;
      readonly tool: string;
      readonly status: ToolCallOutcome['status'];
      readonly code: string | undefined;
      readonly source: ResultSource | undefined;
    }
  | {
      readonly type: 'transcript_repair';
      readonly runId: string;
      readonly threadId: string | undefined;
      readonly changes: readonly { readonly kind: string; readonly index: number; readonly message: string }[];
    }
  | {
      readonly type: 'model_call';
      readonly runId: string;
      readonly threadId: string | undefined;
      readonly model: string;
      readonly status: 'allowed' | 'refused';
      readonly code: string | undefined;
    };
