import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { compileSchema } from '../../src/boundary/compile-schema.js';
import { ValidationError } from '../../src/boundary/errors.js';
import type { FieldSpec } from '../../src/boundary/field-spec-types.js';
import type { ValidationIssue } from '../../src/boundary/issues.js';
import type { StandardSchemaV1 } from '../../src/boundary/standard-schema.js';
import { assertValid, validate, validateAsync } from '../../src/boundary/validate.js';

const spec = {
  customer_id: { type: 'string', pattern: '^c\\d+$' },
  name: { type: 'string', minLength: 2, maxLength: 5, required: false },
  limit: { type: 'integer', minimum: 1, maximum: 10, required: false },
  status: { type: 'string', enum: ['open', 'closed'], required: false },
  tags: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 2, required: false },
} as const satisfies FieldSpec;

function issuesOf(result: { ok: boolean; issues?: readonly ValidationIssue[] }): readonly ValidationIssue[] {
  if (result.ok) throw new Error('expected a failed validation');
  return result.issues ?? [];
}

describe('validate with a field spec', () => {
  it('accepts a valid value and returns it unchanged (no coercion, no defaults)', () => {
    const value = { customer_id: 'c42', limit: 3 };

    const result = validate(spec, value);

    expect(result).toEqual({ ok: true, value });
    expect(result.ok && result.value).toBe(value);
  });

  it.each([
    ['missing_required_field', {}, ['customer_id'], 'a string', 'nothing'],
    ['type_mismatch', { customer_id: 'c1', limit: '3' }, ['limit'], 'integer', 'string "3"'],
    ['type_mismatch', { customer_id: 'c1', limit: 2.5 }, ['limit'], 'integer', 'number 2.5'],
    ['pattern_mismatch', { customer_id: 'C-1' }, ['customer_id'], 'a string matching `^c\\d+$`', 'string "C-1"'],
    ['unexpected_field', { customer_id: 'c1', admin: true }, ['admin'], 'one of', 'boolean true'],
    ['too_short', { customer_id: 'c1', name: 'a' }, ['name'], 'at least 2 characters', '1 character'],
    ['too_long', { customer_id: 'c1', name: 'abcdef' }, ['name'], 'at most 5 characters', '6 characters'],
    ['too_few_items', { customer_id: 'c1', tags: [] }, ['tags'], 'at least 1 item', 'array of 0 items'],
    ['too_many_items', { customer_id: 'c1', tags: ['a', 'b', 'c'] }, ['tags'], 'at most 2 items', 'array of 3 items'],
    ['not_in_enum', { customer_id: 'c1', status: 'gone' }, ['status'], 'one of `"open"`, `"closed"`', 'string "gone"'],
    ['out_of_range', { customer_id: 'c1', limit: 11 }, ['limit'], 'a number <= 10', 'integer 11'],
    ['type_mismatch', { customer_id: 'c1', tags: ['a', 7] }, ['tags', 1], 'string', 'integer 7'],
  ])('reports %s at %j', (code, value, path, expected, actual) => {
    const [first] = issuesOf(validate(spec, value));

    expect(first).toMatchObject({ code, path });
    expect(first?.expected).toContain(expected);
    expect(first?.actual).toBe(actual);
    expect(first?.message).not.toMatch(/\.$/);
  });

  it('reports every issue at once', () => {
    const issues = issuesOf(validate(spec, { limit: 0, extra: 1 }));

    expect(issues.map((issue) => issue.code).sort()).toEqual([
      'missing_required_field',
      'out_of_range',
      'unexpected_field',
    ]);
  });

  it('rejects NaN and Infinity as numbers, and a non-object as arguments', () => {
    expect(issuesOf(validate(spec, { customer_id: 'c1', limit: Number.NaN }))[0]?.code).toBe('type_mismatch');
    expect(issuesOf(validate(spec, { customer_id: 'c1', limit: Infinity }))[0]?.code).toBe('type_mismatch');
    expect(issuesOf(validate(spec, 'customer_id=c1'))[0]).toMatchObject({ code: 'type_mismatch', path: [] });
    expect(issuesOf(validate(spec, null))[0]).toMatchObject({ code: 'type_mismatch', path: [] });
  });

  it('describes a big input briefly, never in full', () => {
    const big = 'x'.repeat(100_000);

    const [issue] = issuesOf(validate(spec, { customer_id: big }));

    expect(issue?.actual).toBe('string of 100000 characters starting "xxxxxxxxxxxxxxxxxxxx…"');
    expect(issue?.message.length).toBeLessThan(200);
  });

  it('does not read members from a polluted prototype', () => {
    const inherited = Object.create({ customer_id: 'c1' }) as object;

    expect(issuesOf(validate(spec, inherited))[0]?.code).toBe('missing_required_field');
  });

  it('never throws for exotic values', () => {
    const exotic: unknown[] = [
      undefined,
      Symbol('s'),
      () => 1,
      10n,
      new Map(),
      new Date(),
      [1, [2]],
      Object.create(null),
    ];
    for (const value of exotic) expect(validate(spec, value).ok).toBe(false);
  });
});

