import { describe, expect, it, vi } from 'vitest';
import { type AnyBoundedTool, bounded } from '../../src/boundary/bounded.js';
import { createToolRegistry } from '../../src/boundary/create-tool-registry.js';
import { createToolRunner } from '../../src/boundary/create-tool-runner.js';
import {
  ToolBoundaryError,
  ToolBoundaryExhaustedError,
  ToolDefinitionError,
  ToolRegistryError,
} from '../../src/boundary/errors.js';
import { GuardError } from '../../src/errors.js';
import type { SideEffectClass } from '../../src/records/envelope.js';

function runnerWith(tool: AnyBoundedTool, limits: { maxToolRetries?: number } = {}) {
  const registry = createToolRegistry({ allowed: [tool.toolName] });
  registry.register(tool.toolName, tool);
  return createToolRunner({ registry, maxLlmRetries: 2, maxToolRetries: limits.maxToolRetries ?? 2 });
}

/** A body whose outputs (or errors) are scripted call by call. */
function scriptedBody(steps: readonly (unknown | Error)[]) {
  let index = 0;
  return vi.fn(() => {
    const step = steps[Math.min(index++, steps.length - 1)];
    if (step instanceof Error) throw step;
    return step;
  });
}

describe('runner.call', () => {
  it('runs a call with object or JSON-text arguments and passes the call id', async () => {
    const body = vi.fn((args: { id: string }) => `customer ${args.id}`);
    const runner = runnerWith(
      bounded({ name: 'fetch_customer', sideEffectClass: 'read', schema: { id: { type: 'string' } } }, body),
    );

    await expect(runner.call({ id: 'call_1', name: 'fetch_customer', args: { id: 'c1' } })).resolves.toBe(
      'customer c1',
    );
    await expect(runner.call({ id: 'call_2', name: 'fetch_customer', args: '{"id":"c2"}' })).resolves.toBe(
      'customer c2',
    );
    expect(body).toHaveBeenLastCalledWith({ id: 'c2' }, { toolCallId: 'call_2' });
  });

  it('refuses unparseable arguments, an unknown tool and a tool that is not bounded', async () => {
    const body = vi.fn(() => 1);
    const runner = runnerWith(bounded({ name: 'f', schema: {} }, body));
    const registry = createToolRegistry({ allowed: ['plain'] });
    registry.register('plain', () => 1);
    const plain = createToolRunner({ registry });

    const unparseable = runner.call({ id: 'a', name: 'f', args: '{"oops' });
    await expect(unparseable).rejects.toBeInstanceOf(ToolBoundaryError);
    await expect(unparseable).rejects.toMatchObject({ violation: 'unparseable_arguments', field: '' });
    await expect(runner.call({ id: 'b', name: 'delete_repo', args: {} })).rejects.toBeInstanceOf(ToolRegistryError);
    await expect(plain.call({ id: 'c', name: 'plain', args: {} })).rejects.toBeInstanceOf(ToolDefinitionError);
    expect(body).not.toHaveBeenCalled();
  });

  it('reads `""` as no arguments', async () => {
    const runner = runnerWith(bounded({ name: 'ping', schema: {} }, () => 'pong'));

    await expect(runner.call({ id: 'a', name: 'ping', args: '' })).resolves.toBe('pong');
  });

  it('retries a read that throws, up to maxToolRetries', async () => {
    const body = scriptedBody([new Error('flaky'), new Error('flaky'), 'ok']);
    const runner = runnerWith(bounded({ name: 'r', sideEffectClass: 'read', schema: {} }, body), { maxToolRetries: 2 });

    await expect(runner.call({ id: 'a', name: 'r', args: {} })).resolves.toBe('ok');
    expect(body).toHaveBeenCalledTimes(3);
  });

  it('gives up with ToolBoundaryExhaustedError carrying the last error', async () => {
    const last = new Error('still down');
    const body = scriptedBody([new Error('down'), last]);
    const runner = runnerWith(bounded({ name: 'r', sideEffectClass: 'read', schema: {} }, body), { maxToolRetries: 1 });

    const error = await runner.call({ id: 'a', name: 'r', args: {} }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ToolBoundaryExhaustedError);
    expect(error).toMatchObject({ code: 'tool_boundary_exhausted', budget: 'tool_retries', attempts: 2, tool: 'r' });
    expect((error as ToolBoundaryExhaustedError).lastError).toBe(last);
    expect(body).toHaveBeenCalledTimes(2);
  });

  it.each(['keyed_mutate', 'non_idempotent_mutate', 'irreversible'] as const)(
    'never re-runs a %s body that threw; its own error comes back',
    async (sideEffectClass: SideEffectClass) => {
      const failure = new Error('gateway timeout');
      const body = scriptedBody([failure, 'ok']);
      const runner = runnerWith(bounded({ name: 'w', sideEffectClass, schema: {} }, body));

      await expect(runner.call({ id: 'a', name: 'w', args: {} })).rejects.toBe(failure);
      expect(body).toHaveBeenCalledTimes(1);
    },
  );

  it('does not re-run a read that a guard refused', async () => {
    const body = scriptedBody([new GuardError('ledger_hard_block', 'blocked', { llmMessage: 'Do not retry' }), 'ok']);
    const runner = runnerWith(bounded({ name: 'r', sideEffectClass: 'read', schema: {} }, body));

    await expect(runner.call({ id: 'a', name: 'r', args: {} })).rejects.toMatchObject({ code: 'ledger_hard_block' });
    expect(body).toHaveBeenCalledTimes(1);
  });
});

