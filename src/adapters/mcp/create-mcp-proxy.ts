/**
 * The guarding MCP proxy: relays JSON-RPC between a client and an upstream server, unchanged except
 * for `tools/list` (filtered to the tools the client may use), `tools/call` (run through the guard)
 * and `resources/read` (scanned for credentials). Prompts, completions, sampling, elicitation,
 * logging and progress pass through.
 *
 * Ids are remapped on both legs, because the proxy sends requests of its own (its tool listing)
 * that must not collide with the client's ids; cancellations are remapped with them.
 */

import { checkOptions } from '../../invalid-argument.js';
import type { McpAnswer, McpGuard } from './create-mcp-guard.js';
import { createGuardedCalls, type GuardedCall } from './guarded-calls.js';
import { createProgressRoutes } from './progress-routes.js';
import { McpUpstreamError } from './tool-results.js';
import {
  isRequest,
  isResponse,
  type JsonRpcErrorObject,
  type JsonRpcId,
  type JsonRpcMessage,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type McpCallToolResult,
  type McpToolDefinition,
  type McpTransport,
} from './types.js';

/** Options of {@link createMcpProxy}. */
export interface McpProxyOptions {
  /** The leg to the client: the proxy is its server. */
  readonly client: McpTransport;
  /** The leg to the upstream server: the proxy is its client. */
  readonly upstream: McpTransport;
  readonly guard: McpGuard;
  /** Transport errors and messages that could not be relayed; a throwing hook is ignored. */
  readonly onError?: (error: Error) => void;
  /**
   * How long closing waits for guarded calls still running upstream, so their outcomes are
   * recorded (default 30 s; 0 waits for none). Not waited for when the upstream itself closed.
   */
  readonly drainMs?: number;
}

/** A running proxy. */
export interface McpProxy {
  /** Start both legs (upstream first). */
  start(): Promise<void>;
  /** Wait for the guarded calls in flight (up to `drainMs`), then close both legs; safe to call twice. */
  close(): Promise<void>;
  /** Resolves when either leg has closed and the proxy shut down. */
  readonly closed: Promise<void>;
}

type Pending =
  | { readonly kind: 'relay'; readonly id: JsonRpcId; readonly method: string; readonly uri?: string }
  | { readonly kind: 'own'; readonly resolve: (message: JsonRpcResponse) => void };

const PAGE_LIMIT = 100;
const DEFAULT_DRAIN_MS = 30_000;

function response(id: JsonRpcId, body: McpAnswer | { readonly result: McpCallToolResult }): JsonRpcResponse {
  return 'error' in body
    ? { jsonrpc: '2.0', id, error: body.error }
    : { jsonrpc: '2.0', id, result: body.result as unknown as Record<string, unknown> };
}

function idKey(id: JsonRpcId): string {
  return JSON.stringify(id);
}

/**
 * Relay between `client` and `upstream` with `guard` on every tool call.
 *
 * @example
 * import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
 * import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
 * import { createMcpGuard, createMcpProxy } from 'hyphae/mcp';
 *
 * const proxy = createMcpProxy({
 *   client: new StdioServerTransport(),
 *   upstream: new StdioClientTransport({ command: 'node', args: ['server.js'] }),
 *   guard: createMcpGuard({ policy: { granted: ['read'] } }),
 * });
 * await proxy.start();
 */
