import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { bounded, type CheckedArgs, isBoundedTool } from '../../src/boundary/bounded.js';
import { ToolBoundaryError } from '../../src/boundary/errors.js';
import { GuardError } from '../../src/errors.js';

async function refusal(promise: Promise<unknown>): Promise<ToolBoundaryError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ToolBoundaryError) return error;
    throw error;
  }
  throw new Error('expected a ToolBoundaryError');
}

function fetchCustomerTool() {
  const body = vi.fn(async ({ customer_id }: { customer_id: string; limit?: number }) => ({ id: customer_id }));
  const tool = bounded(
    {
      name: 'fetch_customer',
      sideEffectClass: 'read',
      schema: {
        customer_id: { type: 'string', pattern: '^c\\d+$' },
        limit: { type: 'integer', required: false, maximum: 50 },
      },
    },
    body,
  );
  return { tool, body };
}

describe('bounded: input violations', () => {
  it.each([
    ['missing_required_field', {}, '/customer_id', 'a string', 'nothing'],
    ['type_mismatch', { customer_id: 42 }, '/customer_id', 'string', 'integer 42'],
    ['pattern_mismatch', { customer_id: 'C-1' }, '/customer_id', 'a string matching `^c\\d+$`', 'string "C-1"'],
    ['unexpected_field', { customer_id: 'c1', admin: true }, '/admin', 'one of `customer_id`, `limit`', 'boolean true'],
    ['out_of_range', { customer_id: 'c1', limit: 51 }, '/limit', 'a number <= 50', 'integer 51'],
  ])('%s: typed error, body not run', async (violation, args, field, expected, actual) => {
    const { tool, body } = fetchCustomerTool();

    const error = await refusal(tool(args as never));

    expect(body).not.toHaveBeenCalled();
    expect(error).toBeInstanceOf(GuardError);
    expect(error.code).toBe('tool_boundary_violation');
    expect(error).toMatchObject({ violation, tool: 'fetch_customer', field, expected, actual, executed: false });
    expect(error.llmMessage).toContain('The call to `fetch_customer` was NOT executed');
    expect(error.llmMessage).toContain(`\`${field}\``);
    expect(error.llmMessage).toContain('call `fetch_customer` again');
    expect(error.recoveryHint).toContain(`\`${field}\``);
    expect(error.message).toContain(`\`${field}\``);
  });

  it('lists every issue for the model', async () => {
    const { tool } = fetchCustomerTool();

    const error = await refusal(tool({ limit: 'x', extra: 1 } as never));

    expect(error.issues).toHaveLength(3);
    expect(error.llmMessage.split('\n').filter((line) => line.startsWith('- '))).toHaveLength(3);
  });

  it('runs the body with the validated arguments and the call options', async () => {
    const { tool, body } = fetchCustomerTool();

    await expect(tool({ customer_id: 'c7' }, { toolCallId: 'call_1' })).resolves.toEqual({ id: 'c7' });
    expect(body).toHaveBeenCalledWith({ customer_id: 'c7' }, { toolCallId: 'call_1' });
  });
});

describe('bounded: the three schema forms', () => {
  it('a JSON Schema', async () => {
    const body = vi.fn(() => 'ok');
    const tool = bounded(
      {
        name: 'search_docs',
        schema: {
          type: 'object',
          properties: { q: { type: 'string', minLength: 1 } },
          required: ['q'],
          additionalProperties: false,
        },
      },
      body,
    );

    await expect(tool({ q: 'ledger' })).resolves.toBe('ok');
    expect((await refusal(tool({ q: '' }))).violation).toBe('too_short');
    expect((await refusal(tool({}))).violation).toBe('missing_required_field');
    expect(body).toHaveBeenCalledTimes(1);
    expect(tool.parameters).toMatchObject({ type: 'object' });
  });

  it('a zod 4 schema through Standard Schema, whose output the body receives', async () => {
    const body = vi.fn((args: { id: string; n: number }) => args.n);
    const tool = bounded(
      { name: 'lookup', schema: z.strictObject({ id: z.string().regex(/^c\d+$/), n: z.coerce.number() }) },
      body,
    );

    await expect(tool({ id: 'c1', n: '4' })).resolves.toBe(4);
    expect((await refusal(tool({ id: 'x', n: 1 }))).violation).toBe('pattern_mismatch');
    expect((await refusal(tool({ id: 'c1', n: 1, more: 1 } as never))).violation).toBe('unexpected_field');
    expect(body).toHaveBeenCalledTimes(1);
    expect(tool.parameters).toBeUndefined();
  });

  it('a field spec with `{}`: no arguments at all', async () => {
    const tool = bounded({ name: 'ping', schema: {} }, () => 'pong');

    await expect(tool({})).resolves.toBe('pong');
    expect((await refusal(tool({ x: 1 } as never))).violation).toBe('unexpected_field');
  });
});

