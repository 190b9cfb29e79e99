/**
 * The guard sections: `receipts`, `registry`, `runner`, `fuses`, `history_guard`, `transcript`.
 */

import { defined } from '../defined.js';
import type {
  FusesSettings,
  HistoryGuardSettings,
  PriceSettings,
  ReceiptsSettings,
  RunnerSettings,
  TranscriptSettings,
} from '../types.js';
import { filePath, names } from './common-nodes.js';
import { object, record } from './composite-nodes.js';
import { boolean, makeLeaf, map, type Node, number, oneOf, optional, string } from './nodes.js';

/** `receipts`: signed, hash-chained receipts of every terminal outcome and release. */
export function receiptsNode(): Node<ReceiptsSettings> {
  const node = object(
    {
      algorithm: oneOf(['hmac-sha256', 'ed25519'], { description: 'How receipts are signed.' }),
      key: optional(
        string({ description: 'The signing key itself (HMAC secret, or Ed25519 private key PEM). Prefer `key_env`.' }),
      ),
      key_env: optional(
        string({
          description: 'Environment variable holding the signing key.',
          pattern: '^[A-Za-z_][A-Za-z0-9_]*$',
          patternText: 'an environment variable name',
        }),
      ),
      key_file: optional(filePath({ description: 'File holding the signing key (relative to this config file).' })),
      key_id: string({ description: 'Key id written into every receipt, so a verifier picks the right key.' }),
      path: optional(
        filePath({
          description:
            "JSONL file the receipts are appended to. Without it, receipts go to the action ledger's SQL store.",
        }),
      ),
    },
    { description: 'Signed, hash-chained receipts.', exactlyOne: [['key', 'key_env', 'key_file']] },
  );
  return map(node, (raw) => ({
    algorithm: raw.algorithm,
    key:
      raw.key_env !== undefined
        ? { env: raw.key_env }
        : raw.key_file !== undefined
          ? { file: raw.key_file }
          : { value: raw.key as string },
    keyId: raw.key_id,
    ...(raw.path === undefined ? {} : { path: raw.path }),
  }));
}

function trueOnly(description: string): Node<true> {
  return makeLeaf(
    '`true`',
    description,
    () => ({ const: true }),
    (value) => value === true,
  );
}

/** `registry` before `auto` is resolved: the allow list, or `auto: true`. */
export interface RawRegistry {
  readonly allowed?: readonly string[];
  readonly auto?: true;
}

/** `registry`. */
export function registryNode(): Node<RawRegistry> {
  return object(
    {
      allowed: optional(names({ description: 'The only tool names that may be registered and called.' })),
      auto: optional(trueOnly('Allow exactly the tools configured under `tools`.')),
    },
    { description: 'The tool allow list (deny by default).', exactlyOne: [['allowed', 'auto']] },
  );
}

/** `runner`. */
export function runnerNode(): Node<RunnerSettings> {
  const node = object(
    {
      max_llm_retries: optional(
        number({
          integer: true,
          minimum: 0,
          description:
            'Times the model is asked again after a refused call or an output that kept failing (default 2).',
        }),
      ),
      max_tool_retries: optional(
        number({
          integer: true,
          minimum: 0,
          description: 'Times a `read`/`idempotent_mutate` body is re-run after a failure (default 2).',
        }),
      ),
    },
    { description: 'The LLM-retry tool runner.' },
  );
  return map(node, (raw) => defined({ maxLlmRetries: raw.max_llm_retries, maxToolRetries: raw.max_tool_retries }));
}

function priceNode(): Node<PriceSettings> {
  const usd = (description: string) => number({ minimum: 0, description });
  const node = object({
    input_per_1k: usd('US dollars per 1,000 input tokens.'),
    output_per_1k: usd('US dollars per 1,000 output tokens.'),
    cached_input_per_1k: optional(usd('Cached input (default: the input price).')),
    cache_write_input_per_1k: optional(usd('Cache writes (default: the input price).')),
  });
  return map(node, (raw) => ({
    inputPer1k: raw.input_per_1k,
    outputPer1k: raw.output_per_1k,
    ...defined({ cachedInputPer1k: raw.cached_input_per_1k, cacheWriteInputPer1k: raw.cache_write_input_per_1k }),
  }));
}

