/**
 * One tool call through the pipeline, in DESIGN order: registry → fuses → argument validation →
 * ledger claim → cache → tool body → output validation → ledger complete.
 */
import { outputViolation, unparseableArguments } from '../../boundary/violations.js';
import { currentSession, type Session, withSession } from '../../context/session.js';
import { GuardError } from '../../errors.js';
import type { FuseRun } from '../../fuses/run-box.js';
import { toolCallSignature } from '../../fuses/tool-fuse.js';
import type { FuseVerdict } from '../../fuses/verdict.js';
import { markCrossed } from '../../ledger/boundary-markers.js';
import { LedgerDecisionDeniedError } from '../../ledger/caller-verdicts.js';
import { composeDecision } from '../../ledger/decision.js';
import { errorDenial, fuseDenial } from '../../ledger/denial-verdicts.js';
import type { CallOptions, Ledger } from '../../ledger/types.js';
import type { DecisionVerdict } from '../../records/decision.js';
import type { LedgerScope } from '../../records/transition-record.js';
import { type DeniedCall, recordDenial } from './denials.js';
import {
  classifyError,
  describeError,
  failed,
  fromVerdict,
  refusedByError,
  runStopped,
  unknownTool,
} from './outcomes.js';
import type { ToolPlan } from './tool-plan.js';
import {
  type ExecuteToolCallOptions,
  type GuardRefusal,
  RefusalStage,
  type ResultSource,
  type ToolCallInput,
  type ToolCallOutcome,
  type ToolExecutionContext,
  type ToolExecutor,
} from './types.js';

/** What one run hands the executor of a call. */
export interface CallContext {
  readonly scope: LedgerScope;
  readonly ledger: Ledger | undefined;
  readonly fuseRun: FuseRun | undefined;
  readonly registry: { assertAllowed(name: string): void } | undefined;
  readonly terminalFuses: ReadonlySet<string>;
  readonly session: Session;
  readonly stopped: () => GuardRefusal | null;
  /** Latch the run on a terminal refusal. */
  readonly stop: (refusal: GuardRefusal) => void;
  /** The fuse verdict of each call id this run checked, with the call's signature and model turn. */
  readonly checked: Map<string, { readonly signature: string; readonly turn: number; readonly verdict: FuseVerdict }>;
  readonly plan: (name: string) => ToolPlan;
}

function parseArgs(call: ToolCallInput): { readonly args: unknown } | { readonly error: GuardError } {
  if (call.argsText === undefined) return { args: call.args };
  const raw = call.argsText;
  try {
    return { args: raw.trim() === '' ? {} : JSON.parse(raw) };
  } catch (error) {
    return { error: unparseableArguments(call.name, raw, describeError(error)) };
  }
}

/** A refusal, and the denial to record for it (a refused call of a tool this framework has). */
interface Refused {
  readonly outcome: ToolCallOutcome;
  readonly denial?: { readonly args: unknown; readonly verdicts: readonly DecisionVerdict[] };
}

/**
 * The part of a call that must run synchronously, so that parallel siblings are checked in order
 * and a terminal refusal of one stops those checked after it. A stopped run's calls, unknown tools
 * and unparseable arguments record no denial: the first has its stop on record already, and the
 * others name no transition.
 */