describe('bounded: entity patterns', () => {
  it('refuses an id of the wrong form with `scope_entity_pattern`, before the body', async () => {
    const body = vi.fn(() => 'ok');
    const tool = bounded(
      {
        name: 'close_ticket',
        schema: { ticket: { type: 'string' }, ids: { type: 'array', items: { type: 'integer' }, required: false } },
        entityPattern: { ticket: /^T-\d+$/g, ids: '^1\\d{2}$' },
      },
      body,
    );

    // A `g` regex is stateful; the same id must pass every time.
    await expect(tool({ ticket: 'T-1' })).resolves.toBe('ok');
    await expect(tool({ ticket: 'T-1' })).resolves.toBe('ok');
    const error = await refusal(tool({ ticket: 'X-1' }));
    const inArray = await refusal(tool({ ticket: 'T-2', ids: [100, 99] }));

    expect(error).toMatchObject({
      violation: 'scope_entity_pattern',
      field: '/ticket',
      expected: 'an id matching `^T-\\d+$`',
    });
    expect(error.llmMessage).toContain('NOT executed');
    expect(inArray).toMatchObject({ violation: 'scope_entity_pattern', field: '/ids/1', actual: 'integer 99' });
    expect(body).toHaveBeenCalledTimes(2);
  });
});

describe('bounded: output validation', () => {
  it('a read: `output_validation_failed`, executed, the result discarded', async () => {
    const tool = bounded(
      { name: 'get_total', sideEffectClass: 'read', schema: {}, outputSchema: { total: { type: 'number' } } },
      () => ({ total: 'lots' }),
    );

    const error = await refusal(tool({}));

    expect(error).toMatchObject({ violation: 'output_validation_failed', field: '/total', executed: true });
    expect(error.llmMessage).toContain('the result was discarded');
    expect(error.llmMessage).not.toContain('NOT executed');
  });

  it('a write: the model is told the effect may have happened and not to repeat it', async () => {
    const tool = bounded(
      { name: 'send_email', sideEffectClass: 'email', schema: {}, outputSchema: z.object({ messageId: z.string() }) },
      () => ({ messageId: 7 }),
    );

    const error = await refusal(tool({}));

    expect(error.executed).toBe(true);
    expect(error.llmMessage).toContain('WAS executed');
    expect(error.llmMessage).toContain('Do not call `send_email` again');
  });

  it('returns the validated output', async () => {
    const tool = bounded({ name: 'answer', schema: {}, outputSchema: { type: 'integer' } }, () => 42);

    await expect(tool({})).resolves.toBe(42);
  });
});

describe('bounded: check and execute', () => {
  it('refuses arguments that did not come from check', async () => {
    const { tool } = fetchCustomerTool();
    const forged = Object.freeze({ tool: 'fetch_customer', args: { customer_id: 'DROP' } }) as unknown as CheckedArgs<{
      customer_id: string;
    }>;

    await expect(tool.execute(forged)).rejects.toMatchObject({ code: 'unchecked_arguments' });
  });

  it('lets a read run checked arguments again, a write only once', async () => {
    const { tool: read } = fetchCustomerTool();
    const write = bounded({ name: 'pay', sideEffectClass: 'keyed_mutate', schema: {} }, () => 'paid');
    const readArgs = await read.check({ customer_id: 'c1' });
    const writeArgs = await write.check({});

    await read.execute(readArgs);
    await expect(read.execute(readArgs)).resolves.toEqual({ id: 'c1' });
    await expect(write.execute(writeArgs)).resolves.toBe('paid');
    await expect(write.execute(writeArgs)).rejects.toMatchObject({ code: 'unchecked_arguments' });
  });

  it('exposes its name, class and schemas, and is recognisable', () => {
    const tool = bounded({ schema: {} }, function archive_note() {
      return 1;
    });

    expect(tool.toolName).toBe('archive_note');
    expect(tool.name).toBe('archive_note');
    expect(tool.sideEffectClass).toBe('non_idempotent_mutate');
    expect(isBoundedTool(tool)).toBe(true);
    expect(isBoundedTool(() => 1)).toBe(false);
  });
});
