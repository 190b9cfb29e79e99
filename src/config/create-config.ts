/**
 * The loaded config at run time: wraps tools and tasks, runs agent turns, prepares messages, and
 * closes what it opened.
 */
import type { AnyBoundedTool } from '../boundary/bounded.js';
import type { ToolRegistry } from '../boundary/create-tool-registry.js';
import type { ToolRunner } from '../boundary/create-tool-runner.js';
import type { HistoryGuard } from '../context/history/history-guard.js';
import { withSession } from '../context/session.js';
import type { RunHandle, RunSnapshots } from '../context/snapshots/run-snapshots.js';
import type { Clock } from '../core/clock.js';
import { GuardError } from '../errors.js';
import type { FuseBox } from '../fuses/fuse-box.js';
import type {
  Ledger,
  LedgeredFunction,
  Reconciler,
  ReconcilerObject,
  SweepReceiptsReport,
  TaskCallOptions,
  TaskSpec,
} from '../ledger/types.js';
import type { SnapshotStorage } from '../storage/snapshot-storage.js';
import { ledgeredTasks, ledgeredTools } from './coverage.js';
import { defined, pickDefined } from './defined.js';
import { type PrepareMessagesEvent, prepareMessagesWith } from './prepare-messages.js';
import { type ConfigRun, type ConfigRunScope, createRunScope, resolveRunScope } from './run-context.js';
import { closest } from './schema/did-you-mean.js';
import type { ConfigSettings, TaskSettings } from './types.js';
import { type ConfiguredTool, type ToolBody, type ToolOverrides, wrapTool } from './wrap-tool.js';

/** The parts a loaded config is made of (built by `loadConfig`): the members it exposes, and what works behind them. */
export interface ConfigParts
  extends Pick<
    HyphaeConfig,
    'file' | 'settings' | 'ledger' | 'taskLedger' | 'fuses' | 'registry' | 'runner' | 'snapshots'
  > {
  readonly snapshotStorage: SnapshotStorage | undefined;
  readonly historyGuard: HistoryGuard | undefined;
  readonly clock: Clock | undefined;
  readonly reconcilers: Readonly<Record<string, Reconciler | ReconcilerObject>>;
  readonly emit: (event: PrepareMessagesEvent) => void;
}

/** A configured task: the body's signature, made async. */
export type ConfiguredTask<A, R> = LedgeredFunction<A, R, TaskCallOptions>;

/** A function `config.instrument` can wrap: one arguments object and, optionally, the call options. */
export type InstrumentableFunction = (args: never, options: never) => unknown;

/**
 * What `config.instrument` returns: each function wrapped as a configured tool or task, taking its
 * arguments and the call options (`toolCallId`, `requestId`, `scope`, `abortSignal`, and for a task
 * `taskId`), async; every other entry as it was.
 */
export type Instrumented<T> = {
  readonly [K in keyof T]: T[K] extends (args: infer A, ...rest: never[]) => infer R
    ? (args: A, options?: TaskCallOptions) => Promise<Awaited<R>>
    : T[K];
};

/** A loaded `hyphae.yaml`. */
export interface HyphaeConfig {
  /** The config file (absolute), or undefined for text. */
  readonly file: string | undefined;
  readonly settings: ConfigSettings;
  /** The action ledger (`action_ledger`). */
  readonly ledger: Ledger | undefined;
  /** The task ledger (`task_ledger`). */
  readonly taskLedger: Ledger | undefined;
  readonly fuses: FuseBox | undefined;
  /** The allow list (`registry`); bounded tools wrapped by `tool` are registered in it. */
  readonly registry: ToolRegistry<AnyBoundedTool> | undefined;
  /** The LLM-retry runner over `registry` (`runner`). */
  readonly runner: ToolRunner | undefined;
  readonly snapshots: RunSnapshots | undefined;
  /** Wrap `fn` as the configured tool `name`: fuses → validation → ledger → cache → body. */
  tool<A, R>(name: string, fn: ToolBody<A, R>, overrides?: ToolOverrides): ConfiguredTool<A, Awaited<R>>;
  /** Wrap `fn` as the configured task `name` (ledgered when the task ledger covers it). */
  task<A, R>(
    name: string,
    fn: (args: A, options: TaskCallOptions) => R | Promise<R>,
    overrides?: ToolOverrides,
  ): ConfiguredTask<A, Awaited<R>>;
  /**
   * A new object in which every function of `functions` is wrapped as the configured tool or task
   * of its name (`sendEmail` finds `send_email` when only the snake_case name is configured); a
   * function whose name matches no configured tool or task is refused (`config_unknown_name`), so
   * a typo never leaves a tool unguarded. Entries that are not functions are copied untouched.
   */
  instrument<T extends Readonly<Record<string, unknown>>>(functions: T): Instrumented<T>;
  /**
   * Run an agent turn with the ledger scope, a session, the run's fuses and its snapshots set.
   * Without `scope.runId` the run id is the thread id: a call redispatched in a later run of the
   * thread meets the same transition. The fuses count per call of `run` either way.
   */
  run<R>(scope: ConfigRunScope, fn: (run: ConfigRun) => R | Promise<R>): Promise<Awaited<R>>;
  /** Repair and validate a transcript, then check it against the history guard; returns a new array. */
  prepareMessages<M>(messages: readonly M[]): M[];
  /** Write receipts lost to a crash (both ledgers); empty without receipts. */
  sweepReceipts(): Promise<SweepReceiptsReport[]>;
  /** Close every store and sink the config opened; safe to call twice. */
  close(): Promise<void>;
}

