/**
 * The ledgers a command reaches through the config (`-c FILE`, default `./hyphae.yaml`): the full
 * ledgers (with receipts) for operator actions, or just the stores for reading, which need no
 * signing key. A config that cannot load is reported, not thrown.
 */
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { HyphaeConfig } from '../../config/create-config.js';
import { ConfigError } from '../../config/errors.js';
import { loadConfig } from '../../config/load-config.js';
import { type OpenStoreDefaults, openLedgerStorage } from '../../config/open-stores.js';
import { analyzeConfig } from '../../config/parse-config.js';
import { GuardError, LedgerMissingError } from '../../errors.js';
import type { Ledger } from '../../ledger/types.js';
import type { LedgerStorage } from '../../storage/ledger-storage.js';
import type { CommandContext } from '../command.js';

/** The default config file of every command. */
export const DEFAULT_CONFIG_FILE = 'hyphae.yaml';

export type { TransitionReader } from '../../ledger/operator/read-model.js';

import type { TransitionReader } from '../../ledger/operator/read-model.js';

/** A store opened for reading. */
export type ReadableStore = TransitionReader & Pick<LedgerStorage, 'close'>;

/**
 * A store opened for reading (`create: false`): one that holds no ledger yet — a SQLite file not
 * created, an empty PostgreSQL schema or Redis — reads as empty, and is left as it was.
 */
function readingOnly(storage: LedgerStorage): ReadableStore {
  return {
    async get(key) {
      try {
        return await storage.get(key);
      } catch (error) {
        if (error instanceof LedgerMissingError) return null;
        throw error;
      }
    },
    async list(options) {
      try {
        return await storage.list(options);
      } catch (error) {
        if (error instanceof LedgerMissingError) return { records: [], nextCursor: null };
        throw error;
      }
    },
    close: () => storage.close(),
  };
}

/** Load the config, printing why it cannot be loaded; undefined then. */
export async function loadCommandConfig(file: string, ctx: CommandContext): Promise<HyphaeConfig | undefined> {
  try {
    return await loadConfig(file, { env: ctx.env, cwd: ctx.cwd });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    ctx.err.line(error.message);
    return undefined;
  }
}

/** The config's ledgers, action ledger first, each store once (a shared store is listed once). */
export function ledgersOf(config: HyphaeConfig): Ledger[] {
  const ledgers: Ledger[] = [];
  for (const ledger of [config.ledger, config.taskLedger]) {
    if (ledger !== undefined && !ledgers.some((l) => l.storage === ledger.storage)) ledgers.push(ledger);
  }
  return ledgers;
}

/**
 * Open the ledger stores the config names, for reading only: no receipt key is read and nothing is
 * written (unless `defaults` lets an empty store be initialised); a store that holds no ledger yet
 * (a SQLite file that does not exist, an empty PostgreSQL schema or Redis) is read as empty, not
 * initialised. Prints why and returns undefined when the config or a store's
 * environment is missing.
 */
export async function openLedgerStores(
  file: string,
  ctx: CommandContext,
  defaults: OpenStoreDefaults = {},
): Promise<ReadableStore[] | undefined> {
  const path = resolve(ctx.cwd, file);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    ctx.err.line(
      missing ? `Config file \`${file}\` not found; create one with \`hyphae init\`` : `Cannot read \`${file}\``,
    );
    return undefined;
  }
  const { settings, issues } = analyzeConfig(text, { file, baseDir: dirname(path) });
  if (settings === undefined) {
    ctx.err.line(new ConfigError(file, issues).message);
    return undefined;
  }
  const stores = [settings.actionLedger?.store, settings.taskLedger?.store];
  const storages: ReadableStore[] = [];
  try {
    for (const store of stores) {
      if (store === undefined || store === 'action_ledger') continue;
      // Reading never initialises a store; initialising (`defaults.create`) does.
      if (defaults.create === true) storages.push(await openLedgerStorage(store, ctx.env, defaults));
      else storages.push(readingOnly(await openLedgerStorage(store, ctx.env, { readOnly: true })));
    }
  } catch (error) {
    await Promise.allSettled(storages.map((storage) => storage.close()));
    if (!(error instanceof GuardError)) throw error;
    ctx.err.line(error.message);
    return undefined;
  }
  return storages;
}
