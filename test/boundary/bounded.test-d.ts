// Type tests: checked by `tsc --noEmit` (the file is never run).
import { expectTypeOf } from 'vitest';
import { z } from 'zod';
import { bounded } from '../../src/boundary/bounded.js';
import type { InferFieldSpec } from '../../src/boundary/field-spec-types.js';
import { assertValid, validate } from '../../src/boundary/validate.js';

const spec = {
  customer_id: { type: 'string', pattern: '^c\\d+$' },
  limit: { type: 'integer', required: false },
  status: { type: 'string', enum: ['open', 'closed'] },
  tags: { type: 'array', items: { type: 'string' } },
  address: { type: 'object', properties: { city: { type: 'string' } } },
} as const;

expectTypeOf<InferFieldSpec<typeof spec>>().toEqualTypeOf<{
  customer_id: string;
  limit?: number;
  status: 'open' | 'closed';
  tags: string[];
  address: { city: string };
}>();

// The body's arguments are inferred from a field spec…
bounded({ name: 'fetch_customer', schema: spec }, (args) => {
  expectTypeOf(args.customer_id).toEqualTypeOf<string>();
  expectTypeOf(args.limit).toEqualTypeOf<number | undefined>();
  return args.customer_id;
});

// …and from a Standard Schema (its output type), and the call takes the schema's input.
const lookup = bounded({ name: 'lookup', schema: z.object({ n: z.coerce.number() }) }, (args) => {
  expectTypeOf(args.n).toEqualTypeOf<number>();
  return args.n * 2;
});
expectTypeOf(lookup).returns.toEqualTypeOf<Promise<number>>();

// A JSON Schema infers nothing; annotate the body.
bounded(
  { name: 'search', schema: { type: 'object', properties: { q: { type: 'string' } } } },
  (args: { q: string }) => args.q,
);

// An output schema types the result.
const total = bounded({ name: 'total', schema: {}, outputSchema: { sum: { type: 'number' } } }, () => ({ sum: 1 }));
expectTypeOf(total).returns.toEqualTypeOf<Promise<{ sum: number }>>();

const result = validate(spec, {});
if (result.ok) expectTypeOf(result.value.tags).toEqualTypeOf<string[]>();
expectTypeOf(assertValid(z.string(), 'x')).toEqualTypeOf<string>();
