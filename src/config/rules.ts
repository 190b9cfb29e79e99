/**
 * The rules that span sections, checked on parsed settings. Each finding names the key path it is
 * about, so it gets a line and column like any schema issue.
 */

import { allowedCapabilities } from '../ledger/tool-capability.js';
import { isConsequential } from '../records/envelope.js';
import { receiptStoresText, storeDriver } from '../storage/drivers.js';
import { checkBoundedTools } from './bounded-rules.js';
import { ledgeredTools } from './coverage.js';
import type { NodeIssue } from './schema/nodes.js';
import type { ConfigSettings, ToolSettings } from './types.js';

/** Tool settings that only the ledger reads: set on a tool it does not cover, they do nothing. */
const LEDGER_ONLY: readonly [keyof ToolSettings, string][] = [
  ['identity', 'identity'],
  ['requestIdParam', 'request_id_param'],
  ['retryPermission', 'retry_permission'],
  ['spendability', 'spendability'],
  ['providerIdempotencyKeyParam', 'provider_idempotency_key_param'],
  ['providerIdempotencyKeyTtlMs', 'provider_idempotency_key_ttl'],
  ['bookkeepingParams', 'bookkeeping_params'],
  ['capability', 'capability'],
  ['leaseTtlMs', 'lease_ttl'],
  ['onArgsDrift', 'on_args_drift'],
  ['boundary', 'boundary'],
];

type Rule = (settings: ConfigSettings, issues: NodeIssue[]) => void;

const needsTransition: Rule = (settings, issues) => {
  if (settings.transition !== undefined) return;
  for (const section of ['action_ledger', 'task_ledger'] as const) {
    const present = section === 'action_ledger' ? settings.actionLedger : settings.taskLedger;
    if (present === undefined) continue;
    issues.push({
      path: [section],
      target: 'key',
      message: `\`${section}\` needs a \`transition\` section (with \`agent_id\` and \`policy_version\`)`,
    });
  }
};

const sharedStoreExists: Rule = (settings, issues) => {
  if (settings.taskLedger?.store === 'action_ledger' && settings.actionLedger === undefined) {
    issues.push({
      path: ['task_ledger'],
      target: 'key',
      message: "`task_ledger` shares the action ledger's store, but there is no `action_ledger`; give it a `storage`",
    });
  }
};

const coverageNamesExist: Rule = (settings, issues) => {
  const coverages = [
    {
      at: ['action_ledger', 'tools'],
      names: settings.actionLedger?.tools,
      configured: settings.tools,
      unknown: (tool: string) =>
        `Tool \`${tool}\` is ledgered but not configured; add \`tools.${tool}.side_effect_class\``,
    },
    {
      at: ['task_ledger', 'tasks'],
      names: settings.taskLedger?.tasks,
      configured: settings.tasks,
      unknown: (task: string) => `Task \`${task}\` is ledgered but not configured under \`tasks\``,
    },
  ];
  for (const { at, names, configured, unknown } of coverages) {
    if (!Array.isArray(names)) continue;
    names.forEach((name, index) => {
      if (!Object.hasOwn(configured, name))
        issues.push({ path: [...at, index], target: 'value', message: unknown(name) });
    });
  }
  for (const task of Object.keys(settings.tasks)) {
    if (Object.hasOwn(settings.tools, task)) {
      issues.push({
        path: ['tasks', task],
        target: 'key',
        message: `\`${task}\` is configured both as a tool and as a task`,
      });
    }
  }
};