export function createMcpProxy(options: McpProxyOptions): McpProxy {
  checkOptions('createMcpProxy', options, false);
  const { client, upstream, guard } = options;
  // Requests sent upstream, by upstream id; requests sent to the client, by client-leg id.
  const upPending = new Map<number, Pending>();
  const downPending = new Map<number, Pending>();
  // The upstream id of each relayed client request (for cancellations), by client id.
  const upIdOf = new Map<string, number>();
  // Guarded calls in flight, by client id.
  const calls = createGuardedCalls();
  const drainMs = options.drainMs ?? DEFAULT_DRAIN_MS;
  let nextUp = 1;
  let nextDown = 1;
  // Whether the client said it can ask its user (`capabilities.elicitation` in `initialize`).
  let clientElicits = false;
  let refreshing: Promise<void> = Promise.resolve();
  let closing: Promise<void> | undefined;
  let upstreamGone = false;
  let markClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    markClosed = resolve;
  });

  function report(error: unknown): void {
    try {
      options.onError?.(error instanceof Error ? error : new Error(String(error)));
    } catch {
      // The hook is for diagnostics only.
    }
  }

  const progress = createProgressRoutes();

  function send(transport: McpTransport, message: JsonRpcMessage, relatedRequestId?: JsonRpcId): void {
    const sent =
      relatedRequestId === undefined ? transport.send(message) : transport.send(message, { relatedRequestId });
    sent.catch(report);
  }

  function requestUpstream(method: string, params: Record<string, unknown>): Promise<JsonRpcResponse> {
    const id = nextUp++;
    return new Promise((resolve) => {
      upPending.set(id, { kind: 'own', resolve });
      send(upstream, { jsonrpc: '2.0', id, method, params });
    });
  }

  /** Ask the client's user, on the stream of the call that needs it. */
  function elicitFor(relatedId: JsonRpcId) {
    return (params: Readonly<Record<string, unknown>>): Promise<unknown> => {
      const id = nextDown++;
      return new Promise((resolve, reject) => {
        downPending.set(id, {
          kind: 'own',
          resolve: (message) => {
            if (message.error !== undefined) reject(new Error(message.error.message));
            else resolve(message.result);
          },
        });
        send(client, { jsonrpc: '2.0', id, method: 'elicitation/create', params }, relatedId);
      });
    };
  }

  /** The proxy's own full listing of the upstream tools (all pages). */
  async function listAllTools(): Promise<void> {
    const tools: McpToolDefinition[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < PAGE_LIMIT; page++) {
      const answer = await requestUpstream('tools/list', cursor === undefined ? {} : { cursor });
      if (answer.error !== undefined || answer.result === undefined) break;
      tools.push(...((answer.result.tools as McpToolDefinition[] | undefined) ?? []));
      const next = answer.result.nextCursor;
      if (typeof next !== 'string' || next === '') break;
      cursor = next;
    }
    await guard.observeTools(tools, 'replace');
  }

  function refreshTools(): Promise<void> {
    refreshing = refreshing.then(listAllTools).catch(report);
    return refreshing;
  }

  function startCall(request: JsonRpcRequest & { readonly id: JsonRpcId }): void {
    calls.start(idKey(request.id), (entry) => guardCall(request, entry), report);
  }

  async function guardCall(request: JsonRpcRequest & { readonly id: JsonRpcId }, entry: GuardedCall): Promise<void> {
    const params = request.params ?? {};
    const name = typeof params.name === 'string' ? params.name : '';
    const { controller } = entry;
    progress.track(request);
    // Without a signal the guard lets the call run to its end: a cancellation stays here.
    const forward = (args: unknown, signal: AbortSignal | undefined): Promise<McpCallToolResult> => {
      const id = nextUp++;
      entry.upId = id;
      entry.forwardsCancel = signal !== undefined;
      return new Promise((resolve, reject) => {
        if (signal?.aborted === true) {
          reject(signal.reason);
          return;
        }
        signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
        upPending.set(id, {
          kind: 'own',
          resolve: (message) => {
            if (message.error !== undefined) reject(new McpUpstreamError(message.error));
            else resolve((message.result ?? { content: [] }) as unknown as McpCallToolResult);
          },
        });
        send(upstream, { jsonrpc: '2.0', id, method: 'tools/call', params: { ...params, arguments: args } });
      });
    };
    try {
      // A call made before the first listing finished is judged against that listing.
      await refreshing;
      const answer = await guard.callTool(
        {
          name,
          args: params.arguments ?? {},
          meta: params._meta,
          rpcId: request.id,
          signal: controller.signal,
          ...(clientElicits ? { elicit: elicitFor(request.id) } : {}),
        },
        forward,
      );
      await progress.settle(request.id);
      // A cancelled request gets no response (MCP: the receiver of a cancellation does not answer),
      // so its answer stays undelivered and a retry gets it.
      if (controller.signal.aborted || closing !== undefined) return;
      try {
        await client.send(response(request.id, answer), { relatedRequestId: request.id });
      } catch (error) {
        // Not delivered: a retry gets this answer.
        report(error);
        return;
      }
      // Handed to the transport: an identical call from now on is a new call.
      await answer.delivered?.();
    } catch (error) {
      // The guard never throws; should it, the client still gets an answer that stops a blind retry.
      report(error);
      const text = `The call to \`${name}\` did not complete: the proxy failed. Do not retry it; tell the user`;
      send(client, response(request.id, { result: { content: [{ type: 'text', text }], isError: true } }), request.id);
    } finally {
      progress.untrack(request.id);
    }
  }

  function relayRequest(request: JsonRpcRequest & { readonly id: JsonRpcId }): void {
    const id = nextUp++;
    const uri = request.method === 'resources/read' ? { uri: String(request.params?.uri ?? '') } : {};
    upPending.set(id, { kind: 'relay', id: request.id, method: request.method, ...uri });
    upIdOf.set(idKey(request.id), id);
    progress.track(request);
    send(upstream, { ...request, id });
  }

  function cancelFromClient(message: JsonRpcRequest): void {
    const requestId = message.params?.requestId as JsonRpcId | undefined;
    if (requestId === undefined) return;
    const call = calls.get(idKey(requestId));
    if (call !== undefined) {
      call.controller.abort(
        new Error(`The client cancelled the call: ${String(message.params?.reason ?? 'no reason')}`),
      );
      if (call.upId !== undefined && call.forwardsCancel)
        send(upstream, { ...message, params: { ...message.params, requestId: call.upId } });
      return;
    }
    const upId = upIdOf.get(idKey(requestId));
    if (upId !== undefined) send(upstream, { ...message, params: { ...message.params, requestId: upId } });
  }

  function fromClient(message: JsonRpcMessage): void {
    if (isRequest(message)) {
      if (message.id === undefined) {
        if (message.method === 'notifications/cancelled') {
          cancelFromClient(message);
          return;
        }
        send(upstream, message);
        // The client is ready: learn the tools before its first call.
        if (message.method === 'notifications/initialized') void refreshTools();
        return;
      }
      const request = message as JsonRpcRequest & { readonly id: JsonRpcId };
      if (request.method === 'initialize') {
        const capabilities = request.params?.capabilities as { elicitation?: unknown } | undefined;
        clientElicits = capabilities?.elicitation !== undefined && capabilities.elicitation !== null;
      }
      if (request.method === 'tools/call') {
        startCall(request);
        return;
      }
      relayRequest(request);
      return;
    }
    answered(downPending, message, 'client', (pending, response) => {
      if (pending.kind === 'relay') send(upstream, { ...response, id: pending.id });
      else pending.resolve(response);
    });
  }

  /**
   * Hand a response to `answer` with the request it answers, taken out of `table`; an answer to no
   * request is dropped, and a message that is no response is reported.
   */
  function answered(
    table: Map<number, Pending>,
    message: JsonRpcMessage,
    from: string,
    answer: (pending: Pending, response: JsonRpcResponse) => void,
  ): void {
    if (!isResponse(message) || typeof message.id !== 'number') {
      report(new Error(`Unroutable ${from} message`));
      return;
    }
    const pending = table.get(message.id);
    table.delete(message.id);
    if (pending !== undefined) answer(pending, message);
  }

  async function answerClient(pending: Pending & { kind: 'relay' }, message: JsonRpcResponse): Promise<void> {
    upIdOf.delete(idKey(pending.id));
    progress.untrack(pending.id);
    let result = message.result;
    if (result !== undefined && pending.method === 'initialize') {
      const info = result.serverInfo as { name?: unknown } | undefined;
      if (typeof info?.name === 'string') guard.setServer(info.name);
    }
    if (result !== undefined && pending.method === 'tools/list') {
      const tools = (result.tools as McpToolDefinition[] | undefined) ?? [];
      await guard.observeTools(tools, 'merge');
      result = { ...result, tools: guard.visibleTools(tools) };
    }
    if (result !== undefined && pending.method === 'resources/read')
      result = guard.readResource(pending.uri ?? '', result);
    await progress.settle(pending.id);
    send(client, { ...message, id: pending.id, ...(result === undefined ? {} : { result }) }, pending.id);
  }

  function fromUpstream(message: JsonRpcMessage): void {
    if (isRequest(message)) {
      if (message.id === undefined) {
        if (message.method === 'notifications/tools/list_changed') {
          // The check runs before the client hears of the change, so its next listing is judged.
          void refreshTools().then(() => send(client, message));
          return;
        }
        if (message.method === 'notifications/cancelled') {
          const requestId = message.params?.requestId as JsonRpcId | undefined;
          const mapped = [...downPending].find(
            ([, p]) => p.kind === 'relay' && requestId !== undefined && idKey(p.id) === idKey(requestId),
          );
          if (mapped !== undefined) send(client, { ...message, params: { ...message.params, requestId: mapped[0] } });
          return;
        }
        send(client, message, progress.relate(message));
        return;
      }
      const id = nextDown++;
      downPending.set(id, { kind: 'relay', id: message.id, method: message.method });
      send(client, { ...message, id });
      return;
    }
    answered(upPending, message, 'upstream', (pending, response) => {
      if (pending.kind === 'own') pending.resolve(response);
      else answerClient(pending, response).catch(report);
    });
  }

  /** Answer the requests still waiting for the upstream: it is gone. */
  function upstreamClosed(): void {
    upstreamGone = true;
    const gone: JsonRpcErrorObject = { code: -32000, message: 'The upstream connection closed' };
    for (const [id, pending] of upPending) {
      if (pending.kind === 'own') pending.resolve({ jsonrpc: '2.0', id, error: gone });
    }
    upPending.clear();
  }

  function close(from: 'client' | 'upstream' = 'client'): Promise<void> {
    if (from === 'upstream') upstreamClosed();
    // Deferred a microtask: a transport calls `onclose` (and so `close`) from inside its own
    // `close()`, which must find `closing` already set.
    closing ??= Promise.resolve().then(async () => {
      // A call still running upstream finishes and is recorded, unless the upstream is gone.
      if (!upstreamGone) await calls.drain(drainMs);
      upstreamClosed();
      calls.abortAll(new Error('The proxy closed'));
      await Promise.allSettled([client.close(), upstream.close()]);
      markClosed();
    });
    return closing;
  }

  return {
    async start() {
      client.onmessage = (message) => fromClient(message);
      upstream.onmessage = (message) => fromUpstream(message);
      client.onerror = report;
      upstream.onerror = report;
      client.onclose = () => void close();
      upstream.onclose = () => void close('upstream');
      await upstream.start();
      await client.start();
    },
    close: () => close(),
    closed,
  };
}
