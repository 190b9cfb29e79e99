/**
 * The operator actions of `hyphae transitions`: release and mark-dead.
 */

import { InvalidArgumentError } from '../../invalid-argument.js';
import { actWhereHeld } from '../../ledger/operator/across-ledgers.js';
import { checkMarkDead, checkRelease } from '../../ledger/operator/input.js';
import { shownOutcome } from '../../ledger/operator/read-model.js';
import type { Ledger, MarkWorkerDeadInput, ReleaseInput } from '../../ledger/types.js';
import type { TransitionRecord } from '../../records/transition-record.js';
import { type CommandContext, ExitCode, UsageError } from '../command.js';
import { flag, type ParsedOptions, stringOption } from './parse-options.js';
import { transitionsOwnedBy } from './transition-queries.js';
import { recordJson } from './transition-view.js';

function audit(parsed: ParsedOptions): { by: string; reason: string } {
  return { by: stringOption(parsed, 'by') as string, reason: stringOption(parsed, 'reason') as string };
}

/** The command-line option behind each argument of the ledger's operator checks. */
const OPTION_OF: Readonly<Record<string, string>> = {
  by: '--by',
  reason: '--reason',
  result: '--result',
  verified: '--completed | --not-executed',
  overrideHeartbeat: '--override-heartbeat',
};

/** `check`'s value; the ledger's refusal of an argument becomes a usage error naming its option. */
function checked<T>(check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (!(error instanceof InvalidArgumentError)) throw error;
    throw new UsageError(`\`${OPTION_OF[error.argument] ?? error.argument}\` ${error.problem}`);
  }
}

function resultOf(parsed: ParsedOptions): { result?: unknown } {
  const text = stringOption(parsed, 'result');
  if (text === undefined) return {};
  try {
    return { result: JSON.parse(text) as unknown };
  } catch {
    throw new UsageError(`\`--result\` must be JSON, got \`${text}\``);
  }
}

/**
 * The release the options ask for, checked by the ledger's own operator checks (before any store
 * is opened: a usage error costs no connection).
 */
export function releaseInputOf(parsed: ParsedOptions): ReleaseInput {
  const completed = flag(parsed, 'completed');
  if (completed === flag(parsed, 'not-executed'))
    throw new UsageError('Pass one of `--completed` and `--not-executed`');
  const verified = completed ? 'completed' : 'not_executed';
  return checked(() => checkRelease({ verified, ...resultOf(parsed), ...audit(parsed) }));
}

/** The worker-death mark the options ask for, checked by the ledger's own operator checks. */
export function markDeadInputOf(parsed: ParsedOptions): MarkWorkerDeadInput {
  const override = flag(parsed, 'override-heartbeat') ? { overrideHeartbeat: true } : {};
  return checked(() => checkMarkDead({ ...audit(parsed), ...override }));
}

/** `transitions release KEY --completed|--not-executed --by --reason [--result JSON]`. */
export async function runRelease(
  key: string,
  parsed: ParsedOptions,
  ledgers: readonly Ledger[],
  ctx: CommandContext,
): Promise<number> {
  const input = releaseInputOf(parsed);
  // The ledger that holds the key reads its record once, inside the release.
  const done = await actWhereHeld(ledgers, (ledger) => ledger.release(key, input));
  if (done === undefined) {
    ctx.err.line(`No transition \`${key}\``);
    return ExitCode.failed;
  }
  const released = done.value;
  if (flag(parsed, 'json')) {
    ctx.out.line(JSON.stringify(recordJson(released, Date.now()), null, 2));
  } else if (input.verified === 'completed') {
    ctx.out.line(`${ctx.out.pass('Released')} \`${key}\` as COMPLETED (tool \`${released.tool}\`)`);
  } else {
    ctx.out.line(
      `${ctx.out.pass('Released')} \`${key}\` as not executed: the next call of \`${released.tool}\` runs it once more`,
    );
  }
  return ExitCode.ok;
}

/** `transitions mark-dead (KEY | --owner O) --by --reason [--override-heartbeat]`. */
export async function runMarkDead(
  parsed: ParsedOptions,
  ledgers: readonly Ledger[],
  ctx: CommandContext,
): Promise<number> {
  const owner = stringOption(parsed, 'owner');
  const [key, extra] = parsed.positionals;
  if ((owner === undefined) === (key === undefined) || extra !== undefined) {
    throw new UsageError('Pass one KEY or `--owner OWNER`');
  }
  const input = markDeadInputOf(parsed);
  const marked: TransitionRecord[] = [];
  if (key !== undefined) {
    const done = await actWhereHeld(ledgers, (ledger) => ledger.markWorkerDead(key, input));
    if (done === undefined) {
      ctx.err.line(`No transition \`${key}\``);
      return ExitCode.failed;
    }
    marked.push(done.value);
  } else {
    const held = await transitionsOwnedBy(ledgers, owner as string);
    if (held.length === 0) {
      ctx.err.line(`No IN_FLIGHT transition is held by \`${owner as string}\``);
      return ExitCode.failed;
    }
    // Each ledger checks every claim of the owner before it marks any.
    for (const ledger of new Set(held.map((found) => found.ledger))) {
      marked.push(...(await ledger.markWorkerDead({ owner: owner as string }, input)));
    }
  }
  const now = Date.now();
  if (flag(parsed, 'json')) {
    ctx.out.line(
      JSON.stringify(
        marked.map((record) => recordJson(record, now)),
        null,
        2,
      ),
    );
    return ExitCode.ok;
  }
  for (const record of marked) {
    ctx.out.line(
      `${ctx.out.pass('Marked dead')} \`${record.key}\` (tool \`${record.tool}\`, now ${shownOutcome(record, now)})`,
    );
  }
  return ExitCode.ok;
}
