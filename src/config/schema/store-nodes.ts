/**
 * The store blocks: `action_ledger`, `task_ledger` and `run_snapshots`.
 */

import { defined } from '../defined.js';
import type {
  ActionLedgerSettings,
  LedgerCoverage,
  RunSnapshotsSettings,
  StoreSettings,
  TaskLedgerSettings,
  ValueSource,
} from '../types.js';
import { argsDrift, duration, filePath, names } from './common-nodes.js';
import { discriminated, object, union } from './composite-nodes.js';
import { boolean, literal, map, type Node, number, oneOf, optional, string } from './nodes.js';

const PREFIX = '^[A-Za-z_][A-Za-z0-9_]*$';

function tablePrefix() {
  return optional(
    string({
      description: 'Prefix of the table names (default `hyphae_`).',
      pattern: PREFIX,
      patternText: 'a table prefix (letters, digits and `_`, not starting with a digit)',
    }),
  );
}

function createKey() {
  return optional(
    boolean({
      description:
        'Initialise the store when it holds no ledger (default `true`); `false` opens only an existing ledger, so an emptied store fails closed.',
    }),
  );
}

function envName(description: string) {
  return optional(
    string({ description, pattern: '^[A-Za-z_][A-Za-z0-9_]*$', patternText: 'an environment variable name' }),
  );
}

/** `wait_for_replicas`: `WAIT` after each claim and update until that many replicas hold it. */
function waitForReplicas() {
  const node = object(
    {
      replicas: number({ integer: true, minimum: 1, description: 'Replicas that must acknowledge each write.' }),
      timeout: duration({ description: 'How long each write waits for them, such as `100ms`.' }),
    },
    {
      description:
        'After each claim and each update, wait until this many replicas hold the write; a write they do not acknowledge in time fails, and a claim then does not run its tool (default: no wait).',
    },
  );
  return map(node, (raw) => ({ replicas: raw.replicas, timeoutMs: raw.timeout }));
}

/** The keys of each storage kind, shared by the ledger sections. */
const STORE_VARIANTS = {
  memory: {},
  sqlite: {
    path: filePath({ description: 'Database file, relative to this config file (created on first use).' }),
    table_prefix: tablePrefix(),
    synchronous: optional(
      oneOf(['FULL', 'NORMAL'], {
        description: '`FULL` (default) survives power loss; `NORMAL` only a process crash.',
      }),
    ),
    create: createKey(),
  },
  redis: {
    url: optional(string({ description: 'A `redis://` URL. Prefer `url_env` for URLs with credentials.' })),
    url_env: envName('Environment variable holding the `redis://` URL.'),
    cluster: optional(
      boolean({
        description:
          'The URL names a node of a Redis Cluster (several nodes: URLs separated by commas); the ledger spreads over every master (default `false`).',
      }),
    ),
    wait_for_replicas: optional(waitForReplicas()),
    prefix: optional(string({ description: 'Prefix of every key the ledger writes (default `hyphae:`).' })),
    allow_eviction: optional(
      boolean({
        description:
          'Accept a server whose `maxmemory-policy` is not `noeviction` (default `false`: side-effecting calls are refused).',
      }),
    ),
    create: createKey(),
  },
  postgres: {
    dsn: optional(string({ description: 'A `postgres://` connection string. Prefer `dsn_env`.' })),
    dsn_env: envName('Environment variable holding the `postgres://` connection string.'),
    schema: optional(string({ description: 'Schema of the tables (default `public`).', pattern: PREFIX })),
    table_prefix: tablePrefix(),
    create: createKey(),
  },
} as const;

const EXCLUSIVE = { redis: [['url', 'url_env']], postgres: [['dsn', 'dsn_env']] } as const;

function coverage(what: string): Node<LedgerCoverage> {
  return union([literal('all'), names()], {
    description: `\`all\` (every configured ${what}) or a list of ${what} names. Default \`all\`.`,
  });
}

function source(value: string | undefined, env: string | undefined): ValueSource {
  return env === undefined ? { value: value as string } : { env };
}

