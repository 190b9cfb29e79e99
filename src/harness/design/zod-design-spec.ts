/**
 * A design spec from a zod 4 schema, typed structurally so that zod stays out of our declarations.
 */
import type { JsonSchemaObject } from '../../boundary/field-spec.js';
import { invalidHarnessOption } from '../errors.js';
import { formatJsonPointer } from '../json-patch/apply-json-patch.js';
import type { DesignIssueInput, DesignSpec } from './design-spec.js';

/** One issue of a failed zod parse. */
interface ZodIssueLike {
  readonly path: readonly PropertyKey[];
  readonly message: string;
  readonly code?: string;
}

/** What a zod 4 (classic) schema offers: `toJSONSchema` (as `z.toJSONSchema` does) and `safeParse`. */
export interface ZodSchemaLike {
  toJSONSchema(params?: {
    target?: 'draft-2020-12';
    io?: 'input' | 'output';
    unrepresentable?: 'throw' | 'any';
    override?: (context: { jsonSchema: Record<string, unknown> }) => void;
  }): unknown;
  safeParse(
    value: unknown,
  ):
    | { readonly success: true; readonly data: unknown }
    | { readonly success: false; readonly error: { readonly issues: readonly ZodIssueLike[] } };
}

/** Hooks a zod design spec may add; the zod schema provides `schema`, `validator` and `normalizer`. */
export type ZodDesignSpecOptions = Pick<DesignSpec, 'promptSchema' | 'serializer' | 'inputMigrator'>;

function pointerOf(path: readonly PropertyKey[]): string {
  return formatJsonPointer(path.map((segment) => (typeof segment === 'symbol' ? String(segment) : segment)));
}

/**
 * A {@link DesignSpec} from a zod 4 schema: the JSON Schema comes from zod's `toJSONSchema`
 * (2020-12, output shape; `format` annotations are left to zod, which checks them in the
 * validator), the validator is `safeParse`, and the normaliser is zod's parsed output — so a
 * trusted stored design gets zod's defaults, while a candidate must already be exactly what zod
 * would produce.
 *
 * @example
 * import { z } from 'zod';
 * const spec = zodDesignSpec(z.object({ title: z.string().min(1), tags: z.array(z.string()) }));
 * const harness = createPatchHarness({ designSpec: spec, mainModel });
 */
export function zodDesignSpec(zodSchema: ZodSchemaLike, options: ZodDesignSpecOptions = {}): DesignSpec {
  let schema: unknown;
  try {
    schema = zodSchema.toJSONSchema({
      target: 'draft-2020-12',
      io: 'output',
      unrepresentable: 'throw',
      override: (context) => {
        // Ajv has no formats built in and refuses unknown ones; zod's own parse checks them.
        delete context.jsonSchema.format;
      },
    });
  } catch (error) {
    throw invalidHarnessOption('zodSchema', `zod could not describe it as JSON Schema: ${(error as Error).message}`, {
      cause: error,
    });
  }
  function parse(design: unknown): unknown {
    const result = zodSchema.safeParse(design);
    if (result.success) return result.data;
    throw new Error(result.error.issues[0]?.message ?? 'zod refused the design');
  }
  return {
    ...options,
    schema: schema as JsonSchemaObject,
    validator(design): readonly DesignIssueInput[] {
      const result = zodSchema.safeParse(design);
      if (result.success) return [];
      return result.error.issues.map((issue) => ({
        pointer: pointerOf(issue.path),
        message: issue.message,
        code: issue.code ?? 'invalid_value',
      }));
    },
    normalizer: parse,
  };
}
