/**
 * The fuse benchmark's cases: `checkToolCall` through a permission and a loop fuse, a bare function
 * call of the same shape as the baseline, and — when `src/boundary` is present — a 5-field field-spec
 * validation alone and combined with the check.
 */
import { createFuseBox } from '../../src/fuses/fuse-box.js';
import { loopFuse } from '../../src/fuses/loop.js';
import { permissionFuse } from '../../src/fuses/permission.js';
import type { ToolCall } from '../../src/fuses/tool-fuse.js';
import type { FuseVerdict } from '../../src/fuses/verdict.js';
import type { TimedCase } from '../lib/measure.js';

/** A compiled validator, typed structurally so this file does not depend on `src/boundary`. */
export interface Validator {
  validate(value: unknown): { readonly ok: boolean };
}

/** The 5-field spec the combined case validates (the issue's "5-field validation per call"). */
export const FIVE_FIELD_SPEC = {
  customer_id: { type: 'string', pattern: '^c\\d+$' },
  limit: { type: 'integer', minimum: 1, maximum: 100 },
  include_archived: { type: 'boolean' },
  sort: { type: 'string', enum: ['asc', 'desc'] },
  page: { type: 'integer', minimum: 0 },
} as const;

const TOOLS = { search_orders: ['read'], lookup_order: ['read'], issue_refund: ['write', 'spend_money'] };

/** Fresh, never-repeating calls (a loop refusal would measure the refusal path instead). */
function callSource(): () => ToolCall {
  let seq = 0;
  return () => {
    seq++;
    return {
      id: `call_${seq}`,
      name: 'search_orders',
      args: { customer_id: `c${seq}`, limit: 10, include_archived: false, sort: 'desc', page: seq % 100 },
    };
  };
}

// Results land here so the optimiser cannot drop the calls.
let sink = 0;
/** Read the sink (keeps it observable). */
export const sinkValue = (): number => sink;

const ALLOW: FuseVerdict = Object.freeze({ allowed: true });

/** The baseline: a plain function taking the same call and returning a verdict. */
function bareCheck(call: ToolCall): FuseVerdict {
  return call.name.length > 0 ? ALLOW : ALLOW;
}

function freshRun(keepLog: boolean) {
  const box = createFuseBox({
    permission: permissionFuse({ granted: ['read'], tools: TOOLS }),
    loop: loopFuse({ repeatThreshold: 3, maxCycleLength: 4 }),
    keepLog,
  });
  return box.forRun('bench-run');
}

/** Case names, used as keys by the runner. */
export const CASE = {
  bare: 'bare function call of the same shape (baseline)',
  check: 'checkToolCall (permission + loop)',
  checkLogged: 'checkToolCall (permission + loop), event log kept',
  validate: '5-field field-spec validation (compileSchema(...).validate)',
  combined: '5-field validation + checkToolCall',
} as const;

/** The cases; the validation ones only when a validator is given. */
export function fuseCases(validator: Validator | null): TimedCase[] {
  const cases: TimedCase[] = [
    {
      name: CASE.bare,
      start() {
        const next = callSource();
        return () => {
          if (bareCheck(next()).allowed) sink++;
        };
      },
    },
    {
      name: CASE.check,
      start() {
        const next = callSource();
        const run = freshRun(false);
        return () => {
          if (run.checkToolCall(next()).allowed) sink++;
        };
      },
    },
    {
      name: CASE.checkLogged,
      start() {
        const next = callSource();
        let run = freshRun(true);
        let calls = 0;
        return () => {
          // A new box every 20k calls keeps the log (and the heap) from growing for the whole run.
          if (++calls % 20_000 === 0) run = freshRun(true);
          if (run.checkToolCall(next()).allowed) sink++;
        };
      },
    },
  ];
  if (validator === null) return cases;
  cases.push(
    {
      name: CASE.validate,
      start() {
        const next = callSource();
        return () => {
          if (validator.validate(next().args).ok) sink++;
        };
      },
    },
    {
      name: CASE.combined,
      start() {
        const next = callSource();
        const run = freshRun(false);
        return () => {
          const call = next();
          if (validator.validate(call.args).ok && run.checkToolCall(call).allowed) sink++;
        };
      },
    },
  );
  return cases;
}