function unknownName(kind: 'tool' | 'task', name: string, known: readonly string[]): GuardError {
  const hint = closest(name, known);
  const list = known.length === 0 ? 'none' : known.map((k) => `\`${k}\``).join(', ');
  return new GuardError(
    'config_unknown_name',
    `${kind === 'tool' ? 'Tool' : 'Task'} \`${name}\` is not configured${hint === undefined ? '' : ` (did you mean \`${hint}\`?)`}; configured: ${list}`,
  );
}

function unknownFunction(key: string, known: readonly string[]): GuardError {
  const hint =
    closest(key, known) ??
    closest(
      key.replace(/[A-Z]/g, (l) => `_${l.toLowerCase()}`),
      known,
    );
  const list = known.length === 0 ? 'none' : known.map((k) => `\`${k}\``).join(', ');
  return new GuardError(
    'config_unknown_name',
    `\`config.instrument\` got the function \`${key}\`, which is no configured tool or task${hint === undefined ? '' : ` (did you mean \`${hint}\`?)`}; configured: ${list}. Pass only the functions to guard`,
  );
}

function taskSpec(
  name: string,
  task: TaskSettings,
  leaseTtlMs: number | undefined,
  reconciler: Reconciler | ReconcilerObject | undefined,
): TaskSpec {
  const lease = task.leaseTtlMs ?? leaseTtlMs;
  return {
    name,
    ...pickDefined(task, [
      'sideEffectClass',
      'retryPermission',
      'spendability',
      'idFrom',
      'capability',
      'providerIdempotencyKeyParam',
      'providerIdempotencyKeyTtlMs',
      'bookkeepingParams',
      'boundary',
    ]),
    ...defined({ leaseTtlMs: lease, reconciler }),
  };
}

/** Assemble the run-time config from its parts. */
export function createConfig(parts: ConfigParts): HyphaeConfig {
  const { settings, ledger, taskLedger, fuses, registry } = parts;
  const toolsLedgered = new Set(ledgeredTools(settings));
  const tasksLedgered = new Set(ledgeredTasks(settings));
  const runScope = createRunScope();
  let closing: Promise<void> | undefined;

  function tool<A, R>(name: string, fn: ToolBody<A, R>, overrides: ToolOverrides = {}): ConfiguredTool<A, Awaited<R>> {
    const configured = Object.hasOwn(settings.tools, name) ? settings.tools[name] : undefined;
    registry?.assertAllowed(name);
    if (configured === undefined && registry === undefined)
      throw unknownName('tool', name, Object.keys(settings.tools));
    const reconciler = overrides.reconciler ?? parts.reconcilers[name];
    const wrapped = wrapTool(
      name,
      configured ?? {},
      {
        ledger,
        ledgered: toolsLedgered.has(name),
        fuses,
        clock: parts.clock,
        currentFuseRun: () => runScope.get()?.fuses,
      },
      fn as ToolBody<unknown, unknown>,
      reconciler === undefined ? {} : { reconciler },
    );
    if (registry !== undefined && wrapped.forRunner !== undefined && !registry.has(name)) {
      registry.register(name, wrapped.forRunner as AnyBoundedTool);
    }
    return wrapped.call as ConfiguredTool<A, Awaited<R>>;
  }

  function task<A, R>(
    name: string,
    fn: (args: A, options: TaskCallOptions) => R | Promise<R>,
    overrides: ToolOverrides = {},
  ): ConfiguredTask<A, Awaited<R>> {
    const configured = Object.hasOwn(settings.tasks, name) ? settings.tasks[name] : undefined;
    if (configured === undefined) throw unknownName('task', name, Object.keys(settings.tasks));
    if (!tasksLedgered.has(name) || taskLedger === undefined) {
      return async function configuredTask(args: A, options: TaskCallOptions = {}): Promise<Awaited<R>> {
        const result: Awaited<R> = await fn(args, options);
        return result;
      };
    }
    const reconciler = overrides.reconciler ?? parts.reconcilers[name];
    const spec = taskSpec(name, configured, settings.taskLedger?.leaseTtlMs, reconciler);
    return taskLedger.task(spec, fn);
  }

  const isTool = (name: string) => Object.hasOwn(settings.tools, name) || registry?.allowed.includes(name) === true;
  const isTask = (name: string) => Object.hasOwn(settings.tasks, name);

  /** The configured name a function's key stands for: itself, else its snake_case form. */
  function configuredName(key: string): string | undefined {
    if (isTool(key) || isTask(key)) return key;
    const snake = key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
    return snake !== key && (isTool(snake) || isTask(snake)) ? snake : undefined;
  }

  function instrument<T extends Readonly<Record<string, unknown>>>(functions: T): Instrumented<T> {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(functions)) {
      if (typeof value !== 'function') {
        out[key] = value;
        continue;
      }
      const name = configuredName(key);
      if (name === undefined)
        throw unknownFunction(key, [...Object.keys(settings.tools), ...Object.keys(settings.tasks)]);
      out[key] = isTool(name)
        ? tool(name, value as ToolBody<unknown, unknown>)
        : task(name, value as (args: unknown, options: TaskCallOptions) => unknown);
    }
    return out as Instrumented<T>;
  }

  async function run<R>(scope: ConfigRunScope, fn: (run: ConfigRun) => R | Promise<R>): Promise<Awaited<R>> {
    const { threadId, runId, fuseRunId } = resolveRunScope(scope);
    const { node } = scope;
    const ledgerScope = { threadId, runId, ...(node === undefined ? {} : { node }) };
    const fuseRun = fuses?.forRun(fuseRunId);
    const inLedgers = <T>(body: () => T): T => {
      const inTasks = (): T => (taskLedger === undefined ? body() : taskLedger.run(ledgerScope, body));
      return ledger === undefined ? inTasks() : ledger.run(ledgerScope, inTasks);
    };
    const body = (snapshot: RunHandle | undefined): Promise<Awaited<R>> =>
      withSession(
        (session) =>
          inLedgers(async (): Promise<Awaited<R>> => {
            const current: ConfigRun = { threadId, runId, node, session, fuses: fuseRun, snapshot };
            const result: Awaited<R> = await runScope.run(current, () => fn(current));
            return result;
          }),
        { sessionId: runId },
      );
    try {
      if (parts.snapshots === undefined) return await body(undefined);
      const options = {
        ...(scope.signal === undefined ? {} : { signal: scope.signal }),
        ...(scope.initialState === undefined ? {} : { initialState: scope.initialState }),
      };
      return await parts.snapshots.run(runId, (handle) => body(handle), options);
    } finally {
      fuseRun?.end();
    }
  }

  async function closeAll(): Promise<void> {
    const closers = [ledger?.close(), taskLedger?.close(), parts.snapshotStorage?.close()];
    const results = await Promise.allSettled(closers);
    const failed = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
  }

  return Object.freeze({
    file: parts.file,
    settings,
    ledger,
    taskLedger,
    fuses,
    registry,
    runner: parts.runner,
    snapshots: parts.snapshots,
    tool,
    task,
    instrument,
    run,
    prepareMessages: <M>(messages: readonly M[]): M[] =>
      prepareMessagesWith(messages, settings.transcript, parts.historyGuard, parts.emit),
    async sweepReceipts() {
      if (settings.receipts === undefined) return [];
      const ledgers = [ledger, taskLedger].filter((l): l is Ledger => l !== undefined);
      const reports: SweepReceiptsReport[] = [];
      for (const l of ledgers) reports.push(await l.sweepReceipts());
      return reports;
    },
    close() {
      closing ??= closeAll();
      return closing;
    },
  });
}
