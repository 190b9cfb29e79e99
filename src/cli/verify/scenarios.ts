/**
 * The scenarios of `hyphae verify`, run against the config's own tool declarations and a store of
 * the config's own kind (see {@link isolatedStore}). Each ends PASS, WARN or FAIL with evidence.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ConfigSettings, ToolSettings } from '../../config/types.js';
import type { FuseBox } from '../../fuses/fuse-box.js';
import { CLASS_DEFAULTS } from '../../records/envelope.js';
import type { LedgerStorage } from '../../storage/ledger-storage.js';
import type { IsolatedStore } from './isolated-store.js';
import { effectsOf, runCrashingChild, type SyntheticCall, syntheticArgs, syntheticTool } from './synthetic-tool.js';

/** How a scenario ended. */
export type VerifyStatus = 'PASS' | 'WARN' | 'FAIL';

/** One scenario's verdict and what it saw. */
export interface ScenarioResult {
  readonly scenario: string;
  readonly tool: string | null;
  readonly status: VerifyStatus;
  readonly summary: string;
  readonly evidence: Readonly<Record<string, unknown>>;
  /** The YAML to add to the config, when the scenario warns of a guard the config does not configure. */
  readonly fix?: string;
}

/** The lines that configure a loop fuse, as `hyphae verify` prints them. */
export const LOOP_FIX = `fuses:
  loop:
    repeat_threshold: 3 # the 3rd identical call without a new result is refused
    terminal: true # and the run ends (the default)`;

/** The lines that configure the registry, as `hyphae verify` prints them. */
export const REGISTRY_FIX = `registry:
  auto: true # allow exactly the tools under \`tools\``;

/** What the tool scenarios run with. */
export interface ScenarioSetup {
  readonly settings: ConfigSettings;
  readonly store: IsolatedStore;
  readonly storage: LedgerStorage;
  readonly effectLog: string;
  readonly runId: string;
}

/** The lease of a worker that is killed: short, so its claim expires within the run. */
const LEASE_MS = 600;
/** The lease of calls that are not killed: long, so a dispatch that waits never times out on a busy machine. */
const LIVE_LEASE_MS = 60_000;

/** Whether the tool's envelope lets the ledger run it again after a failure it cannot see through. */
export function mayRunTwice(settings: ToolSettings): boolean {
  const defaults = CLASS_DEFAULTS[settings.sideEffectClass ?? 'read'];
  const spendability = settings.spendability ?? defaults.spendability;
  const permission = settings.retryPermission ?? defaults.retryPermission;
  return spendability === 'multi_use' && permission === 'safe_retry';
}

function callOf(setup: ScenarioSetup, tool: string, scenario: string, leaseTtlMs = LIVE_LEASE_MS): SyntheticCall {
  const transition = setup.settings.transition;
  return {
    tool,
    settings: setup.settings.tools[tool] ?? {},
    agentId: transition?.agentId ?? 'hyphae-verify',
    policyVersion: transition?.policyVersion ?? '1',
    scope: { threadId: 'hyphae-verify', runId: setup.runId },
    callId: `verify-${scenario}-${randomUUID().slice(0, 8)}`,
    effectLog: setup.effectLog,
    leaseTtlMs,
  };
}

function typed(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : error instanceof Error ? error.name : String(error);
}

async function settle(promise: Promise<unknown>): Promise<{ ok: true; value: unknown } | { ok: false; error: string }> {
  try {
    return { ok: true, value: await promise };
  } catch (error) {
    return { ok: false, error: typed(error) };
  }
}

function result(
  scenario: string,
  tool: string | null,
  status: VerifyStatus,
  summary: string,
  evidence: Record<string, unknown>,
  fix?: string,
): ScenarioResult {
  return fix === undefined
    ? { scenario, tool, status, summary, evidence }
    : { scenario, tool, status, summary, evidence, fix };
}

/** Two dispatches of one call at once: one effect, one result for both. */
export async function duplicateDispatch(setup: ScenarioSetup, tool: string): Promise<ScenarioResult> {
  const call = callOf(setup, tool, 'duplicate');
  const run = syntheticTool(setup.storage, call, 'complete');
  const options = { toolCallId: call.callId, scope: call.scope };
  const [a, b] = await Promise.all([
    settle(run(syntheticArgs(call), options)),
    settle(run(syntheticArgs(call), options)),
  ]);
  const effects = effectsOf(setup.effectLog, call.callId);
  const same = a.ok && b.ok && JSON.stringify(a.value) === JSON.stringify(b.value);
  const evidence = { dispatches: 2, effects, first: a, second: b };
  return effects === 1 && same
    ? result(
        'duplicate_dispatch',
        tool,
        'PASS',
        '2 dispatches of one call: 1 effect, the same result for both',
        evidence,
      )
    : result('duplicate_dispatch', tool, 'FAIL', `2 dispatches of one call: ${effects} effects`, evidence);
}

