/**
 * Combinators over tool-call fuses, after hono's `every` / `some` / `except`:
 *
 * - `allOf(a, b, …)` allows when every fuse allows; it answers with the first refusal.
 * - `anyOf(a, b, …)` allows when at least one fuse allows; when all refuse, the first refusal.
 * - `except(condition, fuse)` skips `fuse` for the calls that match `condition`.
 *
 * A fuse that throws inside a combinator counts as a refusal of that fuse, so `anyOf` can still
 * allow through another fuse.
 */

import { InvalidArgumentError, kindOf, readArgument } from '../invalid-argument.js';
import { callSubject, type FuseStats, type ToolCallFacts, type ToolFuse, type ToolFuseRun } from './tool-fuse.js';
import { ALLOWED, type FuseRefusal, type FuseVerdict, guarded } from './verdict.js';

function checkChild(fuse: ToolFuse, run: ToolFuseRun, call: ToolCallFacts): FuseVerdict {
  return guarded(fuse.name, 'check', callSubject(call.name), () => run.check(call));
}

function startAll(fuses: readonly ToolFuse[]): ToolFuseRun[] {
  return fuses.map((fuse) => fuse.start());
}

function mergedStats(fuses: readonly ToolFuse[], runs: readonly ToolFuseRun[]): FuseStats {
  const out: Record<string, number> = {};
  runs.forEach((run, index) => {
    for (const [key, value] of Object.entries(run.stats())) out[`${fuses[index]?.name}.${key}`] = value;
  });
  return out;
}

function composite(
  name: string,
  fuses: readonly ToolFuse[],
  decide: (verdicts: FuseVerdict[]) => FuseVerdict,
): ToolFuse {
  const children = Object.freeze([...fuses]);
  return {
    name,
    start: function startComposite(): ToolFuseRun {
      const runs = startAll(children);
      return {
        check: (call) => decide(runs.map((run, index) => checkChild(children[index] as ToolFuse, run, call))),
        commit(call, verdict) {
          for (const run of runs) run.commit(call, verdict);
        },
        recordResult(call, fingerprint, ok) {
          for (const run of runs) run.recordResult(call, fingerprint, ok);
        },
        reset() {
          for (const run of runs) run.reset();
        },
        stats: () => mergedStats(children, runs),
      };
    },
  };
}

/** `fuses` when every one is a fuse (an object with a `start` function); else `InvalidArgumentError`. */
function checkFuses(fn: string, fuses: readonly unknown[]): readonly ToolFuse[] {
  fuses.forEach((fuse, index) => {
    const ok = readArgument(fn, `fuses[${index}]`, () => {
      return typeof fuse === 'object' && fuse !== null && typeof (fuse as ToolFuse).start === 'function';
    });
    if (!ok) throw new InvalidArgumentError(fn, `fuses[${index}]`, `must be a fuse, got ${kindOf(fuse)}`);
  });
  return fuses as readonly ToolFuse[];
}

function firstRefusal(verdicts: readonly FuseVerdict[]): FuseRefusal | undefined {
  return verdicts.find((verdict): verdict is FuseRefusal => !verdict.allowed);
}

/**
 * Allow when every fuse allows (hono's `every`); the answer is the first refusal.
 *
 * @example
 * const tools = allOf(permissionFuse({ granted: ['read'], tools }), loopFuse());
 */
export function allOf(...given: readonly ToolFuse[]): ToolFuse {
  const fuses = checkFuses('allOf', given);
  return composite(
    `allOf(${fuses.map((f) => f.name).join(',')})`,
    fuses,
    (verdicts) => firstRefusal(verdicts) ?? ALLOWED,
  );
}

/**
 * Allow when at least one fuse allows (hono's `some`); when all refuse, the first refusal.
 *
 * @example
 * // Either the operator role or the support role may call the tool.
 * const permission = anyOf(permissionFuse(operatorGrant), permissionFuse(supportGrant));
 */
export function anyOf(...given: readonly ToolFuse[]): ToolFuse {
  const fuses = checkFuses('anyOf', given);
  return composite(`anyOf(${fuses.map((f) => f.name).join(',')})`, fuses, (verdicts) =>
    verdicts.some((verdict) => verdict.allowed) ? ALLOWED : (firstRefusal(verdicts) ?? ALLOWED),
  );
}

/** Which calls {@link except} lets skip its fuse: a tool name, several, or a pure predicate. */
export type ExceptCondition = string | readonly string[] | ((call: ToolCallFacts) => boolean);

function matcher(condition: ExceptCondition): (call: ToolCallFacts) => boolean {
  if (typeof condition === 'function') {
    return (call) => {
      try {
        return condition(call) === true;
      } catch {
        // A throwing condition cannot prove the call is exempt, so the fuse applies.
        return false;
      }
    };
  }
  const names = new Set(typeof condition === 'string' ? [condition] : condition);
  return (call) => names.has(call.name);
}

/**
 * Apply `fuse` to every call except those matching `condition` (hono's `except`).
 *
 * @example
 * // `sleep` may be called back to back; everything else is loop-checked.
 * const loop = except('sleep', loopFuse());
 */
export function except(condition: ExceptCondition, fuse: ToolFuse): ToolFuse {
  const valid =
    typeof condition === 'function' ||
    typeof condition === 'string' ||
    (Array.isArray(condition) && condition.every((name) => typeof name === 'string'));
  if (!valid) {
    const problem = `must be a tool name, a list of names or a predicate, got ${kindOf(condition)}`;
    throw new InvalidArgumentError('except', 'condition', problem);
  }
  checkFuses('except', [fuse]);
  const skips = matcher(condition);
  return {
    name: fuse.name,
    start: function startExcept(): ToolFuseRun {
      const run = fuse.start();
      return {
        check: (call) => (skips(call) ? ALLOWED : run.check(call)),
        commit(call, verdict) {
          if (!skips(call)) run.commit(call, verdict);
        },
        recordResult(call, fingerprint, ok) {
          if (!skips(call)) run.recordResult(call, fingerprint, ok);
        },
        reset: () => run.reset(),
        stats: () => run.stats(),
      };
    },
  };
}
