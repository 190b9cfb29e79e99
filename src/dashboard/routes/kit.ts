/**
 * What the dashboard's route modules share: the request's variables, the page frame, and the
 * checks every state-changing form passes.
 */
import type { Context } from 'hono';
import type { Clock } from '../../core/clock.js';
import type { DashboardSession, TokenScope } from '../auth.js';
import type { DashboardOptions } from '../dashboard-options.js';
import type { Html } from '../pages/html.js';
import type { QueryLimits } from '../queries.js';

/** The variables every request carries once it is let in. */
export interface Env {
  Variables: { session: DashboardSession | undefined; scope: TokenScope | undefined };
}

/** A page status the dashboard answers with. */
export type PageStatus = 200 | 400 | 403 | 404 | 409 | 503;

/** The shared parts a route module is given. */
export interface RouteKit {
  readonly options: DashboardOptions;
  readonly clock: Clock;
  readonly limits: QueryLimits;
  /** A full page around `content`. */
  page(c: Context<Env>, title: string, content: Html, status?: PageStatus): Response | Promise<Response>;
  /** The posted form's text fields. */
  form(c: Context<Env>): Promise<Readonly<Record<string, string | undefined>>>;
  /** Why this request may not act (read-only, a read token, a failed CSRF check), or undefined. */
  refuseAct(c: Context<Env>, form: Readonly<Record<string, string | undefined>>): string | undefined;
  /** Why actions are not offered to this viewer, or undefined. */
  noActions(c: Context<Env>): string | undefined;
}
