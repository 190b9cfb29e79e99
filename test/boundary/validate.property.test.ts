import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FieldDef, FieldSpec } from '../../src/boundary/field-spec-types.js';
import { IssueCode } from '../../src/boundary/issues.js';
import { validate } from '../../src/boundary/validate.js';

// Field names include JSON Schema keywords, so specs that look a little like JSON Schemas are generated too.
const names = fc.constantFrom('id', 'name', 'n', 'type', 'properties', 'required', 'items', 'x-y', 'a/b');

const { spec: specArb } = fc.letrec<{ field: FieldDef; item: FieldDef; spec: FieldSpec }>((tie) => {
  const leafType = fc.constantFrom('string', 'integer', 'number', 'boolean') as fc.Arbitrary<
    'string' | 'integer' | 'number' | 'boolean'
  >;
  const field = (withRequired: boolean): fc.Arbitrary<FieldDef> => {
    const required = withRequired ? { required: fc.boolean() } : {};
    return fc.oneof(
      { maxDepth: 3, depthIdentifier: 'spec' },
      fc.record({ type: leafType, ...required }, { requiredKeys: ['type'] }) as fc.Arbitrary<FieldDef>,
      fc.record(
        { type: fc.constant('array'), items: tie('item'), ...required },
        { requiredKeys: ['type', 'items'] },
      ) as fc.Arbitrary<FieldDef>,
      fc.record(
        { type: fc.constant('object'), properties: tie('spec'), ...required },
        { requiredKeys: ['type', 'properties'] },
      ) as fc.Arbitrary<FieldDef>,
    );
  };
  return {
    field: field(true),
    item: field(false),
    spec: fc.dictionary(names, tie('field'), { maxKeys: 4 }) as fc.Arbitrary<FieldSpec>,
  };
});

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The straightforward reading of a spec: required fields present, every type right, nothing extra. */
function referenceField(def: FieldDef, value: unknown): boolean {
  switch (def.type) {
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'array':
      return Array.isArray(value) && value.every((item) => referenceField(def.items, item));
    case 'object':
      return referenceSpec(def.properties, value);
  }
}

function referenceSpec(spec: FieldSpec, value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  if (Object.keys(value).some((key) => !Object.hasOwn(spec, key))) return false;
  return Object.entries(spec).every(([name, def]) =>
    Object.hasOwn(value, name) ? referenceField(def, value[name]) : def.required === false,
  );
}

function validValue(def: FieldDef): fc.Arbitrary<unknown> {
  switch (def.type) {
    case 'string':
      return fc.string({ maxLength: 4 });
    case 'integer':
      return fc.integer();
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(validValue(def.items), { maxLength: 3 });
    case 'object':
      return validArgs(def.properties);
  }
}

function validArgs(spec: FieldSpec): fc.Arbitrary<Record<string, unknown>> {
  const entries = Object.entries(spec);
  const requiredKeys = entries.filter(([, def]) => def.required !== false).map(([name]) => name);
  return fc.record(Object.fromEntries(entries.map(([name, def]) => [name, validValue(def)])), { requiredKeys });
}

/** A valid value with one change at the top: a field dropped, added or replaced by any JSON value. */
function mutatedArgs(spec: FieldSpec): fc.Arbitrary<unknown> {
  return fc
    .tuple(validArgs(spec), fc.constantFrom('drop', 'add', 'replace'), names, fc.jsonValue({ maxDepth: 2 }))
    .map(([args, change, name, json]) => {
      const next: Record<string, unknown> = { ...args };
      if (change === 'drop') delete next[name];
      else next[name] = json;
      return next;
    });
}

const codes = new Set<string>(Object.values(IssueCode));

describe('validate (property)', () => {
  it('never throws, and failures always carry well-formed issues', () => {
    fc.assert(
      fc.property(specArb, fc.anything({ maxDepth: 3 }), (spec, value) => {
        const result = validate(spec, value);

        if (!result.ok) {
          expect(result.issues.length).toBeGreaterThan(0);
          for (const issue of result.issues) {
            expect(codes.has(issue.code)).toBe(true);
            expect(Array.isArray(issue.path)).toBe(true);
            expect(issue.message.length).toBeGreaterThan(0);
          }
        }
      }),
      { numRuns: 150 },
    );
  });

  it('agrees with the reference check for required fields and types', () => {
    const cases = specArb.chain((spec) =>
      fc.tuple(fc.constant(spec), fc.oneof(validArgs(spec), mutatedArgs(spec), fc.jsonValue({ maxDepth: 3 }))),
    );
    fc.assert(
      fc.property(cases, ([spec, value]) => {
        expect(validate(spec, value).ok).toBe(referenceSpec(spec, value));
      }),
      { numRuns: 250 },
    );
  });

  it('names a missing required top-level field and an unexpected one', () => {
    fc.assert(
      fc.property(specArb, names, (spec, extra) => {
        const missing = Object.entries(spec)
          .filter(([, def]) => def.required !== false)
          .map(([name]) => name);
        const value = Object.hasOwn(spec, extra) ? {} : { [extra]: 1 };

        const result = validate(spec, value);
        const found = result.ok ? [] : result.issues.map((issue) => `${issue.code}:${issue.path.join('.')}`);

        for (const name of missing) expect(found).toContain(`missing_required_field:${name}`);
        if (!Object.hasOwn(spec, extra)) expect(found).toContain(`unexpected_field:${extra}`);
      }),
      { numRuns: 80 },
    );
  });
});