describe('runner.call: output validation', () => {
  const outputSchema = { total: { type: 'number' } } as const;

  it.each(['read', 'idempotent_mutate'] as const)('re-runs a %s body whose output failed', async (sideEffectClass) => {
    const body = scriptedBody([{ total: 'NaN' }, { total: 3 }]);
    const runner = runnerWith(bounded({ name: 't', sideEffectClass, schema: {}, outputSchema }, body));

    await expect(runner.call({ id: 'a', name: 't', args: {} })).resolves.toEqual({ total: 3 });
    expect(body).toHaveBeenCalledTimes(2);
  });

  it('gives up on a read whose output keeps failing, with the output error as lastError', async () => {
    const body = scriptedBody([{ total: 'x' }]);
    const runner = runnerWith(bounded({ name: 't', sideEffectClass: 'read', schema: {}, outputSchema }, body), {
      maxToolRetries: 2,
    });

    const error = (await runner
      .call({ id: 'a', name: 't', args: {} })
      .catch((e: unknown) => e)) as ToolBoundaryExhaustedError;

    expect(error).toBeInstanceOf(ToolBoundaryExhaustedError);
    expect(error.lastError).toBeInstanceOf(ToolBoundaryError);
    expect(error.lastError).toMatchObject({ violation: 'output_validation_failed' });
    expect(body).toHaveBeenCalledTimes(3);
  });

  it.each(['keyed_mutate', 'non_idempotent_mutate', 'irreversible'] as const)(
    'never re-runs a %s body whose output failed',
    async (sideEffectClass) => {
      const body = scriptedBody([{ total: 'x' }, { total: 1 }]);
      const runner = runnerWith(bounded({ name: 'pay', sideEffectClass, schema: {}, outputSchema }, body));

      const error = (await runner
        .call({ id: 'a', name: 'pay', args: {} })
        .catch((e: unknown) => e)) as ToolBoundaryError;

      expect(error).toBeInstanceOf(ToolBoundaryError);
      expect(error).toMatchObject({ violation: 'output_validation_failed', executed: true });
      expect(body).toHaveBeenCalledTimes(1);
    },
  );
});

describe('createToolRunner options', () => {
  it('refuses negative or fractional retry counts and a missing registry', () => {
    const registry = createToolRegistry({ allowed: [] });

    expect(() => createToolRunner({ registry, maxLlmRetries: -1 })).toThrow(ToolDefinitionError);
    expect(() => createToolRunner({ registry, maxToolRetries: 1.5 })).toThrow(ToolDefinitionError);
    expect(() => createToolRunner({ registry: undefined as never })).toThrow(ToolDefinitionError);
  });
});