function admit(
  ctx: CallContext,
  call: ToolCallInput,
  execute: ToolExecutor | undefined,
): { readonly args: unknown; readonly redispatch: boolean; readonly execute: ToolExecutor } | Refused {
  const { name } = call;
  const stoppedBy = ctx.stopped();
  if (stoppedBy !== null) return { outcome: runStopped(name, stoppedBy) };
  if (ctx.registry !== undefined) {
    try {
      ctx.registry.assertAllowed(name);
    } catch (error) {
      if (!(error instanceof GuardError)) return { outcome: failed(name, error, false) };
      const outcome = refusedByError(RefusalStage.registry, name, error);
      const parsed = execute === undefined ? undefined : parseArgs(call);
      if (parsed === undefined || 'error' in parsed) return { outcome };
      return { outcome, denial: { args: parsed.args, verdicts: [errorDenial('registry', error)] } };
    }
  }
  if (execute === undefined) return { outcome: unknownTool(name) };
  const parsed = parseArgs(call);
  if ('error' in parsed) return { outcome: refusedByError(RefusalStage.arguments, name, parsed.error) };
  if (ctx.fuseRun === undefined) return { args: parsed.args, redispatch: false, execute };
  const { verdict, redispatch } = checkFuses(ctx, ctx.fuseRun, call.id, name, parsed.args);
  if (!verdict.allowed) {
    const verdicts: DecisionVerdict[] = ctx.registry === undefined ? [] : [{ check: 'registry', verdict: 'allow' }];
    verdicts.push(fuseDenial(verdict));
    return { outcome: fromVerdict(verdict, ctx.terminalFuses), denial: { args: parsed.args, verdicts } };
  }
  return { args: parsed.args, redispatch, execute };
}

/**
 * The fuses' verdict on a call. A call id the run already checked in the same model turn with the
 * same tool and arguments is a redispatch (a framework's retry or resume), not a new call: it gets
 * its first verdict again and is not counted twice (a repeat for the loop fuse, a second denial for
 * the permission fuse). Re-sent in a later turn, it is the model asking again, and counts.
 */
function checkFuses(
  ctx: CallContext,
  fuseRun: FuseRun,
  id: string | undefined,
  name: string,
  args: unknown,
): { readonly verdict: FuseVerdict; readonly redispatch: boolean } {
  let signature: string | undefined;
  if (id !== undefined) {
    try {
      signature = toolCallSignature({ name, args });
    } catch {
      // No JSON form: the fuse box refuses it as `invalid_call`.
    }
    // Every entry is of one turn: a new turn forgets the last one's, so the map never outgrows a turn.
    const oldest = ctx.checked.values().next().value;
    if (oldest !== undefined && oldest.turn !== fuseRun.turn) ctx.checked.clear();
    const seen = signature === undefined ? undefined : ctx.checked.get(id);
    if (seen !== undefined && seen.signature === signature && seen.turn === fuseRun.turn)
      return { verdict: seen.verdict, redispatch: true };
  }
  const verdict = fuseRun.checkToolCall(id === undefined ? { name, args } : { id, name, args });
  if (id !== undefined && signature !== undefined) ctx.checked.set(id, { signature, turn: fuseRun.turn, verdict });
  return { verdict, redispatch: false };
}

function settle(ctx: CallContext, outcome: ToolCallOutcome): ToolCallOutcome {
  if (outcome.status === 'refused' && outcome.terminal) ctx.stop(outcome);
  return outcome;
}

