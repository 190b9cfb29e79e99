/**
 * Nodes shared by several sections: durations, paths, names and the ledger's vocabulary.
 */
import { isAbsolute, resolve } from 'node:path';
import {
  RetryPermission,
  resolveSideEffectClass,
  SIDE_EFFECT_CLASS_ALIASES,
  SideEffectClass,
  Spendability,
} from '../../ledger/envelope.js';
import type { ArgsDriftPolicy } from '../../ledger/types.js';
import { list } from './composite-nodes.js';
import { type Base, make, map, mismatch, type Node, oneOf, string } from './nodes.js';

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/u;

/**
 * The longest duration a config accepts: 2147483647 ms (about 24.8 days), the longest a Node.js
 * timer waits. Leases, polls and reconcile timeouts run on timers, and a longer delay fires at once.
 */
export const MAX_DURATION_MS = 2_147_483_647;

/** Milliseconds of a duration text (`30s`, `5m`, `1h`, `250ms`, `1d`), or undefined. */
export function parseDuration(text: string): number | undefined {
  if (typeof text !== 'string') return undefined;
  const match = DURATION.exec(text);
  if (match === null) return undefined;
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}

/**
 * A duration: `30s`, `5m`, `1h`, `250ms`, `1d`, or a number of milliseconds, at most
 * {@link MAX_DURATION_MS}. Parses to ms. `positive` refuses zero (a lease of zero would be unbounded).
 */
export function duration(options: Base & { readonly positive?: boolean } = {}): Node<number> {
  const positive = options.positive ?? true;
  const expected = `a duration${positive ? ' greater than 0' : ''} such as \`30s\`, \`5m\`, \`1h\` or a number of milliseconds`;
  // The lookahead needs a non-zero digit, so `0s` and `0.0m` fail the published schema too.
  const pattern = `^${positive ? '(?=[^1-9]*[1-9])' : ''}\\d+(\\.\\d+)?(ms|s|m|h|d)$`;
  const number = positive
    ? { type: 'number', exclusiveMinimum: 0, maximum: MAX_DURATION_MS }
    : { type: 'number', minimum: 0, maximum: MAX_DURATION_MS };
  return make(
    expected,
    options.description,
    () => ({ anyOf: [number, { type: 'string', pattern }] }),
    (value, path, issues) => {
      const ms = typeof value === 'string' ? parseDuration(value) : typeof value === 'number' ? value : undefined;
      const ok = ms !== undefined && Number.isFinite(ms) && (positive ? ms > 0 : ms >= 0);
      if (!ok) issues.push({ path, target: 'value', message: mismatch(expected, value) });
      else if (ms > MAX_DURATION_MS) {
        const message = `Duration \`${String(value)}\` is longer than the maximum, ${MAX_DURATION_MS} ms (about 24.8 days, the longest a Node.js timer waits)`;
        issues.push({ path, target: 'value', message });
      }
    },
    (value) => (typeof value === 'number' ? value : (parseDuration(value as string) as number)),
  );
}

/** A file path; relative paths are resolved against the config file's directory. */
export function filePath(options: Base = {}): Node<string> {
  return map(string({ ...options, patternText: 'a path' }), (path, ctx) =>
    path === ':memory:' || isAbsolute(path) ? path : resolve(ctx.baseDir, path),
  );
}

const NAME = '^[A-Za-z_][A-Za-z0-9_.:-]*$';

/** A tool, task, scope or argument name. */
export function name(options: Base = {}): Node<string> {
  return string({
    ...options,
    pattern: NAME,
    patternText: 'a name (letters, digits, `_`, `.`, `:`, `-`; not starting with a digit)',
  });
}

/** A list of names. */
export function names(options: Base & { readonly minItems?: number } = {}): Node<readonly string[]> {
  const { minItems, ...rest } = options;
  return list(name(), { ...rest, ...(minItems === undefined ? {} : { minItems }) });
}

/** The name pattern of `tools.<name>` and `tasks.<name>` keys. */
export const NAME_PATTERN: string = NAME;

/** A side-effect class or one of its configuration aliases; parses to the class. */
export function sideEffectClass(options: Base = {}): Node<SideEffectClass> {
  const node = oneOf(Object.values(SideEffectClass), { ...options, aliases: Object.keys(SIDE_EFFECT_CLASS_ALIASES) });
  return map(node, (value) => resolveSideEffectClass(value));
}

/** A retry permission. */
export function retryPermission(options: Base = {}): Node<RetryPermission> {
  return oneOf(Object.values(RetryPermission), options);
}

/** A spendability. */
export function spendability(options: Base = {}): Node<Spendability> {
  return oneOf(Object.values(Spendability), options);
}

/** What to do when a tool call id is reused with different arguments. */
export function argsDrift(options: Base = {}): Node<ArgsDriftPolicy> {
  return oneOf(['soft', 'hard', 'off'], options);
}