/**
 * A worker killed at `crashAt`, then a redispatch once its lease is over: never a second effect
 * unless the class allows running again.
 */
export async function crashThenRedispatch(
  setup: ScenarioSetup,
  tool: string,
  crashAt: 'after-effect' | 'after-claim',
): Promise<ScenarioResult> {
  const scenario = crashAt === 'after-effect' ? 'crash_inside_side_effect' : 'dead_worker';
  const call = callOf(setup, tool, scenario, LEASE_MS);
  const settings = call.settings;
  const rerunAllowed = mayRunTwice(settings);
  if (!setup.store.multiProcess) {
    const status: VerifyStatus = rerunAllowed ? 'WARN' : 'FAIL';
    return result(scenario, tool, status, 'the memory store dies with the process: after a crash the call runs again', {
      store: setup.store.describe,
      sideEffectClass: settings.sideEffectClass ?? 'read',
    });
  }
  const signal = await runCrashingChild({ ...call, store: setup.store.settings, crashAt });
  await sleep(LEASE_MS + 100);
  const before = effectsOf(setup.effectLog, call.callId);
  const again = await settle(
    syntheticTool(setup.storage, call, 'complete')(syntheticArgs(call), { toolCallId: call.callId, scope: call.scope }),
  );
  const effects = effectsOf(setup.effectLog, call.callId);
  const evidence = {
    sideEffectClass: settings.sideEffectClass ?? 'read',
    worker: signal,
    effectsBeforeRedispatch: before,
    effects,
    redispatch: again,
  };
  if (effects <= 1 || rerunAllowed) {
    const cls = `\`${settings.sideEffectClass ?? 'read'}\``;
    const summary =
      effects > before
        ? before === 0
          ? 'the redispatch ran the call once (the killed worker had not reached its effect)'
          : `the redispatch ran the call again (${effects} effects), as a ${cls} call may`
        : again.ok
          ? 'the redispatch returned without running the call again'
          : `the redispatch was refused (\`${again.error}\`): no second effect; an operator resolves it`;
    return result(scenario, tool, 'PASS', summary, evidence);
  }
  return result(
    scenario,
    tool,
    'FAIL',
    `${effects} effects: the redispatch ran the call again after the crash`,
    evidence,
  );
}

/** The effect ran, then the call failed: ambiguous. A single-use call must not run again. */
export async function ambiguousEffect(setup: ScenarioSetup, tool: string): Promise<ScenarioResult> {
  const call = callOf(setup, tool, 'ambiguous');
  const options = { toolCallId: call.callId, scope: call.scope };
  const first = await settle(syntheticTool(setup.storage, call, 'throw-after-effect')(syntheticArgs(call), options));
  const again = await settle(syntheticTool(setup.storage, call, 'complete')(syntheticArgs(call), options));
  const effects = effectsOf(setup.effectLog, call.callId);
  const evidence = { sideEffectClass: call.settings.sideEffectClass ?? 'read', first, redispatch: again, effects };
  if (effects === 1)
    return result(
      'ambiguous_effect',
      tool,
      'PASS',
      `the retry did not run the call again (\`${again.ok ? 'returned' : again.error}\`)`,
      evidence,
    );
  return mayRunTwice(call.settings)
    ? result(
        'ambiguous_effect',
        tool,
        'PASS',
        `the retry ran the call again (${effects} effects), as a \`${call.settings.sideEffectClass ?? 'read'}\` call may`,
        evidence,
      )
    : result('ambiguous_effect', tool, 'FAIL', `${effects} effects after an ambiguous failure`, evidence);
}

/** Names that say the tool acts: a verb first (`send_email`), or a money word anywhere (`issue_refund`). */
const ACTS =
  /^(pay|charge|refund|transfer|send|email|mail|notify|post|publish|delete|remove|drop|create|insert|update|write|order|book|cancel|deploy|withdraw|buy|sell|purchase|subscribe|approve|submit|place|execute|issue|grant|revoke)(_|$)|(^|_)(payment|payout|refund|transfer|charge|invoice)s?(_|$)/i;

