/**
 * The judge gate: deterministic checks overrule a model's grade of its own output.
 */

import { codeList } from '../core/code-list.js';
import { InvalidOptionError } from '../errors.js';
import { optionsOf } from '../invalid-argument.js';
import {
  ALLOWED,
  errorMessage,
  type FuseAllowance,
  FuseCode,
  FuseName,
  type FuseRefusal,
  refusal,
  sentences,
} from './verdict.js';

/** A deterministic check of an output; only a literal `true` passes. */
export type JudgeCheck<T> = (output: T) => boolean;

/** Options of {@link judgeGate}. */
export interface JudgeGateOptions<T> {
  /** Checks that must all pass, whatever the self-score. */
  readonly hardChecks?: Readonly<Record<string, JudgeCheck<T>>>;
  /** Checks that are reported (and listed in the critique) but never refuse. */
  readonly advisoryChecks?: Readonly<Record<string, JudgeCheck<T>>>;
  /** The lowest self-score accepted, in 0..1. */
  readonly threshold: number;
  /** Name in verdicts (default `judge`). */
  readonly name?: string;
}

/** What one check said. */
export interface JudgeCheckOutcome {
  readonly name: string;
  readonly kind: 'hard' | 'advisory';
  readonly passed: boolean;
  /** Set when the check threw or did not return a boolean. */
  readonly error?: string;
}

/** What the judge reports with its verdict. */
export interface JudgeReport {
  readonly checks: readonly JudgeCheckOutcome[];
  /** What is missing, for the model to fix: the failed checks, hard ones first. */
  readonly critique: string;
}

/** A judge's verdict: a fuse verdict plus the checks and a critique. */
export type JudgeVerdict = (FuseAllowance | FuseRefusal) & JudgeReport;

/** A judge gate. */
export interface JudgeGate<T> {
  /** Judge an output and the model's own score of it (0..1); never throws. */
  judge(input: { readonly output: T; readonly selfScore: number }): JudgeVerdict;
}

function run<T>(kind: 'hard' | 'advisory', name: string, check: JudgeCheck<T>, output: T): JudgeCheckOutcome {
  try {
    const result: unknown = check(output);
    if (typeof result === 'boolean') return { name, kind, passed: result };
    return { name, kind, passed: false, error: `returned \`${typeof result}\`, not a boolean` };
  } catch (error) {
    return { name, kind, passed: false, error: `threw: ${errorMessage(error)}` };
  }
}

function checkThreshold(threshold: number): number {
  if (typeof threshold !== 'number' || !(threshold >= 0 && threshold <= 1)) {
    throw new InvalidOptionError('threshold', `\`threshold\` must be a number in 0..1 (got \`${String(threshold)}\`)`);
  }
  return threshold;
}

/**
 * Judge gate: every hard check must pass (a failing hard check refuses even a self-score of 1.00),
 * then the self-score must reach `threshold`. A throwing check counts as failed; a NaN or
 * out-of-range score is refused. Advisory checks only report. The critique lists what is missing.
 *
 * @example
 * const gate = judgeGate<string>({
 *   hardChecks: { cites_a_source: (text) => text.includes('[1]') },
 *   advisoryChecks: { under_200_words: (text) => text.split(/\s+/).length < 200 },
 *   threshold: 0.7,
 * });
 * gate.judge({ output: 'It is so.', selfScore: 1 }).allowed; // false: `cites_a_source` failed
 */
export function judgeGate<T>(given: JudgeGateOptions<T>): JudgeGate<T> {
  const options = optionsOf('judgeGate', given);
  const threshold = checkThreshold(options.threshold);
  const name = options.name ?? FuseName.judge;
  const hard = Object.entries(options.hardChecks ?? {});
  const advisory = Object.entries(options.advisoryChecks ?? {});

  return {
    judge(input) {
      const output = input?.output as T;
      const selfScore: unknown = input?.selfScore;
      const checks = [
        ...hard.map(([check, fn]) => run('hard', check, fn, output)),
        ...advisory.map(([check, fn]) => run('advisory', check, fn, output)),
      ];
      const failedHard = checks.filter((c) => c.kind === 'hard' && !c.passed).map((c) => c.name);
      const failedAdvisory = checks.filter((c) => c.kind === 'advisory' && !c.passed).map((c) => c.name);
      const critique =
        failedHard.length + failedAdvisory.length === 0
          ? 'Nothing is missing'
          : sentences(
              failedHard.length > 0 ? `Missing (required): ${codeList(failedHard)}` : '',
              failedAdvisory.length > 0 ? `Missing (advised): ${codeList(failedAdvisory)}` : '',
            );
      const report = { checks, critique };
      const score = typeof selfScore === 'number' && selfScore >= 0 && selfScore <= 1 ? selfScore : null;
      const evidence = { selfScore: score, threshold, failedHard, failedAdvisory };
      const refuse = (code: string, reason: string): JudgeVerdict => ({
        ...refusal({
          fuse: name,
          code,
          reason,
          note: sentences('The output was NOT accepted', reason, critique),
          terminal: false,
          evidence,
        }),
        ...report,
      });
      if (score === null) {
        const shown = typeof selfScore === 'number' ? String(selfScore) : typeof selfScore;
        return refuse(FuseCode.judge_invalid_score, `Self-score \`${shown}\` is not a number in 0..1`);
      }
      if (failedHard.length > 0) {
        return refuse(FuseCode.judge_hard_check_failed, `Required checks failed: ${codeList(failedHard)}`);
      }
      if (score < threshold) {
        return refuse(FuseCode.judge_below_threshold, `Self-score ${score} is below the threshold ${threshold}`);
      }
      return { ...ALLOWED, ...report };
    },
  };
}
