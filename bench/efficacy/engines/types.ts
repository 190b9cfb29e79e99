/**
 * The durable-engine rows of the efficacy bench: each engine runs a workflow whose step charges (a
 * row in PostgreSQL or a line in a file) and then fails in one of the ways below, once stock and once
 * with hyphae's adapter, and reports how many charges the provider saw.
 */

/** How the step fails after its charge. */
export type EngineCaseId =
  /** The process running the step is SIGKILLed after the charge, before the step returns. */
  | 'kill-after-charge'
  /** The step throws after the charge; the engine retries it. */
  | 'throw-after-charge'
  /** The step outlives the engine's step timeout after the charge; the engine retries it. */
  | 'timeout-after-charge'
  /** An AI SDK tool charges inside a step; the model turn fails after it and the step is retried. */
  | 'ai-sdk-tool-retried-turn';

/** What one run of one case saw. */
export interface EngineRun {
  /** Charges the provider recorded. */
  readonly charges: number;
  /** How the workflow ended, in a few words: `completed`, `failed: ledger_hard_block`, ... */
  readonly outcome: string;
}

/** A durable engine under test. */
export interface Engine {
  readonly id: 'dbos' | 'workflow' | 'restate';
  /** The npm package whose version is reported. */
  readonly pkg: string;
  readonly label: string;
  /** How the engine is run, in a few words (server, store, hosting). */
  readonly setup: string;
  /** The lowest Node major the engine runs on (Restate's SDK needs 22). */
  readonly minNode: number;
  /** The test servers the engine's runs use (the tests skip, or fail under `REQUIRE_INTEGRATION=1`, without them). */
  readonly needs?: readonly 'postgres'[];
  /** The cases this engine runs, in table order. */
  readonly cases: readonly EngineCaseId[];
  /** Run one case once, stock (`guarded: false`) or through hyphae's adapter. */
  run(caseId: EngineCaseId, guarded: boolean): Promise<EngineRun>;
  /** Release what the runs share (a database, a build); a later `run` sets it up again. */
  close?(): Promise<void>;
}
