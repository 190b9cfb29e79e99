/**
 * The permission fuse: deny by default. A tool runs only when it is registered and every scope it
 * needs was granted to the run.
 */

import { codeList } from '../core/code-list.js';
import { InvalidOptionError } from '../errors.js';
import { optionsOf } from '../invalid-argument.js';
import { callSubject, type ToolCallFacts, type ToolFuse, type ToolFuseRun } from './tool-fuse.js';
import { ALLOWED, FuseCode, FuseName, type FuseRefusal, type FuseVerdict, refusal, sentences } from './verdict.js';

/** Options of {@link permissionFuse}. */
export interface PermissionFuseOptions {
  /** Scopes granted to the run, e.g. `['read']`. */
  readonly granted: readonly string[];
  /** Every tool the run may know, with the scopes it needs (all of them). */
  readonly tools: Readonly<Record<string, readonly string[]>>;
  /** Let tools missing from `tools` run (default `false`: an unknown tool is refused). */
  readonly allowUnknownTools?: boolean;
  /**
   * The refusal that makes this many denials in one run is terminal (default 3): a model that keeps
   * asking for what it was not granted is stuck. `Infinity` never stops the run. `reset()` clears
   * the count.
   */
  readonly maxDenials?: number;
  /** Name in verdicts (default `permission`). */
  readonly name?: string;
}

interface ToolAccess {
  readonly required: readonly string[];
  readonly missing: readonly string[];
}

function compile(options: PermissionFuseOptions): ReadonlyMap<string, ToolAccess> {
  if (!Array.isArray(options?.granted) || options.granted.some((scope) => typeof scope !== 'string')) {
    throw new InvalidOptionError('granted', '`granted` must be an array of scope names');
  }
  if (typeof options.tools !== 'object' || options.tools === null) {
    throw new InvalidOptionError('tools', '`tools` must map tool names to the scopes they need');
  }
  const granted = new Set(options.granted);
  const tools = new Map<string, ToolAccess>();
  for (const [tool, scopes] of Object.entries(options.tools)) {
    if (!Array.isArray(scopes) || scopes.some((scope) => typeof scope !== 'string')) {
      throw new InvalidOptionError('tools', `Scopes of tool \`${tool}\` must be an array of strings`);
    }
    const required = Object.freeze([...new Set<string>(scopes)]);
    tools.set(tool, Object.freeze({ required, missing: Object.freeze(required.filter((s) => !granted.has(s))) }));
  }
  return tools;
}

function checkMaxDenials(maxDenials: number): number {
  if (!(maxDenials >= 1))
    throw new InvalidOptionError('maxDenials', `\`maxDenials\` must be at least 1 (got \`${maxDenials}\`)`);
  return maxDenials;
}

/**
 * Deny-by-default permission fuse: an unregistered tool is refused (unless `allowUnknownTools`),
 * and a registered tool needs ALL of its scopes. The refusal's `note` tells the model what was
 * refused and that it did NOT happen.
 *
 * @example
 * const permission = permissionFuse({
 *   granted: ['read'],
 *   tools: { lookup_order: ['read'], issue_refund: ['write', 'spend_money'] },
 * });
 * // In a fuse box, `issue_refund` is refused: it needs `write` and `spend_money`.
 */
export function permissionFuse(given: PermissionFuseOptions): ToolFuse {
  const options = optionsOf('permissionFuse', given);
  const name = options.name ?? FuseName.permission;
  const tools = compile(options);
  const granted = Object.freeze([...new Set(options.granted)]);
  const allowUnknown = options.allowUnknownTools === true;
  const maxDenials = checkMaxDenials(options.maxDenials ?? 3);
  const usable = Object.freeze([...tools].filter(([, access]) => access.missing.length === 0).map(([tool]) => tool));

  function deny(call: ToolCallFacts, denials: number, access: ToolAccess | undefined): FuseRefusal {
    const terminal = denials + 1 >= maxDenials;
    const evidence = {
      tool: call.name,
      granted: [...granted],
      denials: denials + 1,
      maxDenials: Number.isFinite(maxDenials) ? maxDenials : null,
    };
    const stop = terminal ? 'This run is now stopped' : '';
    if (access === undefined) {
      return refusal({
        fuse: name,
        code: FuseCode.unknown_tool,
        reason: `Unknown tool \`${call.name}\` (allowed: ${codeList(usable)})`,
        note: sentences(
          `${callSubject(call.name)} was NOT executed: \`${call.name}\` is not a tool this run may use (usable tools: ${codeList(usable)})`,
          'Do not retry it',
          stop,
        ),
        terminal,
        evidence,
      });
    }
    return refusal({
      fuse: name,
      code: FuseCode.permission_denied,
      reason: `Tool \`${call.name}\` needs ${codeList(access.missing)}, which the run was not granted (granted: ${codeList(granted)})`,
      note: sentences(
        `${callSubject(call.name)} was NOT executed: it needs the permissions ${codeList(access.missing)}, which this run was not granted`,
        'Do not retry it; use a permitted tool or tell the user the action needs those permissions',
        stop,
      ),
      terminal,
      evidence: { ...evidence, required: [...access.required], missing: [...access.missing] },
    });
  }

  return {
    name,
    start: function startPermission(): ToolFuseRun {
      let denials = 0;
      const isMine = (verdict: FuseVerdict): boolean =>
        !verdict.allowed &&
        verdict.fuse === name &&
        (verdict.code === FuseCode.permission_denied || verdict.code === FuseCode.unknown_tool);
      return {
        check(call) {
          const access = tools.get(call.name);
          if (access === undefined) return allowUnknown ? ALLOWED : deny(call, denials, undefined);
          return access.missing.length === 0 ? ALLOWED : deny(call, denials, access);
        },
        commit(_call, verdict) {
          if (isMine(verdict)) denials++;
        },
        recordResult() {},
        reset() {
          denials = 0;
        },
        stats: () => ({ denials }),
      };
    },
  };
}
