/**
 * Serve the dashboard over HTTP with `@hono/node-server`.
 */
import { serve } from '@hono/node-server';
import { createDashboardApp } from './create-dashboard-app.js';
import type { DashboardOptions } from './dashboard-options.js';

/** A running dashboard. */
export interface RunningDashboard {
  /** The address it listens on, like `http://127.0.0.1:4500`. */
  readonly url: string;
  readonly port: number;
  /** Stop listening (open connections are closed). */
  close(): Promise<void>;
}

/** Options of {@link startDashboard}: the app's, and where to listen (port 0 picks a free one). */
export interface StartDashboardOptions extends DashboardOptions {
  readonly host: string;
  readonly port: number;
}

/** Listen on `host:port` and answer with the dashboard. */
export async function startDashboard(options: StartDashboardOptions): Promise<RunningDashboard> {
  const app = createDashboardApp(options);
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, hostname: options.host, port: options.port }, (info) => {
      const host = info.family === 'IPv6' ? `[${info.address}]` : info.address;
      resolve({
        url: `http://${host}:${info.port}`,
        port: info.port,
        close: () =>
          new Promise<void>((done) => {
            if ('closeAllConnections' in server) server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
    server.once('error', reject);
  });
}
