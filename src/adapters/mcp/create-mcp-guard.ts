/**
 * The MCP guard: one upstream server's catalogue, its session fuses and the guard pipeline, and the
 * handling of a `tools/call` through them — registry → fuses → argument validation → ledger →
 * the upstream call → secrets and output validation → ledger complete → receipt.
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from '../../core/clock.js';
import { systemClock } from '../../core/clock.js';
import { fingerprint } from '../../core/fingerprint.js';
import type { LoopFuseOptions } from '../../fuses/loop.js';
import { checkOptions } from '../../invalid-argument.js';
import { sideEffect } from '../../ledger/boundary-markers.js';
import type { Ledger } from '../../ledger/types.js';
import type { DecisionVerdict } from '../../records/decision.js';
import { isConsequential } from '../../records/envelope.js';
import { createGuardPipeline } from '../pipeline.js';
import type { GuardRun } from '../shared/run-types.js';
import type { GuardEvent } from '../shared/types.js';
import { decideApproval, type McpElicit } from './approvals.js';
import { callTicket, idempotencyKeyOf, markDelivered } from './call-identity.js';
import { type Catalogue, createCatalogue } from './catalogue.js';
import { createPinStore, type PinStore } from './pins.js';
import { DEFAULT_GRANTED, type McpCancelAction, type McpPolicy, type McpSecretsAction } from './policy.js';
import { scanResource } from './resource-results.js';
import { scanSecrets } from './secrets.js';
import { createSessionFuses } from './session-fuses.js';
import { createSessionStop } from './session-stop.js';
import { answerOf, refusalResult } from './tool-results.js';
import type { JsonRpcErrorObject, JsonRpcId, McpCallToolResult, McpToolDefinition } from './types.js';

/** Default retry window of intent identity: ten minutes. */
const DEFAULT_RETRY_WINDOW_MS = 600_000;

/** What the MCP guard reports; never an argument or a result. */
export type McpGuardEvent =
  | GuardEvent
  | {
      readonly type: 'secret_found';
      readonly tool: string;
      readonly where: 'arguments' | 'result';
      readonly kinds: readonly string[];
      readonly action: McpSecretsAction;
    }
  | {
      readonly type: 'secret_found';
      readonly where: 'resource';
      /** The URI read, any credential in it redacted. */
      readonly resource: string;
      readonly kinds: readonly string[];
      readonly action: McpSecretsAction;
    }
  | {
      readonly type: 'tools_observed';
      readonly usable: number;
      /** Listed tools the client does not see: outside `mcp.allow`, quarantined, or no pin store. */
      readonly hidden: readonly string[];
      /** Listed tools every call to which is refused, and why: a schema the proxy cannot compile. */
      readonly broken: readonly { readonly tool: string; readonly reason: string }[];
      /** Usable tools that need scopes the session was not granted, and those scopes. */
      readonly ungranted: readonly { readonly tool: string; readonly missing: readonly string[] }[];
      /** The scopes granted to the session. */
      readonly granted: readonly string[];
    };

/** Options of {@link createMcpGuard}. */
export interface McpGuardOptions {
  readonly policy?: McpPolicy;
  /** Runs each side-effecting call once per transition, and keeps the tool pins. */
  readonly ledger?: Ledger;
  /** Options of the loop fuse (default: its defaults). */
  readonly loop?: LoopFuseOptions;
  /** The upstream server's name for pin keys, when known before `initialize` (else `setServer`). */
  readonly server?: string;
  readonly clock?: Clock;
  /** Receives events (tool call outcomes, secrets found, tool lists); a throwing hook is ignored. */
  readonly onEvent?: (event: McpGuardEvent) => void;
}

/** A `tools/call` as the guard sees it. */
export interface McpToolCall {
  readonly name: string;
  readonly args: unknown;
  /** The request's `_meta` (the client's idempotency key, a progress token). */
  readonly meta?: unknown;
  /** The JSON-RPC id of the request. */
  readonly rpcId: JsonRpcId;
  /** Aborted when the client cancels the call. */
  readonly signal?: AbortSignal;
  /** Ask the client's user (when the client supports elicitation), for tools that need approval. */
  readonly elicit?: McpElicit;
}

/** Send a call upstream: resolves with its result, throws `McpUpstreamError` for a JSON-RPC error. */
export type McpForward = (args: unknown, signal: AbortSignal | undefined) => Promise<McpCallToolResult>;

/**
 * What answers a `tools/call`: a tool result (a refusal too), or the upstream's own JSON-RPC error;
 * and `delivered`, to call once the answer was handed to the client (see {@link McpGuard.callTool}).
 */
export type McpAnswer = ({ readonly result: McpCallToolResult } | { readonly error: JsonRpcErrorObject }) & {
  readonly delivered?: () => Promise<void>;
};