/** A tool whose name says it acts, declared `read` (or not ledgered at all). */
export function declarations(settings: ConfigSettings, ledgered: readonly string[]): ScenarioResult[] {
  return Object.entries(settings.tools).flatMap(([tool, declared]) => {
    if (!ACTS.test(tool)) return [];
    const cls = declared.sideEffectClass;
    const evidence = { sideEffectClass: cls ?? null, ledgered: ledgered.includes(tool) };
    if (cls === 'read')
      return [
        result(
          'declared_class',
          tool,
          'FAIL',
          `\`${tool}\` is declared \`read\`, so a crash or retry runs it again; declare what it does (a payment: \`non_idempotent_mutate\`, or \`keyed_mutate\` with its provider key)`,
          evidence,
        ),
      ];
    if (!ledgered.includes(tool))
      return [
        result(
          'declared_class',
          tool,
          'WARN',
          `\`${tool}\` is not ledgered: nothing stops a redispatch from running it twice`,
          evidence,
        ),
      ];
    return [];
  });
}

/**
 * A model repeating one call: the loop fuse refuses it and, by default, stops the run. A config
 * without a loop fuse never asked for one: WARN, with the lines to add. A loop fuse that lets the
 * repeats through: FAIL.
 */
export function loopScenario(fuses: FuseBox | undefined, tool: string, configured: boolean): ScenarioResult {
  if (fuses === undefined || !configured)
    return result(
      'loop',
      tool,
      'WARN',
      'no loop fuse: a model repeating a call runs until the framework stops it; add `fuses.loop` (tools then run inside `config.run`)',
      { loopFuse: false },
      LOOP_FIX,
    );
  const run = fuses.forRun(`hyphae-verify-${randomUUID()}`);
  const call = { id: 'verify-loop', name: tool, args: { verify: 'loop' } };
  for (let attempt = 1; attempt <= 10; attempt++) {
    const verdict = run.checkToolCall({ ...call, id: `verify-loop-${attempt}` });
    if (!verdict.allowed && verdict.fuse === 'loop') {
      const evidence = { refusedAt: attempt, code: verdict.code, terminal: verdict.terminal };
      return verdict.terminal
        ? result('loop', tool, 'PASS', `identical call ${attempt} was refused and the run stopped`, evidence)
        : result(
            'loop',
            tool,
            'WARN',
            `identical call ${attempt} was refused, but the run goes on (the loop fuse is not terminal)`,
            evidence,
          );
    }
    if (!verdict.allowed)
      return result('loop', tool, 'WARN', `refused by \`${verdict.fuse}\` before the loop fuse could count`, {
        code: verdict.code,
      });
    run.recordToolResult({ ...call, id: `verify-loop-${attempt}`, result: { same: true } });
  }
  return result('loop', tool, 'FAIL', '10 identical calls were all allowed: configure `fuses.loop`', {});
}

/**
 * A tool the model was never granted: refused before anything runs. When the config has neither a
 * registry nor a permission fuse it never asked for the refusal: WARN, with the lines to add. When
 * it has one and the call still gets through: FAIL.
 */
export function refusedTool(
  settings: ConfigSettings,
  fuses: FuseBox | undefined,
  registry: { has(name: string): boolean } | undefined,
): ScenarioResult {
  const name = 'hyphae_verify_ungranted_tool';
  const verdict = fuses
    ?.forRun(`hyphae-verify-${randomUUID()}`)
    .checkToolCall({ id: 'verify-refused', name, args: {} });
  const byFuse = verdict !== undefined && !verdict.allowed;
  const byRegistry = registry !== undefined && !registry.has(name);
  const evidence = { permissionFuse: byFuse ? (verdict as { code: string }).code : null, registry: byRegistry };
  return byFuse || byRegistry
    ? result(
        'refused_tool',
        null,
        'PASS',
        `an ungranted tool is refused (${[byFuse ? 'permission fuse' : '', byRegistry ? 'registry' : ''].filter(Boolean).join(', ')})`,
        evidence,
      )
    : settings.registry === undefined && settings.fuses?.permission === undefined
      ? result(
          'refused_tool',
          null,
          'WARN',
          'no registry and no permission fuse: nothing refuses a tool the model was never granted; add `registry`',
          evidence,
          REGISTRY_FIX,
        )
      : result(
          'refused_tool',
          null,
          'FAIL',
          'the registry and the permission fuse let a tool the model was never granted through',
          evidence,
        );
}
