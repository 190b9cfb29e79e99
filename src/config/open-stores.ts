/**
 * What a config opens: ledger stores, the snapshot store, and the receipt writer with its signer
 * and sink. Drivers load lazily, only for the kind of store the config names; nothing connects
 * until its first operation.
 */
import { readFile } from 'node:fs/promises';
import { GuardError, ReceiptKeyError } from '../errors.js';
import { createReceiptWriter, type ReceiptWriter } from '../ledger/receipts/receipt-writer.js';
import { createReceiptSigner, type ReceiptSigner } from '../ledger/receipts/signers.js';
import { driverOf, receiptStoresText, type StoreKind, storeDriver, type TargetOf } from '../storage/drivers.js';
import { createJsonlReceiptSink } from '../storage/jsonl/jsonl-sink.js';
import type { LedgerStorage } from '../storage/ledger-storage.js';
import type { ReceiptSink } from '../storage/receipt-sink.js';
import type { SnapshotStorage } from '../storage/snapshot-storage.js';
import type { ConfigEnv } from './parse-config.js';
import type { NodeIssue } from './schema/nodes.js';
import type { ReceiptsSettings, RunSnapshotsSettings, StoreSettings, ValueSource } from './types.js';

/** The text of a value named in the config; its environment variable was checked when parsing. */
export function resolveValue(source: ValueSource, env: ConfigEnv): string {
  if ('value' in source) return source.value;
  const value = env[source.env];
  if (value === undefined || value === '') {
    throw new GuardError('config_env_missing', `Environment variable \`${source.env}\` is not set`);
  }
  return value;
}

/**
 * The target of `store`: its settings, with each secret its driver names (a Redis URL, a
 * PostgreSQL DSN) read from the config or the environment.
 */
export function storeTarget<K extends StoreKind>(
  store: StoreSettings & { readonly kind: K },
  env: ConfigEnv,
): TargetOf<K> {
  const target: Record<string, unknown> = { ...store };
  for (const field of storeDriver(store.kind).secretFields) {
    target[field] = resolveValue((store as unknown as Record<string, ValueSource>)[field] as ValueSource, env);
  }
  return target as TargetOf<K>;
}

/** How a ledger store is opened when its block does not say. */
export interface OpenStoreDefaults {
  /**
   * Initialise a store that holds no ledger (`create`), unless the store block sets `create`. The
   * production profile opens with false, so an emptied store is refused rather than started anew.
   */
  readonly create?: boolean;
  /**
   * Open for reading only: never initialise a store, whatever its block or the profile says
   * (`create: false`), so a command that only reads cannot leave tables or a marker behind.
   */
  readonly readOnly?: boolean;
}

/** Whether a store of the config may initialise an empty ledger: its own `create`, else the profile's default. */
export function createDefault(settings: { readonly profile: string }): OpenStoreDefaults {
  return { create: settings.profile !== 'production' };
}

/** Open the ledger store `store` names (the driver module loads now; the connection on first use). */
export async function openLedgerStorage(
  store: StoreSettings,
  env: ConfigEnv,
  defaults: OpenStoreDefaults = {},
): Promise<LedgerStorage> {
  const target = storeTarget(store, env);
  return driverOf(target).open({ ...target, ...createSetting((store as { create?: boolean }).create, defaults) });
}

function createSetting(create: boolean | undefined, defaults: OpenStoreDefaults): { create?: boolean } {
  if (defaults.readOnly === true) return { create: false };
  const value = create ?? defaults.create;
  return value === undefined ? {} : { create: value };
}

/** Open the snapshot store of `run_snapshots`. */
export function openSnapshotStorage(settings: RunSnapshotsSettings): Promise<SnapshotStorage> {
  return driverOf(settings.store).openSnapshots(settings.store);
}

/** A receipt signer from the settings, or the finding (with its key path) that refuses the key. */
export async function openReceiptSigner(
  receipts: ReceiptsSettings,
  env: ConfigEnv,
): Promise<{ readonly signer: ReceiptSigner } | { readonly issue: NodeIssue }> {
  const { key } = receipts;
  const path = 'env' in key ? ['receipts', 'key_env'] : 'file' in key ? ['receipts', 'key_file'] : ['receipts', 'key'];
  let material: string;
  if ('file' in key) {
    try {
      // A key file written by `openssl rand -base64 48 > key` ends in a newline the shell would drop.
      material = (await readFile(key.file, 'utf8')).trimEnd();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
      return { issue: { path, target: 'value', message: `Cannot read the key file \`${key.file}\` (\`${code}\`)` } };
    }
  } else {
    material = resolveValue(key, env);
  }
  try {
    return { signer: createReceiptSigner({ algorithm: receipts.algorithm, keyId: receipts.keyId, key: material }) };
  } catch (error) {
    if (!(error instanceof ReceiptKeyError)) throw error;
    return { issue: { path, target: 'value', message: error.message } };
  }
}

/** The receipt sink: the JSONL file, or a table in the action ledger's SQL store. */
export async function openReceiptSink(
  receipts: ReceiptsSettings,
  store: StoreSettings | undefined,
  env: ConfigEnv,
): Promise<ReceiptSink> {
  if (receipts.path !== undefined) return createJsonlReceiptSink({ path: receipts.path });
  if (store !== undefined) {
    const target = storeTarget(store, env);
    const driver = driverOf(target);
    if (driver.keepsReceipts) return driver.openReceiptSink(target);
  }
  // Parsing refuses this combination; reaching it is a bug, and receipts must never silently vanish.
  throw new GuardError(
    'config_receipts_sink',
    `Receipts need a \`path\` unless the action ledger is on ${receiptStoresText()}`,
  );
}

/** One receipt writer, shared by the action and task ledgers so both write one chain. */
export function receiptWriter(sink: ReceiptSink, signer: ReceiptSigner): ReceiptWriter {
  return createReceiptWriter({ sink, signer });
}