/** The guards of one upstream MCP server. */
export interface McpGuard {
  readonly catalogue: Catalogue;
  /** The pin store (on the ledger's store), when pinning is on. */
  readonly pins: PinStore | undefined;
  /** Name the upstream server (its `serverInfo.name`) before its tools are observed. */
  setServer(name: string): void;
  /** Learn a listing: a full one (`replace`) or one page (`merge`). */
  observeTools(tools: readonly McpToolDefinition[], mode: 'replace' | 'merge'): Promise<void>;
  /** The tools of a listing the client may see. */
  visibleTools(tools: readonly McpToolDefinition[]): McpToolDefinition[];
  /**
   * Guard one `tools/call`; never throws. Call the answer's `delivered()` once the answer was handed
   * to the client's transport: until then an identical call is a retry of this one and gets its
   * result; after it, an identical call is a new call. Never rejects.
   */
  callTool(call: McpToolCall, forward: McpForward): Promise<McpAnswer>;
  /** A `resources/read` result scanned for credentials (`secrets` policy): as is, redacted or withheld. */
  readResource(uri: string, result: Record<string, unknown>): Record<string, unknown>;
}

function withheld(name: string, kinds: readonly string[]): McpCallToolResult {
  return {
    content: [
      {
        type: 'text',
        text: `The call to \`${name}\` ran, but its result contained a credential (${kinds.join(', ')}) and was withheld. Do not call it again to see the result; tell the user`,
      },
    ],
    isError: true,
  };
}

/**
 * Guard the tools of one upstream MCP server.
 *
 * @example
 * import { createLedger } from 'hyphae';
 * import { createSqliteStorage } from 'hyphae/sqlite';
 * import { createMcpGuard } from 'hyphae/mcp';
 *
 * const guard = createMcpGuard({
 *   ledger: createLedger({ storage: createSqliteStorage({ path: '.hyphae/ledger.db' }), agentId: 'mcp', policyVersion: '1' }),
 *   policy: { granted: ['read', 'write'], tools: { send_payment: { sideEffectClass: 'payment' } } },
 * });
 * await guard.observeTools((await client.listTools()).tools, 'replace');
 * const answer = await guard.callTool({ name: 'send_payment', args, rpcId: 1 }, (a) => client.callTool({ name: 'send_payment', arguments: a }));
 */
