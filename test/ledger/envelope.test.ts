import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  Boundary,
  CLASS_DEFAULTS,
  CLASS_PROPERTIES,
  CONSEQUENTIAL_CLASSES,
  GuardError,
  resolveSideEffectClass,
  SIDE_EFFECT_CLASS_ALIASES,
  SideEffectClass,
} from '../../src/index.js';
import { advanceBoundary, isConsequential, isRerunnable } from '../../src/records/envelope.js';

describe('CLASS_DEFAULTS', () => {
  it.each([
    ['read', 'safe_retry', 'multi_use'],
    ['idempotent_mutate', 'safe_retry', 'multi_use'],
    ['keyed_mutate', 'retry_only_with_same_provider_idempotency_key', 'single_use'],
    ['non_idempotent_mutate', 'manual_reconciliation_required', 'single_use'],
    ['irreversible', 'never_retry_automatically', 'non_replayable'],
  ] as const)('%s → %s / %s', (sideEffectClass, retryPermission, spendability) => {
    expect(CLASS_DEFAULTS[sideEffectClass]).toEqual({ retryPermission, spendability });
  });

  it('covers exactly the five classes', () => {
    expect(Object.keys(CLASS_DEFAULTS).sort()).toEqual(Object.keys(SideEffectClass).sort());
  });

  it('cannot be changed at runtime', () => {
    expect(Object.isFrozen(CLASS_DEFAULTS)).toBe(true);
  });
});

describe('CLASS_PROPERTIES', () => {
  it.each([
    ['read', false, true],
    ['idempotent_mutate', false, true],
    ['keyed_mutate', true, false],
    ['non_idempotent_mutate', true, false],
    ['irreversible', true, false],
  ] as const)('%s: consequential %s, rerunnable %s', (sideEffectClass, consequential, rerunnable) => {
    expect(CLASS_PROPERTIES[sideEffectClass]).toMatchObject({ consequential, rerunnable });
    expect(isConsequential(sideEffectClass)).toBe(consequential);
    expect(CONSEQUENTIAL_CLASSES.has(sideEffectClass)).toBe(consequential);
    expect(isRerunnable(sideEffectClass)).toBe(rerunnable);
    // The defaults are the table's own.
    expect(CLASS_DEFAULTS[sideEffectClass]).toEqual({
      retryPermission: CLASS_PROPERTIES[sideEffectClass].retryPermission,
      spendability: CLASS_PROPERTIES[sideEffectClass].spendability,
    });
  });

  it('is frozen to its rows, and names no class for an alias or another value', () => {
    expect(Object.isFrozen(CLASS_PROPERTIES.keyed_mutate)).toBe(true);
    expect(Object.isFrozen(CLASS_DEFAULTS.keyed_mutate)).toBe(true);
    for (const value of ['payment', 'toString', '__proto__', '']) expect(isConsequential(value)).toBe(false);
  });
});

describe('resolveSideEffectClass', () => {
  it.each([
    ['read_only', 'read'],
    ['idempotent_write', 'idempotent_mutate'],
    ['external_api_mutation', 'keyed_mutate'],
    ['payment', 'non_idempotent_mutate'],
    ['email', 'non_idempotent_mutate'],
    ['subagent', 'non_idempotent_mutate'],
    ['non_idempotent_write', 'non_idempotent_mutate'],
    ['onchain_action', 'irreversible'],
  ])('alias %s → %s', (alias, expected) => {
    expect(resolveSideEffectClass(alias)).toBe(expected);
  });

  it('knows exactly the documented aliases', () => {
    expect(Object.keys(SIDE_EFFECT_CLASS_ALIASES).sort()).toEqual(
      [
        'email',
        'external_api_mutation',
        'idempotent_write',
        'non_idempotent_write',
        'onchain_action',
        'payment',
        'read_only',
        'subagent',
      ].sort(),
    );
  });

  it.each(Object.values(SideEffectClass))('class %s resolves to itself', (name) => {
    expect(resolveSideEffectClass(name)).toBe(name);
  });

  it.each(['wire_transfer', 'Payment', '', '__proto__', 'toString', 'hasOwnProperty'])(
    'unknown name `%s` throws naming it',
    (name) => {
      let error: unknown;
      try {
        resolveSideEffectClass(name);
      } catch (caught) {
        error = caught;
      }

      expect(error).toBeInstanceOf(GuardError);
      expect((error as GuardError).code).toBe('unknown_side_effect_class');
      expect((error as GuardError).message).toContain(`\`${name}\``);
    },
  );
});

const rank = { not_crossed: 0, maybe_crossed: 1, crossed: 2 } as const;
const boundaries = Object.values(Boundary);

describe('advanceBoundary', () => {
  it.each([
    ['not_crossed', 'not_crossed', 'not_crossed'],
    ['not_crossed', 'maybe_crossed', 'maybe_crossed'],
    ['not_crossed', 'crossed', 'crossed'],
    ['maybe_crossed', 'not_crossed', 'maybe_crossed'],
    ['maybe_crossed', 'maybe_crossed', 'maybe_crossed'],
    ['maybe_crossed', 'crossed', 'crossed'],
    ['crossed', 'not_crossed', 'crossed'],
    ['crossed', 'maybe_crossed', 'crossed'],
    ['crossed', 'crossed', 'crossed'],
  ] as const)('%s then %s → %s', (current, next, expected) => {
    expect(advanceBoundary(current, next)).toBe(expected);
  });

  it('never moves backwards over any sequence of marks', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...boundaries), { maxLength: 20 }), (marks) => {
        let current: Boundary = 'not_crossed';
        for (const mark of marks) {
          const next = advanceBoundary(current, mark);
          expect(rank[next]).toBe(Math.max(rank[current], rank[mark]));
          current = next;
        }
      }),
    );
  });
});
