/**
 * Nodes shared by several sections: durations, paths, names and the ledger's vocabulary.
 */
import { isAbsolute, resolve } from 'node:path';
import { resolveSideEffectClass } from '../../ledger/resolve-side-effect-class.js';
import type { ArgsDriftPolicy } from '../../ledger/types.js';
import { MAX_DURATION_MS } from '../../option-checks.js';
import { RetryPermission, SIDE_EFFECT_CLASS_ALIASES, SideEffectClass, Spendability } from '../../records/envelope.js';
import { list } from './composite-nodes.js';
import { type Base, make, map, mismatch, type Node, oneOf, string } from './nodes.js';

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/u;

/** Milliseconds of a duration text (`30s`, `5m`, `1h`, `250ms`, `1d`), or undefined. */
export function parseDuration(text: string): number | undefined {
  if (typeof text !== 'string') return undefined;
  const match = DURATION.exec(text);
  if (match === null) return undefined;
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}

/** The fixes a bare number of a duration could have meant, for the message that refuses it. */
function unitFixes(value: number): string {
  const whole = Number.isInteger(value) ? value : Number(value.toFixed(3));
  return [`${whole}ms`, `${whole}s`, ...(whole >= 60 && whole % 60 === 0 ? [`${whole / 60}m`] : [])]
    .map((text) => `\`${text}\``)
    .join(', ');
}

/**
 * A duration with its unit: `30s`, `5m`, `1h`, `250ms`, `1d`, at most {@link MAX_DURATION_MS}.
 * Parses to ms. `positive` refuses zero (a lease of zero would be unbounded).
 *
 * A bare number is refused, never reinterpreted: mycelium-runtime reads `lease_ttl: 3600` as
 * seconds, an ms-based reader as 3.6 s, and a lease a thousand times too short lets peers take over
 * a running payment. The message names the fix. A key whose name carries its unit (`*_ms`) may
 * take a number: `{ unitInName: true }`.
 */
export function duration(
  options: Base & { readonly positive?: boolean; readonly unitInName?: boolean } = {},
): Node<number> {
  const positive = options.positive ?? true;
  const numeric = options.unitInName === true;
  const expected = `a duration${positive ? ' greater than 0' : ''} with its unit, such as \`30s\`, \`5m\`, \`1h\` or \`500ms\``;
  // The lookahead needs a non-zero digit, so `0s` and `0.0m` fail the published schema too.
  const pattern = `^${positive ? '(?=[^1-9]*[1-9])' : ''}\\d+(\\.\\d+)?(ms|s|m|h|d)$`;
  const text = { type: 'string', pattern };
  const number = positive
    ? { type: 'number', exclusiveMinimum: 0, maximum: MAX_DURATION_MS }
    : { type: 'number', minimum: 0, maximum: MAX_DURATION_MS };
  return make(
    expected,
    options.description,
    () => (numeric ? { anyOf: [number, text] } : text),
    (value, path, issues) => {
      if (typeof value === 'number' && !numeric) {
        const message = `A duration needs its unit: \`${value}\` could be milliseconds or seconds; write ${unitFixes(value)} or \`1h\``;
        issues.push({ path, target: 'value', message });
        return;
      }
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