const toolEnvelopes: Rule = (settings, issues) => {
  const ledgered = new Set(ledgeredTools(settings));
  const production = settings.profile === 'production';
  for (const [name, tool] of Object.entries(settings.tools)) {
    const at = ['tools', name];
    if (ledgered.has(name) && tool.sideEffectClass === undefined) {
      issues.push({
        path: at,
        target: 'key',
        message: `Tool \`${name}\` is ledgered (\`action_ledger.tools\`) and must declare \`side_effect_class\``,
      });
    }
    if (!ledgered.has(name)) {
      for (const [field, key] of LEDGER_ONLY) {
        if (tool[field] === undefined) continue;
        issues.push({
          path: [...at, key],
          target: 'key',
          message: `\`${key}\` has no effect: tool \`${name}\` is not ledgered (add it to \`action_ledger.tools\`)`,
        });
      }
    }
    if (tool.identity === 'intent' && tool.requestIdParam !== undefined) {
      issues.push({
        path: [...at, 'request_id_param'],
        target: 'key',
        message:
          '`request_id_param` keys a transition by a request id and `identity: intent` by the arguments alone; choose one',
      });
    }
    if (tool.providerIdempotencyKeyTtlMs !== undefined && tool.providerIdempotencyKeyParam === undefined) {
      issues.push({
        path: [...at, 'provider_idempotency_key_ttl'],
        target: 'key',
        message: '`provider_idempotency_key_ttl` needs `provider_idempotency_key_param`',
      });
    }
    const capability = tool.capability;
    if (capability !== undefined && tool.sideEffectClass !== undefined) {
      // A reconciler is given in code, so only what no reconciler can make allowed is refused here.
      const mechanisms = { reconciler: true, providerKey: tool.providerIdempotencyKeyParam !== undefined };
      const allowed = allowedCapabilities(tool.sideEffectClass, mechanisms);
      if (!allowed.includes(capability)) {
        issues.push({
          path: [...at, 'capability'],
          target: 'value',
          message: `Tool \`${name}\` (\`${tool.sideEffectClass}\`) cannot declare capability \`${capability}\`: it is looser than the class allows (allowed: ${allowed.map((c) => `\`${c}\``).join(', ')})`,
        });
      }
    }
    if (tool.protect !== undefined && tool.sideEffectClass !== 'read') {
      const is = tool.sideEffectClass === undefined ? 'declares no class' : `is \`${tool.sideEffectClass}\``;
      issues.push({
        path: [...at, 'protect'],
        target: 'key',
        message: `\`protect\` caches results, so only \`read\` tools may use it (\`${name}\` ${is})`,
      });
    }
    if (tool.permissions !== undefined && settings.fuses?.permission === undefined) {
      issues.push({
        path: [...at, 'permissions'],
        target: 'key',
        message: '`permissions` has no effect without `fuses.permission`',
      });
    }
    const cls = tool.sideEffectClass;
    const explicit = tool.identity === 'intent' || tool.requestIdParam !== undefined;
    if (production && ledgered.has(name) && cls !== undefined && isConsequential(cls) && !explicit) {
      issues.push({
        path: at,
        target: 'key',
        message: `The production profile needs an explicit request identity for \`${name}\` (\`${cls}\`): set \`identity: intent\` or \`request_id_param: <argument>\``,
      });
    }
  }
};

const receiptRules: Rule = (settings, issues) => {
  const receipts = settings.receipts;
  if (receipts === undefined) return;
  if (settings.actionLedger === undefined && settings.taskLedger === undefined) {
    issues.push({
      path: ['receipts'],
      target: 'key',
      message: '`receipts` has no effect without `action_ledger` or `task_ledger`',
    });
  }
  const kind = settings.actionLedger?.store.kind;
  if (receipts.path === undefined && (kind === undefined || !storeDriver(kind).keepsReceipts)) {
    issues.push({
      path: ['receipts'],
      target: 'key',
      message: `Receipts need a \`path\` (a JSONL file) unless the action ledger is on ${receiptStoresText()}`,
    });
  }
  if (settings.profile === 'production' && 'value' in receipts.key) {
    issues.push({
      path: ['receipts', 'key'],
      target: 'key',
      message: 'The production profile refuses a signing key written in the file; use `key_env` or `key_file`',
    });
  }
};

const budgetPrices: Rule = (settings, issues) => {
  const budget = settings.fuses?.budget;
  if (budget?.maxUsd === undefined || budget.strictPricing === false) return;
  if (budget.price === undefined && budget.prices === undefined) {
    issues.push({
      path: ['fuses', 'budget', 'max_usd'],
      target: 'key',
      message:
        '`max_usd` needs a `price` or `prices`: a model without a price is refused (or set `strict_pricing: false`)',
    });
  }
};

const runnerNeedsRegistry: Rule = (settings, issues) => {
  if (settings.runner !== undefined && settings.registry === undefined) {
    issues.push({ path: ['runner'], target: 'key', message: '`runner` needs a `registry` (the tools it may call)' });
  }
};

/** Production never takes an expired claim of a consequential class over on its lease expiry alone. */
const deathEvidenceInProduction: Rule = (settings, issues) => {
  if (settings.profile === 'production' && settings.transition?.reclaimRequiresDeathSignal === false) {
    issues.push({
      path: ['transition', 'reclaim_requires_death_signal'],
      target: 'value',
      message:
        'The production profile needs worker-death evidence for consequential classes: use `consequential` (the default) or `true`, not `false`',
    });
  }
};

const RULES: readonly Rule[] = [
  runnerNeedsRegistry,
  deathEvidenceInProduction,
  needsTransition,
  sharedStoreExists,
  coverageNamesExist,
  toolEnvelopes,
  receiptRules,
  budgetPrices,
  checkBoundedTools,
];

/** Every cross-section finding of `settings`. */
export function checkRules(settings: ConfigSettings): NodeIssue[] {
  const issues: NodeIssue[] = [];
  for (const rule of RULES) rule(settings, issues);
  return issues;
}
