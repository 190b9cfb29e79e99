/**
 * Sessions: an AsyncLocalStorage scope that owns per-session state (the TTL caches of protected
 * tools), so two conversations served by one process never see each other's cached data.
 */
import { randomUUID } from 'node:crypto';
import { createAsyncScope } from '../core/scope.js';
import { InvalidArgumentError, kindOf, optionsOf } from '../invalid-argument.js';

/** One conversation, user or request: the owner of the session-scoped caches. */
export interface Session {
  readonly id: string;
}

/** Options of {@link withSession} and {@link createSession}. */
export interface SessionOptions {
  /** A label for the session (events, debugging). Default a random UUID. */
  readonly sessionId?: string;
  /** Re-enter an existing session (keeps its caches) instead of starting a new one. */
  readonly session?: Session;
}

// Per-session private state, keyed by the session object: it dies with the session, and two
// sessions that happen to share an id label still never share state.
const slots = new WeakMap<Session, Map<object, unknown>>();
const scope = createAsyncScope<Session>();

/**
 * Create a session object that several `withSession` calls can re-enter.
 *
 * @example
 * const session = createSession({ sessionId: 'user-42' });
 * await withSession(() => lookup({ id: 1 }), { session });
 */
export function createSession(given: { readonly sessionId?: string } = {}): Session {
  const options = optionsOf('createSession', given, true);
  const session: Session = Object.freeze({ id: options.sessionId ?? randomUUID() });
  slots.set(session, new Map());
  return session;
}

/**
 * Run `fn` inside a session: every protected tool it calls (through any number of awaits) uses
 * that session's cache. Concurrent sessions are isolated; a nested call starts an inner session
 * unless `session` re-enters an existing one.
 *
 * @example
 * const [a, b] = await Promise.all([
 *   withSession(() => getCustomer({ id: 7 }), { sessionId: 'alice' }),
 *   withSession(() => getCustomer({ id: 7 }), { sessionId: 'bob' }), // its own cache
 * ]);
 */
export function withSession<R>(fn: (session: Session) => R, given: SessionOptions = {}): R {
  if (typeof fn !== 'function')
    throw new InvalidArgumentError('withSession', 'fn', `must be a function, got ${kindOf(fn)}`);
  const options = optionsOf('withSession', given, true);
  const session =
    options.session ?? createSession(options.sessionId === undefined ? {} : { sessionId: options.sessionId });
  if (!slots.has(session)) slots.set(session, new Map());
  return scope.run(session, () => fn(session));
}

/** The session of the innermost enclosing {@link withSession}, or undefined outside one. */
export function currentSession(): Session | undefined {
  return scope.get();
}

/**
 * The value `owner` keeps in the current session, created by `create` on first use; undefined
 * outside a session. Internal: protected tools key their per-session cache by their own identity.
 */
export function sessionSlot<T>(owner: object, create: () => T): T | undefined {
  const session = scope.get();
  if (session === undefined) return undefined;
  let state = slots.get(session);
  if (state === undefined) {
    state = new Map();
    slots.set(session, state);
  }
  if (!state.has(owner)) state.set(owner, create());
  return state.get(owner) as T;
}
