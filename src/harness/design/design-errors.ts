/**
 * Why a design was refused: issues as data, and the error that carries them.
 */
import type { ValueOf } from '../../core/vocabulary.js';
import { GuardError } from '../../errors.js';
import type { JsonValue } from '../json-patch/apply-json-patch.js';

/** Why a candidate or stored design was refused. */
export const DesignRefusal = {
  /** It fails the JSON Schema or the spec's `validator`. */
  invalid: 'invalid',
  /** It validates, but normalising and serialising it does not give it back exactly. */
  round_trip: 'round_trip',
  /** It is not JSON, or the spec's normaliser, serialiser or migrator failed on it. */
  unusable: 'unusable',
} as const;
/** Why a candidate or stored design was refused. */
export type DesignRefusal = ValueOf<typeof DesignRefusal>;

/** One problem with a design, located by an RFC 6901 pointer (`''` for the design itself). */
export interface DesignIssue {
  readonly pointer: string;
  readonly message: string;
  /** A stable code: a validation issue code, `round_trip`, or the validator's own. */
  readonly code: string;
}

/** The result of checking a design: the design, or why it was refused. */
export type DesignCheck =
  | { readonly ok: true; readonly design: JsonValue }
  | { readonly ok: false; readonly refusal: DesignRefusal; readonly issues: readonly DesignIssue[] };

function describe(refusal: DesignRefusal, issues: readonly DesignIssue[]): string {
  const first = issues[0];
  const at = first === undefined || first.pointer === '' ? 'the design' : `\`${first.pointer}\``;
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
  const what =
    refusal === 'round_trip'
      ? 'does not round-trip: normalising it changes'
      : refusal === 'invalid'
        ? 'is invalid at'
        : 'cannot be used at';
  return `Design ${what} ${at}${first === undefined ? '' : `: ${first.message}`}${more}`;
}

/** A design was refused by its spec; `pointer` is the first offending location. */
export class DesignValidationError extends GuardError {
  readonly refusal: DesignRefusal;
  readonly issues: readonly DesignIssue[];
  /** Pointer of the first issue (for `round_trip`, the first location that differs). */
  readonly pointer: string;

  constructor(refusal: DesignRefusal, issues: readonly DesignIssue[], options: { cause?: unknown } = {}) {
    const message = describe(refusal, issues);
    super('design_invalid', message, { ...options, llmMessage: message });
    this.refusal = refusal;
    this.issues = issues;
    this.pointer = issues[0]?.pointer ?? '';
  }
}
