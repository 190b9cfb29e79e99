/**
 * A side-effect class from its name or one of the configuration aliases.
 */
import { GuardError } from '../errors.js';
import { stringArgument } from '../invalid-argument.js';
import { isSideEffectClass, SIDE_EFFECT_CLASS_ALIASES, SideEffectClass } from '../records/envelope.js';

/**
 * Resolve a class name or one of its configuration aliases.
 *
 * @example
 * resolveSideEffectClass('payment'); // 'non_idempotent_mutate'
 */
export function resolveSideEffectClass(name: string): SideEffectClass {
  stringArgument('resolveSideEffectClass', 'name', name);
  if (isSideEffectClass(name)) return name;
  const alias = Object.hasOwn(SIDE_EFFECT_CLASS_ALIASES, name) ? SIDE_EFFECT_CLASS_ALIASES[name] : undefined;
  if (alias !== undefined) return alias;
  const known = [...Object.keys(SideEffectClass), ...Object.keys(SIDE_EFFECT_CLASS_ALIASES)];
  throw new GuardError(
    'unknown_side_effect_class',
    `Unknown side-effect class \`${name}\` (known: ${known.map((k) => `\`${k}\``).join(', ')})`,
  );
}
