/**
 * The files `hyphae init` writes: the on-ramp (default), the full reference and the minimal one.
 * Each starts with the `yaml-language-server` line that points editors at `hyphae.schema.json`.
 */

/** Which scaffold to write. */
export type InitTemplate = 'onramp' | 'full' | 'minimal';

/** The environment variable the full reference reads its receipt key from. */
export const RECEIPT_KEY_ENV = 'HYPHAE_RECEIPT_KEY';

function header(schemaRef: string): string {
  return `# yaml-language-server: $schema=${schemaRef}\n`;
}

const ONRAMP = `#
# hyphae: one side-effecting tool on an embedded SQLite ledger.
# Every key is described in docs/config.md; \`hyphae doctor\` checks this file and its stores.

profile: development # \`production\` refuses stores that die with the process, and implicit identities

# The transition ledger: one intent executes once, however often a framework dispatches it.
transition:
  agent_id: my-agent # TODO: name this agent; it is part of every transition key
  policy_version: '1' # TODO: bump it when a tool's behaviour changes (new transitions start)
  lease_ttl: 5m # how long a claim holds before another worker may act

action_ledger:
  storage: sqlite
  path: .hyphae/ledger.db # relative to this file; created on first use
  tools: all # every tool under \`tools\` is ledgered

tools:
  # TODO: rename this to your side-effecting tool and say how it touches the world:
  # read | idempotent_mutate | keyed_mutate | non_idempotent_mutate | irreversible
  # (or an alias: payment, email, subagent, ...).
  send_email:
    side_effect_class: email # non_idempotent_mutate: never re-sent automatically
    identity: intent # the same arguments in one run are one email, whatever the call id

# Only the tools above may run: a tool the model was never granted is refused.
registry:
  auto: true

# A model repeating a call is stopped. Fuses count per run: call the tools inside
# \`config.run({ threadId }, …)\`.
fuses:
  loop:
    repeat_threshold: 3 # the 3rd identical call without a new result is refused
    terminal: true # and the run ends
`;

const MINIMAL = `transition:
  agent_id: my-agent
  policy_version: '1'
action_ledger:
  storage: sqlite
  path: .hyphae/ledger.db
tools: {}
`;

const FULL = `#
# hyphae: the full reference. Every section, with the values it defaults to or a sensible one.
# Every key is described in docs/config.md; \`hyphae doctor\` checks this file and its stores.

# \`development\` or \`production\`. Production refuses, for side-effecting tools, a store whose
# records do not outlive the process (memory, SQLite \`:memory:\`, a file in the temp directory),
# a signing key written in this file, and consequential tools without an explicit identity.
profile: development

transition:
  agent_id: payments-agent # part of every transition key
  policy_version: '2026.07.1' # a new version starts new transitions
  lease_ttl: 5m # a claim holds this long before another worker may act (> 0)
  lease_renew_interval: 100s # a running call renews its lease this often (default a third)
  poll_timeout: 30m # how long a caller waits while another owner renews its lease (default; never shorter than the lease)
  reconcile_timeout: 10s # a slower reconciler counts as UNKNOWN
  defer_read_only_unknown: false # true: raise instead of retrying a read met by UNKNOWN
  # request_identity: require_explicit # refuse a consequential call without a call id (the production default)

action_ledger:
  storage: sqlite # memory | sqlite | redis | postgres
  path: .hyphae/ledger.db # sqlite: the database file, relative to this file
  synchronous: FULL # sqlite: FULL survives power loss; NORMAL only a crash
  table_prefix: hyphae_ # sqlite and postgres
  # storage: redis
  # url_env: REDIS_URL # or url: redis://127.0.0.1:6379 ; prefix: 'hyphae:'
  # storage: postgres
  # dsn_env: DATABASE_URL # or dsn: postgres://... ; schema: public
  tools: all # or a list: [send_payment]
  on_args_drift: soft # a call id reused with other arguments: soft | hard | off

task_ledger:
  storage: action_ledger # share the action ledger's store (the default), or a store of its own
  tasks: all
  lease_ttl: 15m

run_snapshots:
  storage: sqlite # memory | sqlite
  path: .hyphae/runs.db

receipts:
  algorithm: hmac-sha256 # hmac-sha256 | ed25519 (key = PEM private key)
  key_env: ${RECEIPT_KEY_ENV} # or key_file: secrets/receipts.key (key: ... is refused in production)
  key_id: receipts-2026-07 # written into every receipt
  path: .hyphae/receipts.jsonl # without it, receipts go to the action ledger's SQL store

tools:
  send_payment:
    side_effect_class: keyed_mutate # a payment with a provider key: retried only with the same key
    provider_idempotency_key_param: idempotency_key # left out of the args fingerprint
    provider_idempotency_key_ttl: 10m # UNKNOWN may retry with the same key inside this window
    request_id_param: order_id # the order id, not the model's call id, identifies the payment
    bookkeeping_params: [trace_id]
    lease_ttl: 2m
    on_args_drift: hard
    permissions: [spend_money]
    bounded:
      schema:
        order_id: { type: string, pattern: '^o-[0-9]+$' }
        amount: { type: integer, minimum: 1 }
        idempotency_key: { type: string }
        trace_id: { type: string, required: false }
  lookup_order:
    side_effect_class: read
    identity: call # the default: each tool call id is its own transition
    permissions: [read]
    protect:
      entity_param: order_id
      ttl: 60s
      max_entries: 500
    bounded:
      schema:
        order_id: { type: string }
      output_schema:
        type: object
        required: [order_id]
      entity_pattern:
        order_id: '^o-[0-9]+$'
  read_file:
    side_effect_class: read
    permissions: [read]
    bounded:
      schema:
        path: { type: string }
      path_params: [path]
      allowed_paths: [./workspace]

tasks:
  process_invoice:
    id_from: [invoice_id] # the task's identity
    side_effect_class: idempotent_mutate # the default for tasks

registry:
  auto: true # allow exactly the tools above; or allowed: [send_payment, lookup_order]

runner:
  max_llm_retries: 2
  max_tool_retries: 2

fuses:
  permission:
    granted: [read, spend_money]
    allow_unknown_tools: false
    max_denials: 3
  loop:
    repeat_threshold: 3
    max_cycle_length: 4
    allowances: { lookup_order: 10 }
    terminal: true # a loop refusal ends the run (the default)
  budget:
    max_usd: 0.5
    max_tokens: 200000
    strict_pricing: true
    price: { input_per_1k: 0.0025, output_per_1k: 0.01 }
    prices:
      gpt-4o-mini: { input_per_1k: 0.00015, output_per_1k: 0.0006, cached_input_per_1k: 0.000075 }

history_guard:
  max_tokens: 100000
  max_messages: 400
  warn_at: 0.8
  duplicates: adjacent # adjacent | anywhere | off
  tokenizer: chars # chars | gpt
  model: gpt-4o

transcript:
  repair: true
  unanswered: synthesize # synthesize | drop
  validate: true
  format: openai # openai | ai-sdk | anthropic (detected when omitted)
`;

/**
 * The text of a scaffold.
 *
 * @param schemaRef where editors find `hyphae.schema.json`, relative to the written file.
 */
export function renderInitTemplate(template: InitTemplate, schemaRef: string): string {
  const body = template === 'full' ? FULL : template === 'minimal' ? MINIMAL : ONRAMP;
  return header(schemaRef) + body;
}
