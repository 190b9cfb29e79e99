/**
 * The checks of `hyphae doctor`: the config, its environment variables, every store it names
 * (connected, schema version readable), and the receipt key and sink. Each check is independent,
 * so one failure does not hide the next; each failure says how to fix it.
 */
import { access, constants, readFile, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { ConfigError } from '../../config/errors.js';
import { formatPath } from '../../config/locate.js';
import {
  createDefault,
  openLedgerStorage,
  openReceiptSigner,
  openReceiptSink,
  openSnapshotStorage,
  storeTarget,
} from '../../config/open-stores.js';
import { analyzeConfig, type ConfigEnv, envReferences } from '../../config/parse-config.js';
import { type LedgerSection, nonDurableStoreIssue, sideEffectingCovered } from '../../config/store-durability.js';
import type { ConfigSettings, StoreSettings } from '../../config/types.js';
import { LedgerMissingError, MissingPeerDependencyError } from '../../errors.js';
import { driverOf, storeFacts } from '../../storage/drivers.js';
import type { LedgerStorage } from '../../storage/ledger-storage.js';
import type { ReceiptSink } from '../../storage/receipt-sink.js';
import { runDeepChecks } from './doctor-deep.js';
import type { DoctorItem } from './doctor-item.js';
import { describeStore, hazardFix, replicaShortfall, storeFindings, storeFix, withTimeout } from './doctor-store.js';

/** Something with a `close()`: a store or a sink. */
interface Closable {
  close(): Promise<void>;
}

/** The error's message, with its cause's (`connect ECONNREFUSED …`) when it has one. */
function message(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? error.cause.message : undefined;
  return cause === undefined || error.message.includes(cause) ? error.message : `${error.message} (${cause})`;
}

/** The nearest existing ancestor of `path` is a writable directory (so the file can be created). */
async function creatable(path: string): Promise<boolean> {
  let dir = dirname(path);
  for (;;) {
    try {
      const info = await stat(dir);
      if (!info.isDirectory()) return false;
      await access(dir, constants.W_OK);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return false;
      const parent = dirname(dir);
      if (parent === dir) return false;
      dir = parent;
    }
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Open a ledger store, prepare its schema (SQL) or read from it (Redis), report its ledger id and
 * hazards, refuse what the profile refuses, and close it.
 */

/**
 * Load the store's driver on a scratch store with its settings (SQLite in memory), so a missing
 * driver is found before the file exists (the first real operation would be refused for it).
 *
 * @returns the error that stopped it, or undefined when the driver loads.
 */
async function driverError(store: StoreSettings, env: ConfigEnv, timeoutMs: number): Promise<unknown> {
  let storage: (Closable & { ensureSchema?: () => Promise<void> }) | undefined;
  try {
    const target = storeTarget(store, env);
    const driver = driverOf(target);
    const scratch = driver.scratch(target);
    if (scratch === undefined) return undefined;
    storage = await driver.open(scratch);
    await withTimeout(storage.ensureSchema?.() ?? Promise.resolve(), timeoutMs);
    return undefined;
  } catch (error) {
    return error;
  } finally {
    await storage?.close().catch(() => undefined);
  }
}

/** The item of a store file that does not exist yet: it can be created, and the driver loads. */
async function notCreatedYet(
  name: string,
  store: StoreSettings,
  file: string,
  env: ConfigEnv,
  timeoutMs: number,
): Promise<DoctorItem> {
  const described = describeStore(store);
  if (!(await creatable(file))) {
    return { name, ok: false, detail: `${described} cannot be created`, fix: `make \`${dirname(file)}\` writable` };
  }
  const error = await driverError(store, env, timeoutMs);
  if (error === undefined)
    return { name, ok: true, detail: `${described} does not exist yet; it is created on first use` };
  const missing = error instanceof MissingPeerDependencyError;
  return {
    name,
    ok: false,
    detail: `${described} does not exist yet, and the ${storeFacts(store).title} driver does not load: ${message(error)}`,
    fix: missing
      ? `run ${/`npm install [^`]+`/.exec(message(error))?.[0] ?? 'the install command above'}`
      : storeFix(store, error),
  };
}

/** A SQLite file that does not exist while the config opens it with `create: false` (the production profile). */
function noLedgerYet(name: string, store: StoreSettings): DoctorItem {
  return {
    name,
    ok: false,
    detail: `${describeStore(store)}: the file does not exist, and the config opens it with \`create: false\` (the production profile's default), so the store holds no ledger and every call would be refused`,
    fix: 'a new deployment: initialise it once with `hyphae init --stores`; otherwise it was deleted: restore it from a backup',
  };
}

async function checkLedgerStore(
  name: string,
  section: LedgerSection,
  settings: ConfigSettings,
  store: StoreSettings,
  env: ConfigEnv,
  timeoutMs: number,
): Promise<DoctorItem> {
  let storage: (LedgerStorage & { ensureSchema?: () => Promise<void> }) | undefined;
  try {
    // Opening connects nothing yet: the store's capabilities are known before any I/O.
    // Read only: a doctor that initialised an empty store would hide the very fault it checks for.
    storage = await openLedgerStorage(store, env, { readOnly: true });
    const open = storage;
    const transient = nonDurableStoreIssue(settings, section, store, open);
    if (transient !== undefined) {
      const fix = 'use `sqlite` with a path outside the temp directory, `redis` or `postgres`';
      return { name, ok: false, detail: transient.message, fix };
    }
    const facts = storeFacts(store);
    if (facts.inProcess)
      return { name, ok: true, detail: `${facts.describe} (nothing to connect to; lost with the process)` };
    const initialisedOnUse = ((store as { create?: boolean }).create ?? createDefault(settings).create) !== false;
    if (facts.file !== undefined && !(await exists(facts.file))) {
      return initialisedOnUse ? notCreatedYet(name, store, facts.file, env, timeoutMs) : noLedgerYet(name, store);
    }
    let empty = false;
    try {
      await withTimeout(
        typeof open.ensureSchema === 'function' ? open.ensureSchema() : open.list({ limit: 1 }).then(() => undefined),
        timeoutMs,
      );
    } catch (error) {
      if (!(error instanceof LedgerMissingError) || !initialisedOnUse) throw error;
      empty = true;
    }
    const findings = await storeFindings(
      open,
      sideEffectingCovered(settings, section),
      timeoutMs,
      empty,
      initialisedOnUse,
    );
    const { notes, refusal } = findings;
    // A store with a schema says it read the schema's version; one without (Redis) that it connected.
    const schema = typeof open.ensureSchema === 'function';
    const base = findings.empty
      ? `${facts.describe}: ${schema ? '' : 'connected; '}holds no ledger yet (it is initialised on first use)`
      : `${facts.describe}: ${schema ? 'schema version readable' : 'connected'}`;
    if (refusal !== undefined) return { name, ok: false, detail: `${base}\n${refusal}`, fix: hazardFix(store) };
    const short = await replicaShortfall(open, store, timeoutMs);
    if (short?.refusal !== undefined) {
      const fix =
        'start the missing replicas (`replicaof`, or `CLUSTER REPLICATE` on a cluster), or lower `wait_for_replicas.replicas`';
      return { name, ok: false, detail: `${base}\n${short.refusal}`, fix };
    }
    if (short !== undefined) notes.push(short.note);
    return { name, ok: true, detail: [base, ...notes].join('\n') };
  } catch (error) {
    return { name, ok: false, detail: `${describeStore(store)}: ${message(error)}`, fix: storeFix(store, error) };
  } finally {
    await withTimeout(storage?.close() ?? Promise.resolve(), timeoutMs).catch(() => undefined);
  }
}

async function checkSnapshots(settings: ConfigSettings, timeoutMs: number): Promise<DoctorItem | undefined> {
  const snapshots = settings.runSnapshots;
  if (snapshots === undefined) return undefined;
  const name = 'run snapshots';
  const store = snapshots.store;
  const facts = storeFacts(store);
  if (facts.inProcess) return { name, ok: true, detail: `${facts.describe} (lost with the process)` };
  if (facts.file !== undefined && !(await exists(facts.file))) {
    return notCreatedYet(name, store, facts.file, {}, timeoutMs);
  }
  let storage: (Closable & { ensureSchema?: () => Promise<void> }) | undefined;
  try {
    storage = await openSnapshotStorage(snapshots);
    await withTimeout(storage.ensureSchema?.() ?? Promise.resolve(), timeoutMs);
    return { name, ok: true, detail: `${facts.describe}: schema version readable` };
  } catch (error) {
    return { name, ok: false, detail: `${facts.describe}: ${message(error)}`, fix: storeFix(store, error) };
  } finally {
    await storage?.close().catch(() => undefined);
  }
}

async function checkReceipts(settings: ConfigSettings, env: ConfigEnv, timeoutMs: number): Promise<DoctorItem[]> {
  const receipts = settings.receipts;
  if (receipts === undefined) return [];
  const items: DoctorItem[] = [];
  const opened = await openReceiptSigner(receipts, env);
  if ('issue' in opened) {
    const fix =
      receipts.algorithm === 'ed25519'
        ? 'generate a key pair: `openssl genpkey -algorithm ed25519 -out receipts.pem`'
        : 'use a random secret of at least 32 bytes: `openssl rand -base64 48`';
    items.push({ name: 'receipt key', ok: false, detail: opened.issue.message, fix });
  } else {
    items.push({ name: 'receipt key', ok: true, detail: `${receipts.algorithm} key \`${receipts.keyId}\` is usable` });
  }
  const store = settings.actionLedger?.store;
  // Receipts kept beside the ledger live in its file, when it is one.
  const file = receipts.path ?? (store === undefined ? undefined : storeFacts(store).file);
  if (file !== undefined && file !== ':memory:' && !(await exists(file))) {
    const ok = await creatable(file);
    items.push({
      name: 'receipt sink',
      ok,
      detail: ok ? `${file} does not exist yet; it is created on the first receipt` : `${file} cannot be created`,
      ...(ok ? {} : { fix: `make \`${dirname(file)}\` writable` }),
    });
    return items;
  }
  let sink: (ReceiptSink & { open?: () => Promise<void>; ensureSchema?: () => Promise<void> }) | undefined;
  try {
    sink = await openReceiptSink(receipts, settings.actionLedger?.store, env);
    const opened = sink;
    await withTimeout<unknown>(opened.open?.() ?? opened.ensureSchema?.() ?? opened.last(), timeoutMs);
    items.push({ name: 'receipt sink', ok: true, detail: `${sink.location}: chain readable` });
  } catch (error) {
    items.push({
      name: 'receipt sink',
      ok: false,
      detail: message(error),
      fix: 'run `hyphae receipts verify` on the file to find the first broken link; never extend a broken chain',
    });
  } finally {
    await sink?.close().catch(() => undefined);
  }
  return items;
}

/**
 * Run every check of the config at `file` (relative to `cwd`; named as given in the report); with
 * `deep`, also SQLite's full `integrity_check` of every SQLite file it names.
 */
export async function runDoctorChecks(
  file: string,
  cwd: string,
  env: ConfigEnv,
  timeoutMs: number,
  options: { readonly deep?: boolean } = {},
): Promise<DoctorItem[]> {
  const path = resolve(cwd, file);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    return [
      {
        name: 'config',
        ok: false,
        detail: missing ? `${file} not found` : `${file}: ${message(error)}`,
        fix: missing ? 'create one with `hyphae init` or pass `-c FILE`' : 'check the file permissions',
      },
    ];
  }
  const analysis = analyzeConfig(text, { file, baseDir: dirname(path) });
  if (analysis.settings === undefined) {
    const detail = new ConfigError(file, analysis.issues).message;
    return [
      {
        name: 'config',
        ok: false,
        detail,
        fix: 'correct the keys above (line:column), then run `hyphae doctor` again',
      },
    ];
  }
  const settings = analysis.settings;
  const items: DoctorItem[] = [{ name: 'config', ok: true, detail: `${file} is valid (profile ${settings.profile})` }];
  const missing = new Set<string>();
  for (const [path, name] of envReferences(settings)) {
    const set = env[name] !== undefined && env[name] !== '';
    if (!set) missing.add(formatPath(path.slice(0, 1)));
    const by = `named by \`${formatPath(path)}\``;
    items.push({
      name: `env ${name}`,
      ok: set,
      detail: set ? `set (${by})` : `not set (${by})`,
      ...(set ? {} : { fix: `export ${name}=… in the environment that runs the agent` }),
    });
  }
  // A section whose environment variable is missing was reported above and cannot be opened.
  if (settings.actionLedger !== undefined && !missing.has('action_ledger')) {
    items.push(
      await checkLedgerStore('action ledger', 'action_ledger', settings, settings.actionLedger.store, env, timeoutMs),
    );
  }
  const taskStore = settings.taskLedger?.store;
  if (taskStore !== undefined && taskStore !== 'action_ledger' && !missing.has('task_ledger')) {
    items.push(await checkLedgerStore('task ledger', 'task_ledger', settings, taskStore, env, timeoutMs));
  }
  const snapshots = await checkSnapshots(settings, timeoutMs);
  if (snapshots !== undefined) items.push(snapshots);
  if (!missing.has('receipts') && !missing.has('action_ledger'))
    items.push(...(await checkReceipts(settings, env, timeoutMs)));
  if (options.deep === true) items.push(...(await runDeepChecks(settings, timeoutMs)));
  return items;
}
