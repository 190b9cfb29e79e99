/**
 * One run's guards: the ledger scope, the fuse run and the stop latch, behind the `GuardRun` API.
 */

import { createSession } from '../../context/session.js';
import { repairTranscript } from '../../context/transcript/repair.js';
import { canonicalJson } from '../../core/canonical-json.js';
import { InvalidOptionError } from '../../errors.js';
import type { FuseBox } from '../../fuses/fuse-box.js';
import type { FuseRun } from '../../fuses/run-box.js';
import type { FuseRefusal } from '../../fuses/verdict.js';
import type { Ledger } from '../../ledger/types.js';
import type { LedgerScope } from '../../records/transition-record.js';
import { type CallContext, executeToolCall } from './execute-tool-call.js';
import type { GuardRun, GuardRunOptions, ModelCallGate } from './run-types.js';
import type { ToolPlan } from './tool-plan.js';
import { type GuardEvent, type GuardRefusal, RefusalStage, type ToolExecutor } from './types.js';

/** What every run of a pipeline shares. */
export interface PipelineContext {
  readonly ledger: Ledger | undefined;
  readonly fuses: FuseBox | undefined;
  readonly registry: { assertAllowed(name: string): void } | undefined;
  readonly terminalFuses: ReadonlySet<string>;
  readonly defaultMaxOutputTokens: number;
  readonly plan: (name: string) => ToolPlan;
  readonly emit: (event: GuardEvent) => void;
}

function text(option: string, value: unknown, required: boolean): string | undefined {
  if (value === undefined && !required) return undefined;
  if (typeof value !== 'string' || value === '') {
    throw new InvalidOptionError(option, `\`${option}\` must be a non-empty string, got \`${String(value)}\``);
  }
  return value;
}

/** A fuse's refusal as a guard refusal; terminal also for the run's terminal fuses. */
function fuseRefusal(verdict: FuseRefusal, stage: RefusalStage, terminalFuses: ReadonlySet<string>): GuardRefusal {
  return {
    stage,
    code: verdict.code,
    message: verdict.note,
    reason: verdict.reason,
    terminal: verdict.terminal || terminalFuses.has(verdict.fuse),
    verdict,
  };
}

/**
 * Create the guard run `runOptions` of a pipeline. `key` names its session (the cache scope);
 * `onEnd` lets the pipeline forget it, and says whether the fuse run (keyed by run id alone, so
 * shared by the nodes of one run) has no other user left and ends too.
 */
export function createGuardRun(
  shared: PipelineContext,
  key: string,
  runOptions: GuardRunOptions,
  onEnd: () => boolean,
): GuardRun {
  const { ledger, fuses, registry, terminalFuses, defaultMaxOutputTokens, emit } = shared;
  const runId = text('runId', runOptions.runId, true) as string;
  const threadId = text('threadId', runOptions.threadId, false);
  const node = text('node', runOptions.node, false);
  const scope: LedgerScope = Object.freeze({
    ...(threadId === undefined ? {} : { threadId }),
    runId,
    ...(node === undefined ? {} : { node }),
  });
  // Fuse state belongs to one run of one thread: the same run id in two threads never shares it.
  const fuseRun: FuseRun | undefined = fuses?.forRun(threadId === undefined ? runId : canonicalJson([threadId, runId]));
  let latched: GuardRefusal | null = null;
  const stopped = (): GuardRefusal | null => {
    if (latched !== null) return latched;
    const fuseStop = fuseRun?.stopped ?? null;
    return fuseStop === null ? null : fuseRefusal(fuseStop, RefusalStage.fuses, terminalFuses);
  };
  const stop = (refusal: GuardRefusal): void => {
    // The first stop wins: a `run_stopped` refusal that follows a fuse's own latch is an echo. The
    // refusal that latched the fuse box is kept as reported, with its stage (a model call's budget).
    const fuseStop = fuseRun?.stopped ?? null;
    if (latched === null && (fuseStop === null || fuseStop.code === refusal.code)) latched = refusal;
  };
  const checked: CallContext['checked'] = new Map();
  const ctx: CallContext = {
    scope,
    ledger,
    fuseRun,
    registry,
    terminalFuses,
    session: createSession({ sessionId: key }),
    stopped,
    stop,
    checked,
    plan: shared.plan,
  };

  const run: GuardRun = {
    threadId,
    runId,
    scope,
    get stopped() {
      return stopped();
    },
    async executeToolCall(call, execute, callOptions = {}) {
      // The body's declared arguments type is its author's claim; the pipeline passes what it validated.
      const outcome = await executeToolCall(ctx, call, execute as ToolExecutor | undefined, callOptions);
      emit({
        type: 'tool_call',
        runId,
        threadId,
        toolCallId: call.id,
        tool: call.name,
        status: outcome.status,
        code: outcome.status === 'refused' ? outcome.code : undefined,
        source: outcome.status === 'ok' ? outcome.source : undefined,
      });
      return outcome;
    },
    beginTurn(turnId) {
      fuseRun?.beginTurn(turnId);
    },
    checkModelCall(input) {
      const maxOutputTokens = input.maxOutputTokens ?? defaultMaxOutputTokens;
      const stoppedBy = latched;
      let gate: ModelCallGate;
      if (stoppedBy !== null) {
        gate = {
          status: 'refused',
          refusal: {
            stage: RefusalStage.run,
            code: 'run_stopped',
            message: `The call to model \`${input.model}\` was NOT made: this run was stopped by an earlier refusal. Report to the user`,
            reason: `The run is stopped by \`${stoppedBy.code}\`: ${stoppedBy.reason}`,
            terminal: true,
          },
        };
      } else if (fuseRun === undefined) {
        gate = { status: 'allowed', reservation: null, maxOutputTokens };
      } else {
        const decision = fuseRun.checkModelCall(
          {
            model: input.model,
            messages: input.messages,
            tools: input.tools,
            maxOutputTokens,
            ...(input.knownPromptTokens === undefined ? {} : { knownPromptTokens: input.knownPromptTokens }),
          },
          { beginTurn: input.beginTurn !== false },
        );
        gate = decision.verdict.allowed
          ? { status: 'allowed', reservation: decision.reservation, maxOutputTokens }
          : { status: 'refused', refusal: fuseRefusal(decision.verdict, RefusalStage.model, terminalFuses) };
        if (gate.status === 'refused' && gate.refusal.terminal) stop(gate.refusal);
      }
      emit({
        type: 'model_call',
        runId,
        threadId,
        model: input.model,
        status: gate.status,
        code: gate.status === 'refused' ? gate.refusal.code : undefined,
      });
      return gate;
    },
    recordModelUsage(usage, reservation) {
      if (fuseRun === undefined) return null;
      return fuseRun.recordModelUsage(usage, { reservation });
    },
    releaseModelCall(reservation) {
      if (reservation !== null) fuseRun?.release(reservation);
    },
    repairTranscript(messages, repairOptions) {
      const repaired = repairTranscript(messages, repairOptions);
      if (repaired.changes.length === 0) return [...messages];
      emit({ type: 'transcript_repair', runId, threadId, changes: repaired.changes });
      return repaired.messages;
    },
    stop,
    reset() {
      latched = null;
      checked.clear();
      fuseRun?.reset();
    },
    end() {
      if (onEnd()) fuseRun?.end();
    },
  };
  return run;
}
