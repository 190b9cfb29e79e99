/**
 * Who may use the dashboard: scoped tokens (`read`, `act`), browser sessions with a CSRF secret,
 * and the Host check that keeps a page on another site from reaching a loopback dashboard through
 * DNS rebinding.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { type ValueOf, type Vocabulary, vocabulary } from '../core/vocabulary.js';
import { GuardError } from '../errors.js';

const TOKEN_SCOPES = ['read', 'act'] as const;
/** What a token allows: `read` looks; `act` also releases and marks workers dead. */
export const TokenScope: Vocabulary<typeof TOKEN_SCOPES> = vocabulary(TOKEN_SCOPES);
/** What a token allows. */
export type TokenScope = ValueOf<typeof TokenScope>;

/** One accepted token and its scope. */
export interface DashboardToken {
  readonly token: string;
  readonly scope: TokenScope;
}

/** The shortest token accepted: 24 characters (`openssl rand -base64 24` gives 32). */
export const MIN_TOKEN_LENGTH = 24;

/** A browser session: its scope, and the secret every form of the session carries. */
export interface DashboardSession {
  readonly id: string;
  readonly scope: TokenScope;
  readonly csrf: string;
}

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/** Refuse a token too short to resist guessing; a typed error names the problem. */
export function checkToken(token: DashboardToken): DashboardToken {
  if (token.token.length < MIN_TOKEN_LENGTH) {
    throw new GuardError(
      'dashboard_token_short',
      `A dashboard \`${token.scope}\` token needs at least ${MIN_TOKEN_LENGTH} characters, got ${token.token.length}; make one with \`openssl rand -base64 24\``,
    );
  }
  return token;
}

/** The scope `presented` grants among `tokens` (compared in constant time), or undefined. */
export function scopeOf(tokens: readonly DashboardToken[], presented: string): TokenScope | undefined {
  const given = digest(presented);
  let scope: TokenScope | undefined;
  for (const token of tokens) {
    // Every token is compared, so the time taken does not tell which one matched.
    if (timingSafeEqual(digest(token.token), given) && scope !== TokenScope.act) scope = token.scope;
  }
  return scope;
}

/** True when `presented` equals `expected`, compared in constant time. */
export function sameSecret(expected: string, presented: string): boolean {
  return timingSafeEqual(digest(expected), digest(presented));
}

/** The sessions of one dashboard process, in memory: a restart signs everyone out. */
export interface SessionStore {
  open(scope: TokenScope): DashboardSession;
  get(id: string): DashboardSession | undefined;
}

/** Sessions kept in a bounded map (the oldest is dropped past `max`). */
export function createSessionStore(max = 1000): SessionStore {
  const sessions = new Map<string, DashboardSession>();
  return {
    open(scope) {
      const session = { id: randomBytes(24).toString('base64url'), scope, csrf: randomBytes(24).toString('base64url') };
      sessions.set(session.id, session);
      if (sessions.size > max) {
        const oldest = sessions.keys().next().value;
        if (oldest !== undefined) sessions.delete(oldest);
      }
      return session;
    },
    get: (id) => sessions.get(id),
  };
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/** True for an address only this machine can reach. */
export function isLoopback(host: string): boolean {
  return LOOPBACK.has(host) || /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * The host names (the `Host` header without its port) a loopback dashboard answers to. A page
 * elsewhere that rebinds its own name to 127.0.0.1 sends its own name as `Host`, so it is refused.
 */
export const LOOPBACK_HOSTS: readonly string[] = ['127.0.0.1', 'localhost', '[::1]'];

/** The host name of a `Host` header: `[::1]:80` → `[::1]`, `localhost:4500` → `localhost`. */
export function hostName(header: string): string {
  const match = /^(\[[^\]]*\]|[^:]*)(?::\d+)?$/.exec(header);
  return (match?.[1] ?? header).toLowerCase();
}
