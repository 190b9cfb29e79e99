/**
 * `mcp`: the policy of `hyphae mcp`, the guarding proxy in front of an MCP server — who calls, which
 * tools are visible, how a retried call is recognised, and per-tool overrides of what the server's
 * annotations say.
 */
import type { McpToolPolicy } from '../../boundary/mcp-tool-policy.js';
import { defined } from '../defined.js';
import type { McpSettings } from '../types.js';
import { duration, filePath, names, sideEffectClass } from './common-nodes.js';
import { list, object, record } from './composite-nodes.js';
import { boolean, map, mapping, type Node, number, oneOf, optional, string } from './nodes.js';

/** Default window in which a repeated side-effecting call with the same arguments is a retry: ten minutes. */
export const DEFAULT_MCP_RETRY_WINDOW_MS = 600_000;
/** The default `mcp.drain`: 30 s. */
export const DEFAULT_MCP_DRAIN_MS = 30_000;

const SECRETS = ['refuse', 'redact', 'off'] as const;
const CANCEL = ['finish', 'forward'] as const;

function mcpToolNode(): Node<McpToolPolicy> {
  const node = object(
    {
      side_effect_class: optional(
        sideEffectClass({ description: "Overrides the class the server's annotations suggest." }),
      ),
      permissions: optional(
        names({ description: "Scopes the permission fuse requires; overrides the annotations' default." }),
      ),
      schema: optional(
        mapping({
          description: "A field spec or JSON Schema checked in addition to the server's `inputSchema`.",
        }),
      ),
      allowed_paths: optional(
        list(filePath(), { description: 'Roots that path arguments must stay inside (relative to this file).' }),
      ),
      path_params: optional(names({ description: 'Top-level arguments that hold a path.' })),
      secrets: optional(
        oneOf(SECRETS, {
          description: 'What a credential in the arguments or the result does (default: `mcp.secrets`).',
        }),
      ),
      approval: optional(
        oneOf(['required', 'none'], { description: '`required`: a person approves every call before it runs.' }),
      ),
      cost_usd: optional(number({ minimum: 0, description: 'What one call costs, for `mcp.budget.max_usd`.' })),
    },
    { description: 'One upstream tool: overrides of its annotations and the guards around it.' },
  );
  return map(
    node,
    (raw): McpToolPolicy =>
      defined({
        sideEffectClass: raw.side_effect_class,
        permissions: raw.permissions,
        schema: raw.schema,
        allowedPaths: raw.allowed_paths,
        pathParams: raw.path_params,
        secrets: raw.secrets,
        approval: raw.approval,
        costUsd: raw.cost_usd,
      }),
  );
}

/** The `mcp` section. */
export function mcpNode(): Node<McpSettings> {
  const node = object(
    {
      principal: optional(
        string({ description: 'Who calls through this proxy; part of every ledger scope (default `default`).' }),
      ),
      session: optional(
        string({
          description:
            'The session a retried call must share to be recognised; keep it stable across restarts (default `default`).',
        }),
      ),
      allow: optional(
        names({ description: 'The tools the client may see and call; absent: every tool the server lists.' }),
      ),
      retry_window: optional(
        duration({
          description:
            'A side-effecting call with the same arguments within this window of the first is a retry and gets the stored result (default `10m`).',
        }),
      ),
      pinning: optional(
        boolean({ description: 'Pin each tool definition and quarantine a changed one (default `true`).' }),
      ),
      secrets: optional(
        oneOf(SECRETS, {
          description: 'What a credential in arguments, results or resource reads does (default `refuse`).',
        }),
      ),
      budget: optional(
        object(
          {
            max_calls: optional(number({ integer: true, minimum: 1, description: 'Most tool calls in one session.' })),
            max_usd: optional(
              number({ minimum: 0, description: 'Most spent on tool calls (their `cost_usd`) in one session.' }),
            ),
          },
          { description: 'Limits on the tool calls of one session.' },
        ),
      ),
      cooldown: optional(
        duration({
          description:
            'How long a stopped session (budget spent, too many permission denials) stays stopped; then its budget, denials and loop window start over (default: until the client starts a new session).',
        }),
      ),
      cancel: optional(
        oneOf(CANCEL, {
          description:
            "What a client's cancellation of a `keyed_mutate`, `non_idempotent_mutate` or `irreversible` call does: `finish` lets it run to its end and records the result for the retry, `forward` passes the cancellation upstream and records the call as UNKNOWN (default `finish`).",
        }),
      ),
      drain: optional(
        duration({
          description:
            'How long the proxy waits, when it stops, for guarded calls still running upstream, so their outcomes are recorded (default `30s`; `0s` waits for none).',
          positive: false,
        }),
      ),
      tools: optional(record(mcpToolNode(), { description: 'Per-tool policy, by the upstream tool name.' })),
    },
    { description: 'The guarding MCP proxy `hyphae mcp`.' },
  );
  return map(
    node,
    (raw): McpSettings => ({
      principal: raw.principal ?? 'default',
      session: raw.session ?? 'default',
      ...(raw.allow === undefined ? {} : { allow: raw.allow }),
      retryWindowMs: raw.retry_window ?? DEFAULT_MCP_RETRY_WINDOW_MS,
      pinning: raw.pinning ?? true,
      secrets: raw.secrets ?? 'refuse',
      budget: defined({ maxCalls: raw.budget?.max_calls, maxUsd: raw.budget?.max_usd }),
      ...(raw.cooldown === undefined ? {} : { cooldownMs: raw.cooldown }),
      cancel: raw.cancel ?? 'finish',
      drainMs: raw.drain ?? DEFAULT_MCP_DRAIN_MS,
      tools: raw.tools ?? {},
    }),
  );
}