/** `fuses`. */
export function fusesNode(): Node<FusesSettings> {
  const count = (description: string, minimum: number) => optional(number({ integer: true, minimum, description }));
  const node = object(
    {
      permission: optional(
        object({
          granted: names({ description: 'Scopes granted to every run, e.g. `[read]`.' }),
          allow_unknown_tools: optional(
            boolean({ description: 'Let tools missing from `tools` run (default `false`).' }),
          ),
          max_denials: count('Denials in one run that stop it (default 3).', 1),
        }),
      ),
      loop: optional(
        object({
          repeat_threshold: count('The Nth identical call without a new result is refused (default 3).', 2),
          max_cycle_length: count('Longest cycle period detected (default 4; 1 turns cycle detection off).', 1),
          allowances: optional(
            record(number({ integer: true, minimum: 2 }), {
              description: 'Per-tool repeat thresholds for polling tools.',
            }),
          ),
          window: count('How many recent calls are remembered (default 64).', 2),
          retry_allowance: count('Identical retries of a failed call that are not repeats (default 2).', 0),
          terminal: optional(boolean({ description: 'A loop refusal ends the run (default `true`).' })),
        }),
      ),
      budget: optional(
        object({
          max_usd: optional(number({ minimum: 0, description: 'Dollar ceiling of one run.' })),
          max_tokens: optional(number({ integer: true, minimum: 0, description: 'Token ceiling of one run.' })),
          price: optional(priceNode()),
          prices: optional(record(priceNode(), { description: 'Prices by exact model name.' })),
          strict_pricing: optional(boolean({ description: 'Refuse a model without a price (default `true`).' })),
          terminal: optional(boolean({ description: 'A ceiling refusal ends the run (default `true`).' })),
        }),
      ),
    },
    { description: 'Permission, loop and budget fuses; each run gets its own state.' },
  );
  return map(
    node,
    (raw): FusesSettings => ({
      ...(raw.permission === undefined
        ? {}
        : {
            permission: {
              granted: raw.permission.granted,
              ...defined({
                allowUnknownTools: raw.permission.allow_unknown_tools,
                maxDenials: raw.permission.max_denials,
              }),
            },
          }),
      ...(raw.loop === undefined
        ? {}
        : {
            loop: defined({
              repeatThreshold: raw.loop.repeat_threshold,
              maxCycleLength: raw.loop.max_cycle_length,
              allowances: raw.loop.allowances,
              window: raw.loop.window,
              terminal: raw.loop.terminal,
              retryAllowance: raw.loop.retry_allowance,
            }),
          }),
      ...(raw.budget === undefined
        ? {}
        : {
            budget: defined({
              maxUsd: raw.budget.max_usd,
              maxTokens: raw.budget.max_tokens,
              price: raw.budget.price,
              prices: raw.budget.prices,
              strictPricing: raw.budget.strict_pricing,
              terminal: raw.budget.terminal,
            }),
          }),
    }),
  );
}

/** `history_guard`. */
export function historyGuardNode(): Node<HistoryGuardSettings> {
  const node = object(
    {
      max_tokens: optional(
        number({ integer: true, minimum: 1, description: 'Refuse a history longer than this many tokens.' }),
      ),
      max_messages: optional(
        number({ integer: true, minimum: 1, description: 'Refuse a history with more messages.' }),
      ),
      warn_at: optional(
        number({
          exclusiveMinimum: 0,
          maximum: 1,
          description: 'Fraction of a limit that reports `near_limit` (default 0.8).',
        }),
      ),
      duplicates: optional(
        oneOf(['adjacent', 'anywhere', 'off'], { description: 'Where duplicate turns are looked for.' }),
      ),
      on_duplicate: optional(
        oneOf(['report', 'raise'], {
          description:
            '`raise` (default): a duplicated turn refuses the history; `report`: duplicates are events only.',
        }),
      ),
      model: optional(string({ description: 'Model the token counter counts for.' })),
      tokenizer: optional(
        oneOf(['chars', 'gpt'], { description: '`chars` (4 characters a token, default) or `gpt` (gpt-tokenizer).' }),
      ),
    },
    { description: 'Loud limits on history size, duplicate turns.' },
  );
  return map(node, (raw) => ({
    ...defined({
      maxTokens: raw.max_tokens,
      maxMessages: raw.max_messages,
      warnAt: raw.warn_at,
      duplicates: raw.duplicates,
      onDuplicate: raw.on_duplicate,
      model: raw.model,
    }),
    tokenizer: raw.tokenizer ?? 'chars',
  }));
}

/** `transcript`. */
export function transcriptNode(): Node<TranscriptSettings> {
  const node = object(
    {
      repair: optional(boolean({ description: 'Repair orphan results and unanswered calls (default `true`).' })),
      unanswered: optional(
        oneOf(['synthesize', 'drop'], {
          description: 'A call with no result: answer it as NOT executed (default) or drop it.',
        }),
      ),
      validate: optional(boolean({ description: 'Refuse a transcript that is still invalid (default `true`).' })),
      format: optional(
        oneOf(['openai', 'ai-sdk', 'anthropic'], { description: 'Message format (detected when omitted).' }),
      ),
    },
    { description: 'Transcript validation and repair before each model call.' },
  );
  return map(node, (raw) => ({
    repair: raw.repair ?? true,
    unanswered: raw.unanswered ?? 'synthesize',
    validate: raw.validate ?? true,
    ...(raw.format === undefined ? {} : { format: raw.format }),
  }));
}
