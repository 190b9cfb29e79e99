/**
 * The whole `hyphae.yaml`: every section, the parser to {@link ConfigSettings}, and the published
 * JSON Schema.
 */
import { defined } from '../defined.js';
import type { ConfigSettings, TransitionSettings } from '../types.js';
import { duration, NAME_PATTERN } from './common-nodes.js';
import { object, record, union } from './composite-nodes.js';
import { fusesNode, historyGuardNode, receiptsNode, registryNode, runnerNode, transcriptNode } from './guard-nodes.js';
import { mcpNode } from './mcp-node.js';
import { boolean, type JsonSchema, map, type Node, number, oneOf, optional, string } from './nodes.js';
import { actionLedgerNode, runSnapshotsNode, taskLedgerNode } from './store-nodes.js';
import { taskNode, toolNode } from './tool-nodes.js';

/** The default lease of a ledgered call: five minutes. */
export const DEFAULT_LEASE_TTL_MS = 300_000;

function transitionNode(): Node<TransitionSettings> {
  // `policy_version: 3` is a number in YAML; it is kept as the text `3`. A fraction is refused:
  // `1.10` would read as 1.1 — quote it.
  const text = (description: string) =>
    map(
      union([string(), number({ integer: true })], {
        description,
        expected: "a non-empty string or an integer (quote versions such as `'1.10'`)",
      }),
      String,
    );
  const node = object(
    {
      agent_id: text('The agent this ledger belongs to; part of every transition key.'),
      policy_version: text('Version of the policy; a new version starts new transitions.'),
      lease_ttl: optional(
        duration({ description: 'How long a claim holds before another worker may act (default `5m`).' }),
      ),
      lease_renew_interval: optional(
        duration({
          positive: false,
          description:
            'How often a running call renews its lease (default a third of the lease; `0s` turns renewal off).',
        }),
      ),
      poll_timeout: optional(
        duration({
          description:
            'How long a caller waits while another owner keeps renewing its lease (default `30m`; never shorter than the lease).',
        }),
      ),
      reconcile_timeout: optional(duration({ description: 'A slower reconciler counts as UNKNOWN (default `10s`).' })),
      defer_read_only_unknown: optional(
        boolean({
          description: 'Raise instead of retrying a read whose record is UNKNOWN or BLOCKED (default `false`).',
        }),
      ),
      reclaim_requires_death_signal: optional(
        union([boolean(), oneOf(['consequential'])], {
          expected: '`true`, `false` or `consequential`',
          description:
            'Which classes need evidence that a worker is dead (a `hyphae transitions mark-dead`, or a heartbeat older than `presumed_dead_after`) before its expired claim is taken over or released: `consequential` (default: `keyed_mutate`, `non_idempotent_mutate`, `irreversible`), `true` (every class, reads and tasks too), `false` (lease expiry alone).',
        }),
      ),
      presumed_dead_after: optional(
        duration({
          positive: false,
          description:
            "Heartbeat age (the owner's lease renewals) after which a worker is presumed dead (default twice `lease_ttl`).",
        }),
      ),
      request_identity: optional(
        oneOf(['allow_derived', 'require_explicit'], {
          description:
            'A consequential tool called without a call id: `allow_derived` keys it by its arguments and logs it once, `require_explicit` refuses it (default `allow_derived`; `require_explicit` in production).',
        }),
      ),
    },
    { description: 'The transition ledger: the identity of the agent and the timing of claims.' },
  );
  return map(node, (raw) => ({
    agentId: raw.agent_id,
    policyVersion: raw.policy_version,
    leaseTtlMs: raw.lease_ttl ?? DEFAULT_LEASE_TTL_MS,
    ...defined({
      leaseRenewIntervalMs: raw.lease_renew_interval,
      pollTimeoutMs: raw.poll_timeout,
      reconcileTimeoutMs: raw.reconcile_timeout,
    }),
    deferReadOnlyUnknown: raw.defer_read_only_unknown ?? false,
    reclaimRequiresDeathSignal: raw.reclaim_requires_death_signal ?? 'consequential',
    ...defined({ presumedDeadAfterMs: raw.presumed_dead_after, requestIdentity: raw.request_identity }),
  }));
}

function buildConfigNode(): Node<ConfigSettings> {
  const named = {
    keyPattern: NAME_PATTERN,
    keyText: 'a name (letters, digits, `_`, `.`, `:`, `-`; not starting with a digit)',
  };
  const node = object(
    {
      $schema: optional(string({ description: 'The JSON Schema of this file (for editors).' })),
      profile: optional(
        oneOf(['development', 'production'], {
          description:
            '`production` refuses, for side-effecting tools, a store whose records do not outlive the process (memory, SQLite `:memory:`, a file in the temp directory), and implicit identities.',
        }),
      ),
      transition: optional(transitionNode()),
      action_ledger: optional(actionLedgerNode()),
      task_ledger: optional(taskLedgerNode()),
      run_snapshots: optional(runSnapshotsNode()),
      receipts: optional(receiptsNode()),
      tools: optional(record(toolNode(), { ...named, description: 'Every tool the agent may call, by name.' })),
      tasks: optional(record(taskNode(), { ...named, description: 'Ledgered tasks, by name.' })),
      registry: optional(registryNode()),
      runner: optional(runnerNode()),
      fuses: optional(fusesNode()),
      history_guard: optional(historyGuardNode()),
      transcript: optional(transcriptNode()),
      mcp: optional(mcpNode()),
    },
    { description: 'hyphae configuration.' },
  );
  return map(node, (raw): ConfigSettings => {
    const tools = raw.tools ?? {};
    const registry = raw.registry;
    return {
      profile: raw.profile ?? 'development',
      ...defined({
        transition: raw.transition,
        actionLedger: raw.action_ledger,
        taskLedger: raw.task_ledger,
        runSnapshots: raw.run_snapshots,
        receipts: raw.receipts,
      }),
      tools,
      tasks: raw.tasks ?? {},
      ...(registry === undefined
        ? {}
        : {
            registry:
              registry.auto === true
                ? { allowed: Object.freeze(Object.keys(tools)), auto: true }
                : { allowed: registry.allowed ?? [], auto: false },
          }),
      ...defined({
        runner: raw.runner,
        fuses: raw.fuses,
        historyGuard: raw.history_guard,
        transcript: raw.transcript,
        mcp: raw.mcp,
      }),
    };
  });
}

let root: Node<ConfigSettings> | undefined;

/** The node of a whole config file (built once). */
export function configNode(): Node<ConfigSettings> {
  root ??= buildConfigNode();
  return root;
}

/** Where the published schema lives, relative to an installed package. */
export const SCHEMA_FILE_NAME = 'hyphae.schema.json';

/**
 * The JSON Schema of `hyphae.yaml`, as published in `hyphae.schema.json` (draft-07, which every
 * YAML editor reads).
 *
 * @example
 * writeFileSync('hyphae.schema.json', `${JSON.stringify(configJsonSchema(), null, 2)}\n`);
 */
export function configJsonSchema(): JsonSchema {
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'hyphae.yaml',
    ...configNode().toJson(),
  };
}
