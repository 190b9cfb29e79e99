/**
 * Compiling JSON Schemas with Ajv, once, when a tool is defined.
 *
 * Ajv instances are created lazily and shared: an instance compiles its meta-schema on first use
 * (tens of milliseconds), so one per tool would make definitions slow. They hold no user state:
 * `addUsedSchema: false` keeps a schema's `$id` out of the instance (two tools may reuse one) and
 * every compiled schema is removed from the instance's cache right after compiling; the compiled
 * function keeps what it needs.
 */
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { SchemaDefinitionError } from './errors.js';
import type { JsonSchemaObject } from './field-spec.js';
import { fromJsonPointer } from './issues.js';

/**
 * `field_spec`: schemas we generated (fully strict). `json_schema`: user schemas (strict about
 * keywords). `foreign`: schemas another program wrote (an MCP server's), read as JSON Schema says.
 */
export type AjvMode = 'field_spec' | 'json_schema' | 'foreign';

type Draft = '07' | '2019-09' | '2020-12';

const BASE: Options = {
  allErrors: true,
  coerceTypes: false,
  useDefaults: false,
  removeAdditional: false,
  // Members are looked up with hasOwnProperty: a polluted Object.prototype cannot fill in a field.
  ownProperties: true,
  addUsedSchema: false,
  logger: false,
  strictNumbers: true,
};

const MODE_OPTIONS: Readonly<Record<AjvMode, Options>> = {
  field_spec: { ...BASE, strict: true },
  // Unknown keywords and formats still fail (a typo must not loosen validation), but schemas
  // written for other tools (union types, `required` listed apart from `properties`) are accepted.
  json_schema: {
    ...BASE,
    strictSchema: true,
    strictTypes: false,
    strictTuples: false,
    strictRequired: false,
    allowUnionTypes: true,
  },
  // Unknown keywords (`x-…` vendor extensions) are annotations and unknown formats are not
  // asserted, as JSON Schema says; the meta-schema still refuses a malformed schema.
  foreign: { ...BASE, strict: false, allowUnionTypes: true },
};

type AjvLike = Pick<Ajv, 'compile' | 'removeSchema' | 'errors'>;
const instances = new Map<string, AjvLike>();

function draftOf(schema: JsonSchemaObject): Draft {
  const uri = schema.$schema;
  if (uri === undefined) return '07';
  if (typeof uri !== 'string') throw new SchemaDefinitionError('/$schema', '`$schema` must be a string');
  if (uri.includes('2020-12')) return '2020-12';
  if (uri.includes('2019-09')) return '2019-09';
  if (uri.includes('draft-07')) return '07';
  throw new SchemaDefinitionError(
    '/$schema',
    `unsupported \`$schema\` \`${uri}\` (supported: draft-07, 2019-09, 2020-12)`,
  );
}

function instanceFor(mode: AjvMode, draft: Draft): AjvLike {
  const key = `${mode}:${draft}`;
  let ajv = instances.get(key);
  if (ajv === undefined) {
    const options = MODE_OPTIONS[mode];
    // Ajv resolves `$anchor` (2019-09 on) in `$ref`s but does not declare the keyword, so strict
    // mode would refuse a schema that names an anchor.
    const anchored = { ...options, keywords: ['$anchor'] };
    ajv = draft === '2020-12' ? new Ajv2020(anchored) : draft === '2019-09' ? new Ajv2019(anchored) : new Ajv(options);
    instances.set(key, ajv);
  }
  return ajv;
}

function definitionError(error: unknown, schemaErrors: ErrorObject[] | null | undefined): SchemaDefinitionError {
  const first = schemaErrors?.[0];
  const message = error instanceof Error ? error.message : String(error);
  const hint = message.includes('unknown format')
    ? ' (formats are not built in: use `pattern`, or a Standard Schema validator)'
    : '';
  if (first !== undefined) {
    return new SchemaDefinitionError(first.instancePath, `${first.message ?? 'is invalid'}${hint}`, { cause: error });
  }
  return new SchemaDefinitionError('', `${message}${hint}`, { cause: error });
}

/** Compile a JSON Schema with Ajv; a malformed schema throws {@link SchemaDefinitionError}. */
export function compileWithAjv(schema: JsonSchemaObject, mode: AjvMode): ValidateFunction {
  const ajv = instanceFor(mode, draftOf(schema));
  try {
    return ajv.compile(schema);
  } catch (error) {
    throw definitionError(error, ajv.errors);
  } finally {
    ajv.removeSchema(schema);
  }
}

/** The subschema at an Ajv `schemaPath` (`#/properties/a/type`), or `undefined` when it cannot be followed. */
export function schemaAt(root: JsonSchemaObject, schemaPath: string): unknown {
  if (!schemaPath.startsWith('#')) return undefined;
  let current: unknown = root;
  for (const segment of fromJsonPointer(schemaPath.slice(1))) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, segment)) return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}