/** Run one call through every guard. Never throws: the outcome says what happened. */
export async function executeToolCall(
  ctx: CallContext,
  call: ToolCallInput,
  execute: ToolExecutor | undefined,
  options: ExecuteToolCallOptions,
): Promise<ToolCallOutcome> {
  if (options.turnId !== undefined) ctx.fuseRun?.beginTurn(options.turnId);
  const admitted = admit(ctx, call, execute);
  const { name, id } = call;
  const denied = (args: unknown): DeniedCall => ({
    ledger: ctx.ledger,
    plan: ctx.plan(name),
    scope: ctx.scope,
    id,
    args,
  });
  if ('outcome' in admitted) {
    // Latched before anything awaits, so a parallel sibling checked next already sees the stop.
    const outcome = settle(ctx, admitted.outcome);
    if (admitted.denial !== undefined) await recordDenial(denied(admitted.denial.args), admitted.denial.verdicts);
    return outcome;
  }
  const { args, redispatch } = admitted;
  const plan = ctx.plan(name);
  // The ledger this call goes through: none when the run has none or the tool is not ledgered.
  const ledger = plan.ledgerSpec === null ? undefined : ctx.ledger;
  const abortSignal = options.abortSignal;
  // Set as the call moves on (inside callbacks the ledger runs), read when it fails.
  const progress: { stage: RefusalStage; bodyStarted: boolean; source: ResultSource } = {
    stage: RefusalStage.arguments,
    bodyStarted: false,
    source: 'ledger',
  };
  try {
    // Every check that let the call come this far; the ledger writes them with its claim.
    const verdicts: DecisionVerdict[] = [];
    if (ctx.registry !== undefined) verdicts.push({ check: 'registry', verdict: 'allow' });
    if (ctx.fuseRun !== undefined)
      verdicts.push(
        redispatch ? { check: 'fuses', verdict: 'allow', reason: 'redispatch' } : { check: 'fuses', verdict: 'allow' },
      );
    let checked: unknown = args;
    if (plan.check !== undefined) {
      try {
        checked = await plan.check(args);
      } catch (error) {
        if (error instanceof GuardError)
          await recordDenial(denied(args), [...verdicts, errorDenial('arguments', error)]);
        throw error;
      }
      verdicts.push({ check: 'arguments', verdict: 'allow' });
    }
    const held = await options.beforeClaim?.(checked);
    if (held !== undefined && 'answer' in held)
      return Object.freeze({ status: 'ok' as const, result: held.answer, source: 'tool' as const });
    if (held !== undefined) {
      verdicts.push(held.verdict);
      // Refused here, ledgered or not: a tool outside the ledger never runs on a denying verdict.
      const decision = composeDecision(verdicts);
      if (!decision.allowed) {
        const refusal = settle(
          ctx,
          refusedByError(RefusalStage.arguments, name, new LedgerDecisionDeniedError(name, decision)),
        );
        await recordDenial(denied(args), verdicts);
        return refusal;
      }
    }
    const context: ToolExecutionContext = { toolCallId: id, abortSignal, scope: ctx.scope };

    const runBody = async (): Promise<unknown> => {
      progress.source = 'tool';
      progress.bodyStarted = true;
      const raw = await admitted.execute(checked, context);
      const output = plan.output;
      if (output === undefined) return raw;
      const result = output.kind === 'standard_schema' ? await output.validateAsync(raw) : output.validate(raw);
      if (result.ok) return result.value;
      // The body returned, so its effect happened: a redispatch must not run a write again.
      if (ledger !== undefined && !plan.rerunnable) await markCrossed();
      throw outputViolation(name, result.issues, plan.sideEffectClass);
    };

    const guarded = async (): Promise<unknown> => {
      progress.source = 'tool';
      const cached = plan.cached;
      if (cached === undefined) return runBody();
      progress.stage = RefusalStage.cache;
      progress.source = 'cache';
      const fetch = (): Promise<unknown> => cached(checked, runBody);
      // A cache belongs to a session: the caller's, else this run's (never the process's).
      return currentSession() === undefined ? withSession(fetch, { session: ctx.session }) : fetch();
    };

    let result: unknown;
    if (ledger !== undefined && plan.ledgerSpec !== null) {
      progress.stage = RefusalStage.ledger;
      const callOptions: CallOptions = {
        scope: ctx.scope,
        verdicts,
        ...(id === undefined ? {} : { toolCallId: id }),
        ...(abortSignal === undefined ? {} : { abortSignal }),
      };
      // The ledger keys the transition by scope, canonical (unvalidated) arguments and call id; the
      // plan's spec is frozen, so the ledger resolves it once for every call.
      result = await ledger.tool(plan.ledgerSpec, guarded)(args, callOptions);
    } else {
      result = await guarded();
    }
    // A redispatch answered from the ledger or cache had its result recorded when it first ran.
    if (!redispatch || progress.source === 'tool')
      ctx.fuseRun?.recordToolResult(id === undefined ? { name, args, result } : { id, name, args, result });
    return Object.freeze({ status: 'ok' as const, result, source: progress.source });
  } catch (error) {
    const outcome = classifyError(name, error, progress.bodyStarted, progress.stage);
    // A failed body is booked as such, so an identical retry of it is not counted as a loop.
    if (outcome.status === 'error' && progress.bodyStarted && !redispatch)
      ctx.fuseRun?.recordToolResult(id === undefined ? { name, args } : { id, name, args }, { ok: false });
    return settle(ctx, outcome);
  }
}
