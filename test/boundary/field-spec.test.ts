import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { compileSchema, detectSchemaKind } from '../../src/boundary/compile-schema.js';
import { SchemaDefinitionError } from '../../src/boundary/errors.js';
import { fieldSpecToJsonSchema } from '../../src/boundary/field-spec.js';
import type { FieldSpec } from '../../src/boundary/field-spec-types.js';

describe('fieldSpecToJsonSchema', () => {
  it('compiles a spec to a closed JSON Schema, required by default', () => {
    const schema = fieldSpecToJsonSchema({
      customer_id: { type: 'string', pattern: '^c\\d+$', description: 'the id' },
      limit: { type: 'integer', required: false, minimum: 1, maximum: 100 },
      tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] }, maxItems: 3 },
      address: { type: 'object', properties: { city: { type: 'string', minLength: 1 } } },
    });

    expect(schema).toEqual({
      type: 'object',
      properties: {
        customer_id: { type: 'string', pattern: '^c\\d+$', description: 'the id' },
        limit: { type: 'integer', minimum: 1, maximum: 100 },
        tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] }, maxItems: 3 },
        address: {
          type: 'object',
          properties: { city: { type: 'string', minLength: 1 } },
          required: ['city'],
          additionalProperties: false,
        },
      },
      required: ['customer_id', 'tags', 'address'],
      additionalProperties: false,
    });
  });

  it('keeps a field named `__proto__` as a field', () => {
    const spec = JSON.parse('{"__proto__": {"type": "string"}}') as FieldSpec;

    const schema = fieldSpecToJsonSchema(spec);

    expect(Object.keys(schema.properties as object)).toEqual(['__proto__']);
  });

  it('does not modify the spec it is given', () => {
    const spec = { tags: { type: 'array', items: { type: 'string' } } } as const satisfies FieldSpec;
    const before = JSON.stringify(spec);

    compileSchema(spec);

    expect(JSON.stringify(spec)).toBe(before);
  });
});

describe('a bad field spec fails when it is defined', () => {
  it.each([
    ['pattern on a number', { n: { type: 'number', pattern: '^1$' } }, '/n', 'only allowed on `string` fields'],
    ['an unknown type', { s: { type: 'strnig' } }, '/s', 'unknown type `strnig`'],
    ['an invalid regex', { s: { type: 'string', pattern: '(' } }, '/s', 'not a valid regular expression'],
    ['a misspelt option', { s: { type: 'string', patern: 'x' } }, '/s', 'unknown option `patern`'],
    [
      'a snake_case option',
      { s: { type: 'string', min_length: 1 } },
      '/s',
      'unknown option `min_length` on this `string` field (did you mean `minLength`?)',
    ],
    ['a missing type', { s: { required: true } }, '/s', 'missing `type`'],
    ['a type name instead of a definition', { s: 'string' }, '/s', 'must be an object'],
    ['minLength above maxLength', { s: { type: 'string', minLength: 3, maxLength: 1 } }, '/s', 'greater than'],
    ['a negative minItems', { a: { type: 'array', items: { type: 'string' }, minItems: -1 } }, '/a', 'non-negative'],
    ['an array without items', { a: { type: 'array' } }, '/a', 'needs `items`'],
    ['an object without properties', { o: { type: 'object' } }, '/o', 'needs `properties`'],
    [
      '`required` on array items',
      { a: { type: 'array', items: { type: 'string', required: true } } },
      '/a/items',
      'no meaning',
    ],
    ['an enum of the wrong type', { i: { type: 'integer', enum: [1, 'two'] } }, '/i', 'is not an `integer`'],
    ['an empty enum', { b: { type: 'boolean', enum: [] } }, '/b', 'non-empty'],
    ['a non-boolean `required`', { s: { type: 'string', required: 'yes' } }, '/s', '`required` must be a boolean'],
    [
      'a nested problem',
      { o: { type: 'object', properties: { deep: { type: 'number', minLength: 1 } } } },
      '/o/deep',
      'minLength',
    ],
    ['an infinite maximum', { n: { type: 'number', maximum: Number.POSITIVE_INFINITY } }, '/n', 'finite'],
  ])('%s', (_label, spec, field, problem) => {
    let caught: unknown;
    try {
      compileSchema(spec as unknown as FieldSpec);
    } catch (error) {
      caught = error;
    }

    expect(caught).toBeInstanceOf(SchemaDefinitionError);
    const error = caught as SchemaDefinitionError;
    expect(error.code).toBe('invalid_schema');
    expect(error.field).toBe(field);
    expect(error.problem).toContain(problem);
    expect(error.message).toContain(`\`${field}\``);
    expect(error.message).not.toMatch(/\.$/);
  });

  it('a JSON Schema with an unknown keyword or an unknown format', () => {
    expect(() => compileSchema({ type: 'object', propertise: {} })).toThrow(/unknown keyword: "propertise"/);
    expect(() => compileSchema({ type: 'object', properties: { e: { type: 'string', format: 'email' } } })).toThrow(
      /unknown format "email".*use `pattern`/,
    );
  });

  it('something that is no schema at all', () => {
    expect(() => compileSchema(42 as never)).toThrow(SchemaDefinitionError);
    expect(() => compileSchema([] as never)).toThrow(SchemaDefinitionError);
  });
});

describe('detectSchemaKind', () => {
  it.each([
    [{}, 'field_spec'],
    [{ id: { type: 'string' } }, 'field_spec'],
    [{ type: { type: 'string' }, properties: { type: 'object', properties: {} } }, 'field_spec'],
    [{ type: 'object', properties: { id: { type: 'string' } } }, 'json_schema'],
    [{ properties: { id: { type: 'string' } }, required: ['id'] }, 'json_schema'],
    [{ $schema: 'https://json-schema.org/draft/2020-12/schema', id: { type: 'string' } }, 'json_schema'],
    [{ anyOf: [{ type: 'string' }] }, 'json_schema'],
    [z.object({ id: z.string() }), 'standard_schema'],
  ])('%j → %s', (schema, kind) => {
    expect(detectSchemaKind(schema)).toBe(kind);
  });

  it('recognises a Standard Schema that is a function (as arktype types are)', () => {
    const fn = Object.assign(() => undefined, {
      '~standard': { version: 1, vendor: 'fn', validate: (value: unknown) => ({ value }) },
    });

    expect(detectSchemaKind(fn)).toBe('standard_schema');
  });

  it('does not take an object with a malformed `~standard` for a Standard Schema', () => {
    expect(() => compileSchema({ '~standard': { version: 2, validate: () => ({}) } } as never)).toThrow(
      SchemaDefinitionError,
    );
  });
});
