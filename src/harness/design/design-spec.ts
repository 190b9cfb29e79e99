/**
 * Design specs: the JSON Schema (2020-12, through Ajv) and hooks that say what a valid design is,
 * how stored input is upgraded, and what an untrusted candidate must satisfy.
 */
import { compileSchema } from '../../boundary/compile-schema.js';
import type { JsonSchemaObject } from '../../boundary/field-spec.js';
import { toJsonPointer } from '../../boundary/issues.js';
import { canonicalJson } from '../../core/canonical-json.js';
import { checkOptions } from '../../invalid-argument.js';
import { invalidHarnessOption } from '../errors.js';
import type { JsonValue } from '../json-patch/apply-json-patch.js';
import { type DesignCheck, type DesignIssue, DesignRefusal, DesignValidationError } from './design-errors.js';
import { firstDifference } from './first-difference.js';

const DRAFT_2020_12 = 'https://json-schema.org/draft/2020-12/schema';

/** A problem a spec's `validator` reports; `pointer` defaults to the design itself. */
export interface DesignIssueInput {
  readonly pointer?: string;
  readonly message: string;
  readonly code?: string;
}

/** What may be awaited. */
type MaybePromise<T> = T | Promise<T>;

/** What a valid design is, and how designs are upgraded and normalised. */
export interface DesignSpec {
  /** JSON Schema 2020-12 of a stored design (`$schema` may be left out; another draft is refused). */
  readonly schema: JsonSchemaObject;
  /** The schema shown to the model, when it should differ from `schema` (shorter, with descriptions). */
  readonly promptSchema?: JsonSchemaObject;
  /** Rules the schema cannot say; return no issues for a valid design. */
  readonly validator?: (design: JsonValue) => MaybePromise<readonly DesignIssueInput[]>;
  /** The stored JSON form of a design (default: the design itself). */
  readonly serializer?: (design: JsonValue) => unknown;
  /** The normal form of a design (default: the design itself); a candidate must already be in it. */
  readonly normalizer?: (design: JsonValue) => unknown;
  /** Upgrade trusted stored input (an older version) before it is normalised and validated. */
  readonly inputMigrator?: (stored: unknown) => unknown;
}

/** A design spec compiled once per harness. */
export interface CompiledDesignSpec {
  /** The schema shown to the model (with `$schema`). */
  readonly promptSchema: JsonSchemaObject;
  /** Migrate, normalise, serialise and validate trusted stored input; throws {@link DesignValidationError}. */
  loadTrusted(stored: unknown): Promise<JsonValue>;
  /** Validate an untrusted candidate and check it round-trips exactly; never throws for a bad candidate. */
  checkCandidate(candidate: JsonValue): Promise<DesignCheck>;
}

function withDraft(schema: JsonSchemaObject, option: string): JsonSchemaObject {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw invalidHarnessOption(option, 'a design schema must be a JSON Schema object');
  }
  const declared = schema.$schema;
  if (declared === undefined) return { ...schema, $schema: DRAFT_2020_12 };
  if (typeof declared !== 'string' || !declared.includes('2020-12')) {
    throw invalidHarnessOption(
      option,
      `a design schema is JSON Schema 2020-12, got \`$schema\` \`${String(declared)}\``,
    );
  }
  return schema;
}

function asJson(value: unknown, what: string): JsonValue {
  try {
    // Round-trip through canonical text: a copy the caller cannot change under us.
    return JSON.parse(canonicalJson(value)) as JsonValue;
  } catch (error) {
    throw new DesignValidationError(
      DesignRefusal.unusable,
      [{ pointer: '', code: 'non_json_value', message: `${what} is not JSON: ${(error as Error).message}` }],
      { cause: error },
    );
  }
}

function hook(fn: ((design: JsonValue) => unknown) | undefined, design: JsonValue, what: string): JsonValue {
  if (fn === undefined) return design;
  let out: unknown;
  try {
    out = fn(design);
  } catch (error) {
    const message = `the ${what} failed: ${error instanceof Error ? error.message : String(error)}`;
    throw new DesignValidationError(DesignRefusal.unusable, [{ pointer: '', code: `${what}_failed`, message }], {
      cause: error,
    });
  }
  return asJson(out, `the ${what}'s result`);
}

/**
 * Compile a {@link DesignSpec}: the schema is checked against the 2020-12 meta-schema by Ajv here
 * (a malformed schema throws {@link InvalidOptionError}), not on first use.
 *
 * @example
 * const spec = compileDesignSpec({ schema: { type: 'object', properties: { title: { type: 'string' } } } });
 * await spec.checkCandidate({ title: 7 }); // { ok: false, refusal: 'invalid', issues: [{ pointer: '/title', … }] }
 */
export function compileDesignSpec(spec: DesignSpec): CompiledDesignSpec {
  checkOptions('compileDesignSpec', spec, false, 'spec');
  if (typeof spec !== 'object' || spec === null) throw invalidHarnessOption('designSpec', 'expected an object');
  const schema = withDraft(spec.schema, 'designSpec.schema');
  const promptSchema =
    spec.promptSchema === undefined ? schema : withDraft(spec.promptSchema, 'designSpec.promptSchema');
  let compiled: ReturnType<typeof compileSchema>;
  try {
    compiled = compileSchema(schema);
    if (promptSchema !== schema) compileSchema(promptSchema);
  } catch (error) {
    throw invalidHarnessOption('designSpec.schema', (error as Error).message, { cause: error });
  }
  const frozenPrompt = Object.freeze(JSON.parse(canonicalJson(promptSchema)) as JsonSchemaObject);

  async function issuesOf(design: JsonValue): Promise<DesignIssue[]> {
    const result = compiled.validate(design);
    if (!result.ok) {
      return result.issues.map((issue) => ({
        pointer: toJsonPointer(issue.path),
        message: issue.message,
        code: issue.code,
      }));
    }
    if (spec.validator === undefined) return [];
    const found = await spec.validator(design);
    return found.map((issue) => ({
      pointer: issue.pointer ?? '',
      message: issue.message,
      code: issue.code ?? 'invalid_value',
    }));
  }

  function normalForm(design: JsonValue): JsonValue {
    return hook(spec.serializer, hook(spec.normalizer, design, 'normalizer'), 'serializer');
  }

  return Object.freeze({
    promptSchema: frozenPrompt,
    async loadTrusted(stored: unknown): Promise<JsonValue> {
      const migrated =
        spec.inputMigrator === undefined
          ? asJson(stored, 'the stored design')
          : hook(spec.inputMigrator as (design: JsonValue) => unknown, stored as JsonValue, 'inputMigrator');
      const design = normalForm(migrated);
      const issues = await issuesOf(design);
      if (issues.length > 0) throw new DesignValidationError(DesignRefusal.invalid, issues);
      return design;
    },
    async checkCandidate(candidate: JsonValue): Promise<DesignCheck> {
      try {
        const design = asJson(candidate, 'the candidate');
        const issues = await issuesOf(design);
        if (issues.length > 0) return { ok: false, refusal: DesignRefusal.invalid, issues };
        const normal = normalForm(design);
        const pointer = firstDifference(design, normal);
        if (pointer === null) return { ok: true, design };
        const message = 'the stored form differs here; propose the design exactly as it would be stored';
        return { ok: false, refusal: DesignRefusal.round_trip, issues: [{ pointer, message, code: 'round_trip' }] };
      } catch (error) {
        if (error instanceof DesignValidationError) return { ok: false, refusal: error.refusal, issues: error.issues };
        throw error;
      }
    },
  });
}
