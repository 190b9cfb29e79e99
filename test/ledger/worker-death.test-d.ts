// Type tests: checked by `tsc --noEmit` (the file is never run).
import { expectTypeOf } from 'vitest';
import type { Ledger, ToolCapability, ToolSpec, TransitionRecord } from '../../src/index.js';

declare const ledger: Ledger;
const audit = { by: 'ops', reason: 'pod evicted' };

// A key marks one transition; an owner every claim it holds.
expectTypeOf(ledger.markWorkerDead('key', audit)).toEqualTypeOf<Promise<TransitionRecord>>();
expectTypeOf(ledger.markWorkerDead({ key: 'k' }, { ...audit, overrideHeartbeat: true })).toEqualTypeOf<
  Promise<TransitionRecord>
>();
expectTypeOf(ledger.markWorkerDead({ owner: 'worker-7' }, audit)).toEqualTypeOf<Promise<readonly TransitionRecord[]>>();

expectTypeOf<ToolCapability>().toEqualTypeOf<'idempotent' | 'queryable' | 'blind'>();
expectTypeOf<ToolSpec['capability']>().toEqualTypeOf<ToolCapability | undefined>();
