/**
 * `loadConfig`: read a `hyphae.yaml`, check it, read its secrets and open what it names.
 *
 * Environment variables are read here and nowhere else: policy code only ever sees values.
 */
import { readFile, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { AnyBoundedTool } from '../boundary/bounded.js';
import { createToolRegistry } from '../boundary/create-tool-registry.js';
import { createToolRunner } from '../boundary/create-tool-runner.js';
import { createRunSnapshots, type SnapshotEvent } from '../context/snapshots/run-snapshots.js';
import type { Clock } from '../core/clock.js';
import type { FuseEvent } from '../fuses/events.js';
import { InvalidArgumentError, kindOf, optionsOf, readOptions } from '../invalid-argument.js';
import { createLedger } from '../ledger/create-ledger.js';
import type { ReceiptWriter } from '../ledger/receipts/receipt-writer.js';
import type {
  Ledger,
  LedgerCallEvent,
  LedgerEvent,
  LedgerLogger,
  LedgerOptions,
  Reconciler,
  ReconcilerObject,
} from '../ledger/types.js';
import type { LedgerStorage } from '../storage/ledger-storage.js';
import type { SnapshotStorage } from '../storage/snapshot-storage.js';
import { buildFuses } from './build-fuses.js';
import { createConfig, type HyphaeConfig } from './create-config.js';
import { pickDefined } from './defined.js';
import { ConfigError } from './errors.js';
import {
  createDefault,
  openLedgerStorage,
  openReceiptSigner,
  openReceiptSink,
  openSnapshotStorage,
  receiptWriter,
} from './open-stores.js';
import { analyzeConfig, type ConfigAnalysis, type ConfigEnv, maxConfigBytes, sizeIssue } from './parse-config.js';
import { historyGuardOf, type PrepareMessagesEvent } from './prepare-messages.js';
import type { NodeIssue } from './schema/nodes.js';
import { nonDurableStoreIssue } from './store-durability.js';
import type { ConfigSettings, TransitionSettings } from './types.js';

/** Where a config comes from: a file path, or text (with the path it would have, for messages and relative paths). */
export type ConfigSource = string | { readonly text: string; readonly path?: string };

/** Everything a loaded config reports, tagged by where it comes from. */
export type ConfigEvent =
  | PrepareMessagesEvent
  | { readonly type: 'fuse'; readonly event: FuseEvent }
  | { readonly type: 'snapshot'; readonly event: SnapshotEvent }
  | { readonly type: 'ledger'; readonly event: LedgerEvent }
  /** A step of one guarded call (see `LedgerOptions.onCallEvent`). */
  | { readonly type: 'call'; readonly event: LedgerCallEvent };

/** Options of {@link loadConfig}. */
export interface LoadConfigOptions {
  /** Where `*_env` names are looked up. Default `process.env`. */
  readonly env?: ConfigEnv;
  /** Directory a relative config path (and text without a path) resolves against. Default the working directory. */
  readonly cwd?: string;
  readonly clock?: Clock;
  readonly logger?: LedgerLogger;
  /** Reconcilers by tool or task name (YAML cannot hold code). */
  readonly reconcilers?: Readonly<Record<string, Reconciler | ReconcilerObject>>;
  /** Prefix of the ledgers' owner ids. */
  readonly ownerId?: string;
  /** Observes fuse decisions, snapshot failures, transcript repairs, history warnings and ledger steps. */
  readonly onEvent?: (event: ConfigEvent) => void;
  /** The largest config accepted, in UTF-8 bytes (default 8 MiB; `Infinity` turns it off). A larger file is not read. */
  readonly maxBytes?: number;
}

interface Source {
  readonly text: string;
  /** As named in messages. */
  readonly display: string;
  readonly file: string | undefined;
  readonly baseDir: string;
}

function inlineSource(source: object, cwd: string): Source {
  const { text, path } = readOptions(
    'loadConfig',
    source as { text?: unknown; path?: unknown },
    ['text', 'path'],
    'source',
  );
  if (typeof text !== 'string') {
    throw new InvalidArgumentError('loadConfig', 'source.text', `must be a string, got ${kindOf(text)}`);
  }
  if (path !== undefined && typeof path !== 'string') {
    throw new InvalidArgumentError('loadConfig', 'source.path', `must be a string, got ${kindOf(path)}`);
  }
  const file = path === undefined ? undefined : resolve(cwd, path);
  return { text, display: path ?? '<inline>', file, baseDir: file === undefined ? cwd : dirname(file) };
}

async function readSource(source: ConfigSource, cwd: string, maxBytes: number): Promise<Source> {
  if (typeof source === 'object' && source !== null && !Array.isArray(source)) return inlineSource(source, cwd);
  if (typeof source !== 'string') {
    throw new InvalidArgumentError('loadConfig', 'source', `must be a path or \`{ text }\`, got ${kindOf(source)}`);
  }
  const file = resolve(cwd, source);
  try {
    // The size first: a file over the limit is refused without being read.
    const tooLarge = sizeIssue((await stat(file)).size, maxBytes);
    if (tooLarge !== undefined) throw new ConfigError(source, [tooLarge]);
    return { text: await readFile(file, 'utf8'), display: source, file, baseDir: dirname(file) };
  } catch (cause) {
    if (cause instanceof ConfigError) throw cause;
    const code = (cause as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'not found' : `cannot be read (\`${code ?? 'unknown'}\`)`;
    throw new ConfigError(source, [], {
      cause,
      message: `Config file \`${source}\` ${reason}${code === 'ENOENT' ? '; create one with `hyphae init`' : ''}`,
    });
  }
}

function ledgerOptions(transition: TransitionSettings, options: LoadConfigOptions): Omit<LedgerOptions, 'storage'> {
  const emit = options.onEvent;
  return {
    agentId: transition.agentId,
    policyVersion: transition.policyVersion,
    leaseTtlMs: transition.leaseTtlMs,
    deferReadOnlyUnknown: transition.deferReadOnlyUnknown,
    reclaimRequiresDeathSignal: transition.reclaimRequiresDeathSignal,
    ...pickDefined(transition, ['presumedDeadAfterMs', 'leaseRenewIntervalMs', 'pollTimeoutMs', 'reconcileTimeoutMs']),
    ...pickDefined(options, ['clock', 'logger', 'ownerId']),
    ...(emit === undefined
      ? {}
      : {
          onEvent: (event: LedgerEvent) => emit({ type: 'ledger', event }),
          onCallEvent: (event: LedgerCallEvent) => emit({ type: 'call', event }),
        }),
  };
}

/** What has been opened so far, so a failure half-way closes it again. */
interface Opened {
  action?: LedgerStorage;
  task?: LedgerStorage;
  snapshots?: SnapshotStorage;
  receipts?: ReceiptWriter;
}

async function closeOpened(opened: Opened): Promise<void> {
  await Promise.allSettled([
    opened.action?.close(),
    opened.task?.close(),
    opened.snapshots?.close(),
    opened.receipts?.close(),
  ]);
}

async function openReceipts(
  settings: ConfigSettings,
  analysis: ConfigAnalysis,
  display: string,
  env: ConfigEnv,
): Promise<ReceiptWriter | undefined> {
  const { receipts } = settings;
  if (receipts === undefined) return undefined;
  const opened = await openReceiptSigner(receipts, env);
  if ('issue' in opened) throw new ConfigError(display, [analysis.place(opened.issue)]);
  return receiptWriter(await openReceiptSink(receipts, settings.actionLedger?.store, env), opened.signer);
}

/**
 * Open the ledgers' stores; `refuse` throws the config error of a store the production profile
 * refuses (its records would not outlive the process).
 */
async function openLedgers(
  settings: ConfigSettings,
  options: LoadConfigOptions,
  env: ConfigEnv,
  opened: Opened,
  refuse: (issue: NodeIssue) => never,
): Promise<{ ledger: Ledger | undefined; taskLedger: Ledger | undefined }> {
  const { transition, actionLedger, taskLedger } = settings;
  if (transition === undefined) return { ledger: undefined, taskLedger: undefined };
  const base = {
    ...ledgerOptions(transition, options),
    requestIdentity:
      transition.requestIdentity ?? (settings.profile === 'production' ? 'require_explicit' : 'allow_derived'),
  } as const;
  const receipts = opened.receipts === undefined ? {} : { receipts: opened.receipts };
  let ledger: Ledger | undefined;
  if (actionLedger !== undefined) {
    opened.action = await openLedgerStorage(actionLedger.store, env, createDefault(settings));
    const issue = nonDurableStoreIssue(settings, 'action_ledger', actionLedger.store, opened.action);
    if (issue !== undefined) refuse(issue);
    ledger = createLedger({ ...base, ...receipts, storage: opened.action, onArgsDrift: actionLedger.onArgsDrift });
  }
  let tasks: Ledger | undefined;
  if (taskLedger !== undefined) {
    const store = taskLedger.store;
    const storage =
      store === 'action_ledger' ? opened.action : await openLedgerStorage(store, env, createDefault(settings));
    if (store !== 'action_ledger' && storage !== undefined) {
      opened.task = storage;
      const issue = nonDurableStoreIssue(settings, 'task_ledger', store, storage);
      if (issue !== undefined) refuse(issue);
    }
    if (storage !== undefined) {
      tasks = createLedger({
        ...base,
        ...receipts,
        storage,
        ...(taskLedger.leaseTtlMs === undefined ? {} : { leaseTtlMs: taskLedger.leaseTtlMs }),
      });
    }
  }
  return { ledger, taskLedger: tasks };
}

/**
 * Load a `hyphae.yaml`: check it (a {@link ConfigError} lists every problem with its line, column
 * and key path), read the secrets it names, and open its stores (drivers load now, connections on
 * first use). Relative paths in the file are relative to the file. A config over `maxBytes` is a
 * `ConfigError`; a source or options it cannot use are an `InvalidArgumentError` (`invalid_argument`).
 *
 * @example
 * import { loadConfig } from 'hyphae';
 *
 * const config = await loadConfig('hyphae.yaml');
 * const tools = config.instrument({ send_payment: sendPayment, lookup_order: lookupOrder });
 * await config.run({ threadId: 'thread-1', runId: 'run-1' }, async () => {
 *   const messages = config.prepareMessages(history);
 *   // … call the model, then the tools it asks for:
 *   await tools.send_payment({ amount: 100, order_id: 'o-1' }, { toolCallId: 'call_abc' });
 * });
 * await config.close();
 */
export async function loadConfig(source: ConfigSource, given: LoadConfigOptions = {}): Promise<HyphaeConfig> {
  const options = optionsOf('loadConfig', given, true);
  const env = options.env ?? process.env;
  const maxBytes = maxConfigBytes('loadConfig', options.maxBytes);
  const { text, display, file, baseDir } = await readSource(source, options.cwd ?? process.cwd(), maxBytes);
  const analysis = analyzeConfig(text, { file: display, baseDir, env, maxBytes }, 'loadConfig');
  const settings = analysis.settings;
  if (settings === undefined) throw new ConfigError(display, analysis.issues);
  const emit = (event: ConfigEvent): void => options.onEvent?.(event);
  const fuses = buildFuses(settings, options.clock, emit);
  if ('issue' in fuses) throw new ConfigError(display, [analysis.place(fuses.issue)]);
  const opened: Opened = {};
  try {
    const receipts = await openReceipts(settings, analysis, display, env);
    if (receipts !== undefined) opened.receipts = receipts;
    const { ledger, taskLedger } = await openLedgers(settings, options, env, opened, (issue) => {
      throw new ConfigError(display, [analysis.place(issue)]);
    });
    if (settings.runSnapshots !== undefined) opened.snapshots = await openSnapshotStorage(settings.runSnapshots);
    const registry =
      settings.registry === undefined
        ? undefined
        : createToolRegistry<AnyBoundedTool>({ allowed: settings.registry.allowed });
    const runner =
      registry === undefined || settings.runner === undefined
        ? undefined
        : createToolRunner({ registry, ...settings.runner });
    const snapshots =
      opened.snapshots === undefined
        ? undefined
        : createRunSnapshots({
            storage: opened.snapshots,
            ...(options.clock === undefined ? {} : { clock: options.clock }),
            onEvent: (event) => emit({ type: 'snapshot', event }),
          });
    return createConfig({
      file,
      settings,
      ledger,
      taskLedger,
      fuses: fuses.box,
      registry,
      runner,
      snapshots,
      snapshotStorage: opened.snapshots,
      historyGuard: settings.historyGuard === undefined ? undefined : historyGuardOf(settings.historyGuard, emit),
      clock: options.clock,
      reconcilers: options.reconcilers ?? {},
      emit,
    });
  } catch (error) {
    await closeOpened(opened);
    throw error;
  }
}
