import { describe, expect, expectTypeOf, it } from 'vitest';
import { createGuardPipeline } from '../../src/adapters/pipeline.js';
import type { ToolExecutor } from '../../src/adapters/shared/types.js';

describe('executeToolCall with a typed body', () => {
  it('takes a body that declares its arguments type and passes it the validated arguments', async () => {
    const run = createGuardPipeline({
      tools: { lookup_order: { sideEffectClass: 'read', schema: { id: { type: 'string' } } } },
    }).forRun({ threadId: 't1', runId: 'r1' });
    const lookupOrder = async (args: { id: string }) => ({ order: args.id.toUpperCase() });

    const outcome = await run.executeToolCall({ id: 'call_1', name: 'lookup_order', args: { id: 'o_7' } }, lookupOrder);

    expect(outcome).toMatchObject({ status: 'ok', result: { order: 'O_7' } });
    expectTypeOf(lookupOrder).toExtend<ToolExecutor<{ id: string }>>();
    run.end();
  });
});
