/**
 * The fuses of an MCP session: the permission fuse over the catalogue's current tools (the scopes
 * each needs change when the server's list does), the loop fuse, and a budget on tool calls.
 */
import { allOf } from '../../fuses/combinators.js';
import { createFuseBox, type FuseBox } from '../../fuses/fuse-box.js';
import { type LoopFuseOptions, loopFuse } from '../../fuses/loop.js';
import { permissionFuse } from '../../fuses/permission.js';
import type { ToolFuse, ToolFuseRun } from '../../fuses/tool-fuse.js';
import { ALLOWED, refusal, sentences } from '../../fuses/verdict.js';
import type { Catalogue } from './catalogue.js';
import { DEFAULT_GRANTED, type McpPolicy } from './policy.js';

/**
 * The permission fuse of the catalogue's usable tools. When the catalogue changes, each run moves
 * to a fuse built for the new list and keeps its denial count.
 */
function cataloguePermission(catalogue: Catalogue, policy: McpPolicy): ToolFuse {
  let built: { readonly version: number; readonly fuse: ToolFuse } | undefined;
  const current = (): ToolFuse => {
    if (built?.version !== catalogue.version) {
      const tools: Record<string, readonly string[]> = {};
      for (const entry of catalogue.usable()) tools[entry.definition.name] = entry.permissions;
      const fuse = permissionFuse({
        granted: policy.granted ?? DEFAULT_GRANTED,
        tools,
        ...(policy.maxDenials === undefined ? {} : { maxDenials: policy.maxDenials }),
      });
      built = { version: catalogue.version, fuse };
    }
    return built.fuse;
  };
  return {
    name: 'permission',
    start: function startCataloguePermission(): ToolFuseRun {
      let version = -1;
      let run: ToolFuseRun | undefined;
      let carried = 0;
      const inner = (): ToolFuseRun => {
        if (run === undefined || version !== catalogue.version) {
          carried += run?.stats().denials ?? 0;
          run = current().start();
          version = catalogue.version;
        }
        return run;
      };
      return {
        check: (call) => inner().check(call),
        commit: (call, verdict) => inner().commit(call, verdict),
        recordResult: (call, fingerprint, ok) => inner().recordResult(call, fingerprint, ok),
        reset() {
          carried = 0;
          inner().reset();
        },
        stats: () => ({ denials: carried + (inner().stats().denials ?? 0) }),
      };
    },
  };
}

/** At most `maxCalls` tool calls and `maxUsd` of their `cost_usd` in one session. */
function toolBudget(catalogue: Catalogue, policy: McpPolicy): ToolFuse | undefined {
  const { maxCalls, maxUsd } = policy.budget ?? {};
  if (maxCalls === undefined && maxUsd === undefined) return undefined;
  return {
    name: 'budget',
    start: function startToolBudget(): ToolFuseRun {
      let calls = 0;
      let spent = 0;
      const costOf = (name: string): number => catalogue.get(name)?.policy.costUsd ?? 0;
      return {
        check(call) {
          const cost = costOf(call.name);
          const overCalls = maxCalls !== undefined && calls + 1 > maxCalls;
          const overUsd = maxUsd !== undefined && spent + cost > maxUsd;
          if (!overCalls && !overUsd) return ALLOWED;
          const limit = overCalls ? `${maxCalls} tool calls` : `$${maxUsd} of tool calls`;
          return refusal({
            fuse: 'budget',
            code: overCalls ? 'budget_calls_exceeded' : 'budget_usd_exceeded',
            reason: `Tool call \`${call.name}\` would exceed the session budget of ${limit} (calls ${calls}, spent $${spent})`,
            note: sentences(
              `The call to \`${call.name}\` was NOT executed: this session has used its budget of ${limit}`,
              'Do not retry it; tell the user the budget is spent',
            ),
            terminal: true,
            evidence: { tool: call.name, calls, spentUsd: spent, costUsd: cost },
          });
        },
        commit(call, verdict) {
          if (!verdict.allowed) return;
          calls++;
          spent += costOf(call.name);
        },
        recordResult() {},
        reset() {
          calls = 0;
          spent = 0;
        },
        stats: () => ({ calls, spentUsd: spent }),
      };
    },
  };
}

/**
 * The fuse box of the MCP guards: permission, then loop and the tool-call budget. A loop refusal
 * refuses the call and its repeats but never stops the session (`terminal` is always `false`): an
 * MCP session is a client's whole day, and its other calls are not part of the loop.
 */
export function createSessionFuses(catalogue: Catalogue, policy: McpPolicy, loop: LoopFuseOptions = {}): FuseBox {
  const budget = toolBudget(catalogue, policy);
  const loopFuses = loopFuse({ ...loop, terminal: false });
  return createFuseBox({
    permission: cataloguePermission(catalogue, policy),
    loop: budget === undefined ? loopFuses : allOf(loopFuses, budget),
    keepLog: false,
  });
}
