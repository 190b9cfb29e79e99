/**
 * The tool-call fuse contract shared by the permission fuse, the loop fuse and the combinators.
 *
 * A fuse is a factory of per-run state (`start()`), so no state can be shared across runs. A check
 * is pure; the box then `commit`s the final verdict to every fuse, so a call that another fuse
 * refused never enters a fuse's history.
 */
import { canonicalJson } from '../core/canonical-json.js';
import { sha256Hex } from '../core/fingerprint.js';
import { GuardError } from '../errors.js';
import { InvalidArgumentError, kindOf } from '../invalid-argument.js';
import type { FuseVerdict } from './verdict.js';

/** A tool call as every adapter hands it over. */
export interface ToolCall {
  /** The framework's tool call id; never part of the call's signature. */
  readonly id?: string;
  readonly name: string;
  readonly args: unknown;
}

/** A tool call as fuses see it: canonical arguments and the signature already computed. */
export interface ToolCallFacts {
  readonly id?: string;
  readonly name: string;
  /** RFC 8785 canonical JSON of the arguments (`null` when there were none). */
  readonly argsJson: string;
  /** Tool name plus canonical arguments: equal for equal calls whatever their ids or key order. */
  readonly signature: string;
}

/** Numbers a fuse reports about its state (sizes, counters). */
export type FuseStats = Readonly<Record<string, number>>;

/** One run's state of a tool-call fuse. */
export interface ToolFuseRun {
  /** Decide on a call; must not change state. */
  check(call: ToolCallFacts): FuseVerdict;
  /** Learn the box's final verdict on a call this fuse checked. */
  commit(call: ToolCallFacts, verdict: FuseVerdict): void;
  /**
   * Learn how a call this fuse allowed ended: its result fingerprint (`null` when the result could
   * not be fingerprinted), or `ok: false` when it failed (the fingerprint is then `null`).
   */
  recordResult(call: ToolCallFacts, resultFingerprint: string | null, ok: boolean): void;
  /** Forget everything this run learnt. */
  reset(): void;
  stats(): FuseStats;
}

/** A tool-call fuse: a name and a factory of per-run state. */
export interface ToolFuse {
  readonly name: string;
  start(): ToolFuseRun;
}

// Canonical arguments longer than this are hashed, so a signature stays small in the loop window.
const INLINE_ARGS_LIMIT = 256;

/**
 * Signature of a call from its name and canonical arguments: `["name"]{…}` inline, or a SHA-256 of
 * the arguments when they are long. The JSON-quoted name cannot run into the arguments, and an
 * inline form (starting with `{`, `[`, a digit, `"`, `t`, `f` or `n`) never starts with `#`.
 */
export function signatureOf(name: string, argsJson: string): string {
  const quoted = JSON.stringify(name);
  return argsJson.length <= INLINE_ARGS_LIMIT ? quoted + argsJson : `${quoted}#${sha256Hex(argsJson)}`;
}

/**
 * The loop signature of a tool call: tool name plus RFC 8785 canonical arguments, call id excluded,
 * so key order and ids do not matter. Throws {@link CanonicalJsonError} for arguments with no JSON
 * form (the fuse box turns that into an `invalid_call` refusal).
 *
 * @example
 * toolCallSignature({ id: 'a', name: 'f', args: { x: 1, y: 2 } }) ===
 *   toolCallSignature({ id: 'b', name: 'f', args: { y: 2, x: 1 } }); // true
 */
export function toolCallSignature(call: ToolCall): string {
  if (typeof call !== 'object' || call === null || Array.isArray(call))
    throw new InvalidArgumentError('toolCallSignature', 'call', `must be a tool call object, got ${kindOf(call)}`);
  let name: unknown;
  let args: unknown;
  try {
    name = call.name;
    args = call.args;
  } catch (cause) {
    if (cause instanceof GuardError) throw cause;
    throw new InvalidArgumentError('toolCallSignature', 'call', 'cannot be read', { cause });
  }
  if (typeof name !== 'string')
    throw new InvalidArgumentError('toolCallSignature', 'call.name', `must be a string, got ${kindOf(name)}`);
  return signatureOf(name, canonicalJson(args === undefined ? null : args));
}

/** How a note names a call: `` The call to `name` ``. */
export function callSubject(name: string): string {
  return name === '' ? 'The tool call' : `The call to \`${name}\``;
}
