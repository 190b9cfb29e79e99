import { describe, expect, it } from 'vitest';
import { type BoundedOptions, bounded } from '../../src/boundary/bounded.js';
import type { ToolSchema } from '../../src/boundary/compile-schema.js';
import { SchemaDefinitionError, ToolDefinitionError } from '../../src/boundary/errors.js';

type AnyOptions = BoundedOptions<ToolSchema, ToolSchema | undefined>;

function define(options: Partial<AnyOptions> & Record<string, unknown>, fn: unknown = () => 1): unknown {
  try {
    bounded({ name: 'files', ...options } as AnyOptions, fn as () => number);
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('bounded refuses a bad definition at once', () => {
  it('a bad field spec, naming the tool, the schema, the field and the problem', () => {
    const error = define({ schema: { size: { type: 'integer', pattern: '^\\d+$' } } });

    expect(error).toBeInstanceOf(SchemaDefinitionError);
    expect(error).toMatchObject({ tool: 'files', field: '/size' });
    expect((error as Error).message).toBe(
      'Invalid `schema` of tool `files` at `/size`: `pattern` is only allowed on `string` fields, not on this `integer` field',
    );
  });

  it('a bad output schema', () => {
    const error = define({ schema: {}, outputSchema: { total: { type: 'float' } } });

    expect(error).toBeInstanceOf(SchemaDefinitionError);
    expect((error as Error).message).toContain(
      'Invalid `outputSchema` of tool `files` at `/total`: unknown type `float`',
    );
  });

  it.each([
    ['no schema', {}, 'schema', 'is required'],
    [
      'pathParams without allowedPaths',
      { schema: { p: { type: 'string' } }, pathParams: ['p'] },
      'pathParams',
      'needs `allowedPaths`',
    ],
    ['allowedPaths without pathParams', { schema: {}, allowedPaths: ['/tmp'] }, 'allowedPaths', 'no effect'],
    [
      'a relative root',
      { schema: { p: { type: 'string' } }, pathParams: ['p'], allowedPaths: ['work'] },
      'allowedPaths',
      'not an absolute path',
    ],
    [
      'an undeclared path param',
      { schema: { p: { type: 'string' } }, pathParams: ['path'], allowedPaths: ['/tmp'] },
      'pathParams',
      '`path` is not an argument',
    ],
    [
      'a path param that is a number',
      { schema: { p: { type: 'integer' } }, pathParams: ['p'], allowedPaths: ['/tmp'] },
      'pathParams',
      'is an `integer`',
    ],
    [
      'an undeclared entity param',
      { schema: { id: { type: 'string' } }, entityPattern: { customer: '^c' } },
      'entityPattern',
      '`customer`',
    ],
    [
      'an invalid entity regex',
      { schema: { id: { type: 'string' } }, entityPattern: { id: '(' } },
      'entityPattern.id',
      'not a valid regular expression',
    ],
    [
      'an unknown side-effect class',
      { schema: {}, sideEffectClass: 'write-ish' },
      'sideEffectClass',
      'Unknown side-effect class `write-ish`',
    ],
  ])('%s', (_label, options, option, problem) => {
    const error = define(options as Record<string, unknown>);

    expect(error).toBeInstanceOf(ToolDefinitionError);
    expect(error).toMatchObject({ code: 'invalid_tool_definition', tool: 'files', option });
    expect((error as ToolDefinitionError).problem).toContain(problem);
  });

  it('an anonymous function without a name', () => {
    const error = define(
      { name: undefined, schema: {} } as Record<string, unknown>,
      (
        () => () =>
          1
      )(),
    );

    expect(error).toBeInstanceOf(ToolDefinitionError);
    expect(error).toMatchObject({ option: 'name' });
  });

  it('accepts side-effect class aliases', () => {
    expect(bounded({ name: 'r', schema: {}, sideEffectClass: 'read_only' }, () => 1).sideEffectClass).toBe('read');
    expect(bounded({ name: 'p', schema: {}, sideEffectClass: 'payment' }, () => 1).sideEffectClass).toBe(
      'non_idempotent_mutate',
    );
  });
});