export function createMcpGuard(options: McpGuardOptions = {}): McpGuard {
  checkOptions('createMcpGuard', options);
  const policy: McpPolicy = options.policy ?? {};
  const { ledger } = options;
  const clock = options.clock ?? systemClock;
  let server = options.server ?? 'upstream';
  const pins = ledger !== undefined && policy.pinning !== false ? createPinStore(ledger, () => clock.now()) : undefined;
  const catalogue = createCatalogue({ policy, pins, server: () => server });
  const fuses = createSessionFuses(catalogue, policy, options.loop);
  const scope = { threadId: policy.principal ?? 'default', runId: policy.session ?? 'default' };
  const nonce = randomBytes(6).toString('hex');
  const windowMs = policy.retryWindowMs ?? DEFAULT_RETRY_WINDOW_MS;
  const sessionStop = createSessionStop(policy.cooldownMs, () => clock.now());
  const granted = policy.granted ?? DEFAULT_GRANTED;

  function emit(event: McpGuardEvent): void {
    try {
      options.onEvent?.(event);
    } catch {
      // A failing sink must not change an outcome.
    }
  }

  let built: { readonly version: number; readonly run: GuardRun } | undefined;
  function currentRun(): GuardRun {
    if (built?.version !== catalogue.version) {
      const tools = Object.fromEntries(catalogue.usable().map((entry) => [entry.definition.name, entry.spec]));
      const pipeline = createGuardPipeline({
        ...(ledger === undefined ? {} : { ledger }),
        fuses,
        registry: catalogue,
        tools,
        onEvent: emit,
      });
      built = { version: catalogue.version, run: pipeline.forRun(scope) };
    }
    return built.run;
  }

  const cancel: McpCancelAction = policy.cancel ?? 'finish';

  function secretsAction(name: string): McpSecretsAction {
    return catalogue.get(name)?.policy.secrets ?? policy.secrets ?? 'refuse';
  }

  async function callTool(call: McpToolCall, forward: McpForward): Promise<McpAnswer> {
    const { name } = call;
    const action = secretsAction(name);
    let args = call.args ?? {};
    if (action !== 'off') {
      const found = scanSecrets(args);
      if (found.kinds.length > 0) {
        emit({ type: 'secret_found', tool: name, where: 'arguments', kinds: found.kinds, action });
        if (action === 'refuse') {
          const message = `The call to \`${name}\` was NOT executed: its arguments contain a credential (${found.kinds.join(', ')}). Do not send credentials to tools`;
          return { result: refusalResult(message, 'secret_in_arguments', 'arguments') };
        }
        args = found.redacted;
      }
    }
    const entry = catalogue.get(name);
    const sideEffectClass = entry?.sideEffectClass ?? 'non_idempotent_mutate';
    const identity = {
      records: ledger?.records,
      scope,
      windowMs,
      now: () => clock.now(),
      nonce,
    };
    let ticket: string;
    try {
      ticket = await callTicket(identity, { name, args, meta: call.meta, rpcId: call.rpcId, sideEffectClass });
    } catch {
      const message = `The call to \`${name}\` was NOT executed: the record that keeps it from running twice could not be read. Try again later`;
      return { result: refusalResult(message, 'ledger_storage_unavailable', 'ledger') };
    }
    // Asked only once the fuses and the argument checks let the call through.
    const beforeClaim = async (): Promise<
      { readonly answer: unknown } | { readonly verdict: DecisionVerdict } | undefined
    > => {
      if (entry?.policy.approval !== 'required') return undefined;
      let decision: Awaited<ReturnType<typeof decideApproval>>;
      try {
        // Keyed by the exact intent (no window): approving a call approves those arguments.
        const key = idempotencyKeyOf(call.meta);
        const intent = key === undefined ? `intent:${fingerprint([name, args])}` : `key:${key}`;
        decision = await decideApproval(
          { records: ledger?.records, scope },
          { name, args, ticket: intent, callTicket: ticket, elicit: call.elicit },
        );
      } catch {
        const message = `The call to \`${name}\` was NOT executed: its approval could not be read. Try again later`;
        return { answer: refusalResult(message, 'ledger_storage_unavailable', 'approval') };
      }
      // An approval found is a verdict of the decision the ledger writes with its claim.
      return decision.status === 'answered'
        ? { answer: decision.result }
        : { verdict: { check: 'approval', verdict: 'allow', reason: 'approved' } };
    };
    const execute = async (checked: unknown, context: { readonly abortSignal: AbortSignal | undefined }) => {
      const send = (): Promise<McpCallToolResult> => forward(checked, context.abortSignal);
      // Sending the call is the effect: marked before it leaves, so a cut-off call reads as UNKNOWN.
      const result = sideEffectClass === 'read' || ledger === undefined ? await send() : await sideEffect(send);
      if (action === 'off') return result;
      const found = scanSecrets(result);
      if (found.kinds.length === 0) return result;
      emit({ type: 'secret_found', tool: name, where: 'result', kinds: found.kinds, action });
      // Replaced before the ledger stores it: a credential never reaches a record or a receipt.
      return action === 'refuse' ? withheld(name, found.kinds) : found.redacted;
    };
    // A side-effecting call that may not run twice runs to its end when the client cancels it, so its
    // outcome is recorded and a retry gets it; `cancel: 'forward'` passes the cancellation on.
    const finishes = ledger !== undefined && isConsequential(sideEffectClass) && cancel !== 'forward';
    const run = currentRun();
    sessionStop.resume(run);
    const outcome = await run.executeToolCall({ id: ticket, name, args }, execute, {
      beforeClaim,
      ...(call.signal === undefined || finishes ? {} : { abortSignal: call.signal }),
    });
    const answer = answerOf(sessionStop.settle(run, name, outcome));
    if (ledger === undefined) return answer;
    const delivered = async (): Promise<void> => {
      try {
        await markDelivered({ ...identity, ledger }, ticket);
      } catch {
        // Unmarked, an identical call is answered as a retry of this one: nothing runs twice.
      }
    };
    return { ...answer, delivered };
  }

  return {
    catalogue,
    pins,
    setServer(name) {
      server = name;
    },
    async observeTools(tools, mode) {
      await catalogue.observe(tools, mode);
      const visible = new Set(catalogue.visible(tools).map((tool) => tool.name));
      const hidden = tools.filter((tool) => !visible.has(tool.name)).map((tool) => tool.name);
      const broken = tools.flatMap((tool) => {
        const entry = catalogue.get(tool.name);
        return visible.has(tool.name) && entry?.hidden === 'invalid_schema'
          ? [{ tool: tool.name, reason: entry.detail ?? 'invalid schema' }]
          : [];
      });
      const usable = catalogue.usable();
      const ungranted = usable.flatMap((entry) => {
        const missing = entry.permissions.filter((scope) => !granted.includes(scope));
        return missing.length === 0 ? [] : [{ tool: entry.definition.name, missing }];
      });
      emit({ type: 'tools_observed', usable: usable.length, hidden, broken, ungranted, granted });
    },
    visibleTools: (tools) => catalogue.visible(tools),
    callTool,
    readResource(uri, result) {
      const action = policy.secrets ?? 'refuse';
      const scan = scanResource(uri, result, action);
      if (scan.kinds.length > 0)
        emit({ type: 'secret_found', where: 'resource', resource: scan.uri, kinds: scan.kinds, action });
      return scan.result;
    },
  };
}
