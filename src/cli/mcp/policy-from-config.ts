/**
 * The MCP guard's options from a loaded `hyphae.yaml`: the `mcp` section, the scopes granted by
 * `fuses.permission`, the loop fuse of `fuses.loop`, and the action ledger.
 */
import type { McpGuardOptions } from '../../adapters/mcp/create-mcp-guard.js';
import type { McpPolicy } from '../../adapters/mcp/policy.js';
import type { HyphaeConfig } from '../../config/create-config.js';

/** Command-line overrides of the policy. */
export interface PolicyOverrides {
  readonly principal?: string | undefined;
  readonly session?: string | undefined;
}

/** The guard options a config (or none: the safe defaults, no ledger) describes. */
export function guardOptionsFrom(
  config: HyphaeConfig | undefined,
  overrides: PolicyOverrides,
): Omit<McpGuardOptions, 'onEvent'> {
  const settings = config?.settings;
  const { drainMs: _drain, ...mcp } = settings?.mcp ?? {};
  const permission = settings?.fuses?.permission;
  const policy: McpPolicy = {
    ...mcp,
    ...(overrides.principal === undefined ? {} : { principal: overrides.principal }),
    ...(overrides.session === undefined ? {} : { session: overrides.session }),
    ...(permission === undefined ? {} : { granted: permission.granted }),
    ...(permission?.maxDenials === undefined ? {} : { maxDenials: permission.maxDenials }),
  };
  return {
    policy,
    ...(config?.ledger === undefined ? {} : { ledger: config.ledger }),
    ...(settings?.fuses?.loop === undefined ? {} : { loop: settings.fuses.loop }),
  };
}