type RawStore =
  | { readonly storage: 'memory' }
  | {
      readonly storage: 'sqlite';
      readonly path: string;
      readonly table_prefix?: string;
      readonly synchronous?: 'FULL' | 'NORMAL';
      readonly create?: boolean;
    }
  | {
      readonly storage: 'redis';
      readonly url?: string;
      readonly url_env?: string;
      readonly cluster?: boolean;
      readonly wait_for_replicas?: { readonly replicas: number; readonly timeoutMs: number };
      readonly prefix?: string;
      readonly allow_eviction?: boolean;
      readonly create?: boolean;
    }
  | {
      readonly storage: 'postgres';
      readonly dsn?: string;
      readonly dsn_env?: string;
      readonly schema?: string;
      readonly table_prefix?: string;
      readonly create?: boolean;
    };

/** How each kind's checked block becomes its store settings: YAML names to settings, secrets as sources. */
const FROM_BLOCK: { readonly [K in RawStore['storage']]: (raw: Extract<RawStore, { storage: K }>) => StoreSettings } = {
  memory: () => ({ kind: 'memory' }),
  sqlite: (raw) => ({
    kind: 'sqlite',
    path: raw.path,
    ...defined({ tablePrefix: raw.table_prefix, synchronous: raw.synchronous, create: raw.create }),
  }),
  redis: (raw) => ({
    kind: 'redis',
    url: source(raw.url, raw.url_env),
    ...(raw.cluster === true ? { cluster: true } : {}),
    ...defined({
      waitForReplicas: raw.wait_for_replicas,
      prefix: raw.prefix,
      allowEviction: raw.allow_eviction,
      create: raw.create,
    }),
  }),
  postgres: (raw) => ({
    kind: 'postgres',
    dsn: source(raw.dsn, raw.dsn_env),
    ...defined({ schema: raw.schema, tablePrefix: raw.table_prefix, create: raw.create }),
  }),
};

/** The store settings of a checked store block. */
function toStore(raw: RawStore): StoreSettings {
  return (FROM_BLOCK[raw.storage] as (block: RawStore) => StoreSettings)(raw);
}

/** `action_ledger`: where ledgered tool calls are recorded, and which tools are ledgered. */
export function actionLedgerNode(): Node<ActionLedgerSettings> {
  const node = discriminated(
    'storage',
    {
      tools: optional(coverage('tool')),
      on_args_drift: optional(
        argsDrift({
          description: 'A tool call id reused with different arguments: `soft` (default), `hard` or `off`.',
        }),
      ),
    },
    STORE_VARIANTS,
    {
      description: 'The transition ledger of tool calls: its store and the tools it covers.',
      exactlyOne: EXCLUSIVE,
    },
  );
  return map(node, (raw) => ({
    store: toStore(raw),
    tools: raw.tools ?? 'all',
    onArgsDrift: raw.on_args_drift ?? 'soft',
  }));
}

/** `task_ledger`: the ledger of tasks; without `storage` it shares the action ledger's store. */
export function taskLedgerNode(): Node<TaskLedgerSettings> {
  const node = discriminated(
    'storage',
    {
      tasks: optional(coverage('task')),
      lease_ttl: optional(duration({ description: 'Lease of a running task (default: `transition.lease_ttl`).' })),
    },
    { action_ledger: {}, ...STORE_VARIANTS },
    {
      description:
        "The ledger of tasks. Without `storage` (or with `storage: action_ledger`) it shares the action ledger's store.",
      defaultTag: 'action_ledger',
      exactlyOne: EXCLUSIVE,
    },
  );
  return map(node, (raw) => ({
    store: raw.storage === 'action_ledger' ? 'action_ledger' : toStore(raw),
    tasks: raw.tasks ?? 'all',
    ...(raw.lease_ttl === undefined ? {} : { leaseTtlMs: raw.lease_ttl }),
  }));
}

/** `run_snapshots`: where run snapshots are kept (memory or SQLite). */
export function runSnapshotsNode(): Node<RunSnapshotsSettings> {
  const node = discriminated(
    'storage',
    {},
    { memory: {}, sqlite: { path: STORE_VARIANTS.sqlite.path, table_prefix: tablePrefix() } },
    { description: 'Run snapshots: a history of states per run, for resuming and auditing.' },
  );
  return map(node, (raw) => ({
    store:
      'path' in raw
        ? { kind: 'sqlite', path: raw.path, ...defined({ tablePrefix: raw.table_prefix }) }
        : { kind: 'memory' },
  }));
}
