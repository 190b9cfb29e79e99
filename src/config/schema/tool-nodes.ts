/**
 * `tools.<name>` and `tasks.<name>`: the envelope of each tool and task, and the guards around it.
 */
import { DEFAULT_PROTECT_MAX_ENTRIES } from '../../context/protect.js';
import { defined } from '../defined.js';
import type { BoundedSettings, ProtectSettings, TaskSettings, ToolSettings } from '../types.js';
import {
  argsDrift,
  duration,
  filePath,
  name,
  names,
  retryPermission,
  sideEffectClass,
  spendability,
} from './common-nodes.js';
import { list, object, record } from './composite-nodes.js';
import { map, mapping, type Node, number, oneOf, optional, string } from './nodes.js';

function envelope() {
  return {
    side_effect_class: optional(
      sideEffectClass({
        description:
          'How the tool touches the world: `read`, `idempotent_mutate`, `keyed_mutate`, `non_idempotent_mutate`, `irreversible` (or an alias such as `payment`, `email`).',
      }),
    ),
    retry_permission: optional(retryPermission({ description: 'Override of the class default.' })),
    spendability: optional(spendability({ description: 'Override of the class default.' })),
    provider_idempotency_key_param: optional(
      name({
        description: "The argument that carries the provider's idempotency key; left out of the args fingerprint.",
      }),
    ),
    provider_idempotency_key_ttl: optional(
      duration({
        positive: false,
        description: 'Window in which an UNKNOWN keyed call may retry with the same provider key.',
      }),
    ),
    bookkeeping_params: optional(
      names({ description: 'Arguments that are bookkeeping, not intent; left out of the args fingerprint.' }),
    ),
    capability: optional(
      oneOf(['idempotent', 'queryable', 'blind'], {
        description:
          'Whether the outcome of an unfinished call can be established: `idempotent` (repeating is safe; `read` and `idempotent_mutate` only), `queryable` (a reconciler, or for `keyed_mutate` a provider key, tells), `blind` (nothing can: an UNKNOWN record never retries). Derived from the class when omitted; a looser one than the class allows is refused.',
      }),
    ),
    lease_ttl: optional(duration({ description: 'Lease of a running call (default: `transition.lease_ttl`).' })),
    boundary: optional(
      oneOf(['marked', 'body'], {
        description:
          'Where the side-effect boundary sits: `marked` (default), the body marks it with `sideEffect()`; `body`, the whole body is the effect and the claim itself is written `maybe_crossed` (one store write less; any failure of the body is UNKNOWN).',
      }),
    ),
  };
}

function protectNode(): Node<ProtectSettings> {
  const node = object(
    {
      entity_param: name({ description: 'The argument that names the entity the result describes.' }),
      ttl: duration({ description: 'How long a result stays fresh.' }),
      max_entries: optional(
        number({ integer: true, minimum: 1, description: "Most entries one session's cache holds (default 1000)." }),
      ),
    },
    { description: 'A per-session TTL cache in front of a `read` tool.' },
  );
  return map(node, (raw) => ({
    entityParam: raw.entity_param,
    ttlMs: raw.ttl,
    maxEntries: raw.max_entries ?? DEFAULT_PROTECT_MAX_ENTRIES,
  }));
}

function boundedNode(): Node<BoundedSettings> {
  const node = object(
    {
      schema: mapping({ description: 'The arguments: a JSON Schema or a field spec. `{}` means no arguments.' }),
      output_schema: optional(mapping({ description: 'Checked after the body ran.' })),
      allowed_paths: optional(
        list(filePath(), { description: 'Roots that path arguments must stay inside (relative to this file).' }),
      ),
      path_params: optional(names({ description: 'Top-level arguments that hold a path.' })),
      entity_pattern: optional(
        record(string({ patternText: 'a regular expression' }), {
          description: 'Top-level arguments that hold an entity id, and the pattern the id must match.',
        }),
      ),
    },
    { description: 'Argument and output validation, scoped paths and entity ids.' },
  );
  return map(node, (raw) => ({
    schema: raw.schema,
    ...defined({
      outputSchema: raw.output_schema,
      allowedPaths: raw.allowed_paths,
      pathParams: raw.path_params,
      entityPattern: raw.entity_pattern,
    }),
  }));
}

type RawEnvelope = {
  readonly side_effect_class?: ToolSettings['sideEffectClass'];
  readonly retry_permission?: ToolSettings['retryPermission'];
  readonly spendability?: ToolSettings['spendability'];
  readonly provider_idempotency_key_param?: string;
  readonly provider_idempotency_key_ttl?: number;
  readonly bookkeeping_params?: readonly string[];
  readonly capability?: ToolSettings['capability'];
  readonly lease_ttl?: number;
  readonly boundary?: ToolSettings['boundary'];
};

function envelopeSettings(raw: RawEnvelope): TaskSettings {
  return defined({
    sideEffectClass: raw.side_effect_class,
    retryPermission: raw.retry_permission,
    spendability: raw.spendability,
    providerIdempotencyKeyParam: raw.provider_idempotency_key_param,
    providerIdempotencyKeyTtlMs: raw.provider_idempotency_key_ttl,
    bookkeepingParams: raw.bookkeeping_params,
    capability: raw.capability,
    leaseTtlMs: raw.lease_ttl,
    boundary: raw.boundary,
  });
}

/** `tools.<name>`. */
export function toolNode(): Node<ToolSettings> {
  const node = object(
    {
      ...envelope(),
      identity: optional(
        oneOf(['call', 'intent'], {
          description:
            '`call` (default): the tool call id is part of the transition key. `intent`: the same arguments in the same run are one transition whatever the call id.',
        }),
      ),
      request_id_param: optional(
        name({
          description:
            "The argument whose value identifies the request (an order id); it keys the transition instead of the model's tool call id. A call without it is refused.",
        }),
      ),
      on_args_drift: optional(argsDrift({ description: 'Overrides `action_ledger.on_args_drift`.' })),
      permissions: optional(names({ description: 'Scopes the permission fuse requires for this tool.' })),
      protect: optional(protectNode()),
      bounded: optional(boundedNode()),
    },
    { description: 'A tool: its side-effect envelope and the guards around it.' },
  );
  return map(
    node,
    (raw): ToolSettings => ({
      ...envelopeSettings(raw),
      ...defined({
        identity: raw.identity,
        requestIdParam: raw.request_id_param,
        onArgsDrift: raw.on_args_drift,
        permissions: raw.permissions,
        protect: raw.protect,
        bounded: raw.bounded,
      }),
    }),
  );
}

/** `tasks.<name>`. */
export function taskNode(): Node<TaskSettings> {
  const node = object(
    {
      ...envelope(),
      id_from: optional(names({ minItems: 1, description: 'Argument fields whose values identify the task.' })),
    },
    { description: 'A ledgered task (default class `idempotent_mutate`).' },
  );
  return map(
    node,
    (raw): TaskSettings => ({
      ...envelopeSettings(raw),
      ...(raw.id_from === undefined ? {} : { idFrom: raw.id_from }),
    }),
  );
}
