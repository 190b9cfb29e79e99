/**
 * Where the proxy relays an upstream progress notification: to the client request whose progress
 * token it carries (an HTTP client hears a notification on the stream of the request it relates to).
 */
import type { JsonRpcId, JsonRpcRequest } from './types.js';

/** The progress routes of one proxy. */
export interface ProgressRoutes {
  /** Route the progress token of `request`, if it has one, to it. */
  track(request: JsonRpcRequest & { readonly id: JsonRpcId }): void;
  /** Forget the routes to the client request `clientId`. */
  untrack(clientId: JsonRpcId): void;
  /** The client request a notification relates to (noting that its progress was relayed), or undefined. */
  relate(message: JsonRpcRequest): JsonRpcId | undefined;
  /**
   * Before answering `clientId`: when its progress was relayed, wait one turn of the event loop,
   * because the SDK's client handles a notification a microtask late and drops the last progress
   * of a request whose response it reads in the same chunk.
   */
  settle(clientId: JsonRpcId): Promise<void>;
}

function idKey(id: JsonRpcId): string {
  return JSON.stringify(id);
}

function isToken(value: unknown): value is string | number {
  return typeof value === 'string' || typeof value === 'number';
}

/** Empty progress routes. */
export function createProgressRoutes(): ProgressRoutes {
  const requestOf = new Map<string, JsonRpcId>();
  const progressed = new Set<string>();
  return {
    track(request) {
      const token = (request.params?._meta as { progressToken?: unknown } | undefined)?.progressToken;
      if (isToken(token)) requestOf.set(idKey(token), request.id);
    },
    untrack(clientId) {
      for (const [token, id] of requestOf) if (idKey(id) === idKey(clientId)) requestOf.delete(token);
    },
    relate(message) {
      const token = message.method === 'notifications/progress' ? message.params?.progressToken : undefined;
      const related = isToken(token) ? requestOf.get(idKey(token)) : undefined;
      if (related !== undefined) progressed.add(idKey(related));
      return related;
    },
    async settle(clientId) {
      if (!progressed.delete(idKey(clientId))) return;
      await new Promise<void>((resolve) => setImmediate(resolve));
    },
  };
}