describe('validate with a JSON Schema', () => {
  const schema = {
    type: 'object',
    properties: { id: { type: 'string', pattern: '^c\\d+$' }, n: { type: ['integer', 'null'], default: 5 } },
    required: ['id'],
    additionalProperties: false,
  };

  it('validates without coercing or inserting defaults', () => {
    const value = { id: 'c1' };

    expect(validate(schema, value)).toEqual({ ok: true, value: { id: 'c1' } });
    expect(issuesOf(validate(schema, { id: 'c1', n: '5' }))[0]).toMatchObject({ code: 'type_mismatch', path: ['n'] });
    expect(issuesOf(validate(schema, { id: 1 }))[0]).toMatchObject({ code: 'type_mismatch', expected: 'string' });
  });

  it('supports draft 2020-12', () => {
    const modern = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'array',
      prefixItems: [{ type: 'string' }],
    };

    expect(validate(modern, ['a']).ok).toBe(true);
    expect(issuesOf(validate(modern, [1]))[0]).toMatchObject({ code: 'type_mismatch', path: [0] });
  });

  it('resolves a `$ref` to an `$anchor` (2019-09 and 2020-12)', () => {
    const anchored = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $defs: { city: { $anchor: 'city', type: 'string' } },
      properties: { at: { $ref: '#city' } },
    };

    expect(validate(anchored, { at: 'Paris' }).ok).toBe(true);
    expect(issuesOf(validate(anchored, { at: 7 }))[0]).toMatchObject({ code: 'type_mismatch', path: ['at'] });
  });

  it('lets two schemas share one `$id`', () => {
    expect(validate({ $id: 'https://example.com/a', type: 'string' }, 'x').ok).toBe(true);
    expect(validate({ $id: 'https://example.com/a', type: 'number' }, 1).ok).toBe(true);
  });
});

describe('validate with a Standard Schema (zod 4)', () => {
  const schema = z.strictObject({
    id: z.string().regex(/^c\d+$/),
    n: z.number().int().min(1),
    name: z.string().min(2),
  });

  it('returns the schema output (transforms applied)', () => {
    const trimmed = z.object({ name: z.string().transform((s) => s.trim()) });

    expect(validate(trimmed, { name: '  Ada ' })).toEqual({ ok: true, value: { name: 'Ada' } });
  });

  it('maps zod issues onto our codes', () => {
    const issues = issuesOf(validate(schema, { id: 'x', name: 'a', extra: 1 }));
    const byPath = Object.fromEntries(issues.map((issue) => [issue.path.join('.'), issue.code]));

    expect(byPath).toEqual({
      id: 'pattern_mismatch',
      n: 'missing_required_field',
      name: 'too_short',
      extra: 'unexpected_field',
    });
    expect(issuesOf(validate(schema, { id: 'c1', n: '1', name: 'ab' }))[0]).toMatchObject({
      code: 'type_mismatch',
      path: ['n'],
    });
  });

  it('reports an async schema as an issue from validate, and validates it with validateAsync', async () => {
    const slow = z.object({ id: z.string().refine(async (id) => id.startsWith('c')) });

    expect(issuesOf(validate(slow, { id: 'c1' }))[0]?.code).toBe('async_schema');
    expect(await validateAsync(slow, { id: 'c1' })).toEqual({ ok: true, value: { id: 'c1' } });
    expect((await validateAsync(slow, { id: 'x' })).ok).toBe(false);
  });

  it('turns a throwing validator into an issue', () => {
    const broken: StandardSchemaV1 = {
      '~standard': {
        version: 1,
        vendor: 'broken',
        validate: () => {
          throw new Error('boom');
        },
      },
    };

    expect(issuesOf(validate(broken, {}))[0]).toMatchObject({
      code: 'invalid_value',
      message: 'The schema threw: boom',
    });
  });
});

describe('assertValid and compileSchema', () => {
  it('returns the value or throws ValidationError with the issues', () => {
    expect(assertValid(spec, { customer_id: 'c1' })).toEqual({ customer_id: 'c1' });

    let caught: unknown;
    try {
      assertValid(spec, { customer_id: 7 });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ValidationError);
    expect((caught as ValidationError).code).toBe('validation_failed');
    expect((caught as ValidationError).issues[0]).toMatchObject({ code: 'type_mismatch', path: ['customer_id'] });
    expect((caught as ValidationError).message).toBe(
      'Validation failed at `/customer_id`: Expected string, got integer 7',
    );
  });

  it('compiles once per schema object and accepts a compiled schema', () => {
    const compiled = compileSchema(spec);

    expect(compileSchema(spec)).toBe(compiled);
    expect(compileSchema(compiled)).toBe(compiled);
    expect(validate(compiled, { customer_id: 'c9' }).ok).toBe(true);
    expect(compiled.jsonSchema).toMatchObject({ type: 'object', additionalProperties: false });
    expect(Object.isFrozen(compiled)).toBe(true);
  });
});
