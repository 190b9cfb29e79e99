/**
 * A race on one key: N callers, each with its own client, call the same guarded function at once,
 * round after round. The body records who ran it, so a round shows how many executions it had,
 * which callers got a result (and whether it was the winner's) and which got an error.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

/** What a racing body returns: the round and the caller whose body ran. */
export interface RaceResult {
  readonly round: number;
  readonly by: number;
}

/** Records the executions of every round; `execute` is what each caller's body calls. */
export interface ExecutionLog {
  execute(round: number, by: number): RaceResult;
  executionsOf(round: number): readonly number[];
}

/** A fresh log. */
export function executionLog(): ExecutionLog {
  const byRound = new Map<number, number[]>();
  return {
    execute(round, by) {
      const list = byRound.get(round) ?? [];
      list.push(by);
      byRound.set(round, list);
      return { round, by };
    },
    executionsOf: (round) => byRound.get(round) ?? [],
  };
}

/** One caller: calls the guarded function for `round`. */
export type Contender = (round: number) => Promise<unknown>;

/** What the rounds of a race came to. */
export interface RaceTally {
  readonly rounds: number;
  readonly callers: number;
  readonly jitterMs: number;
  /** Body executions over all rounds; exactly-once is `executions === rounds`. */
  readonly executions: number;
  /** Executions beyond the first in a round. */
  readonly duplicates: number;
  readonly roundsWithDuplicates: number;
  readonly roundsWithoutExecution: number;
  /** Caller outcomes over all rounds: a value (the winner's own, or returned from the record) or an error. */
  readonly results: number;
  readonly resultsNotTheWinners: number;
  readonly errors: Readonly<Record<string, number>>;
  /** Time from a round's start until its last caller settled. */
  readonly settleMsP50: number;
  readonly settleMsMax: number;
}

const nameOf = (error: unknown): string =>
  error instanceof Error ? error.name : typeof error === 'string' ? error : 'non-error rejection';

/** Run `rounds` rounds of `contenders` against the bodies logging into `log`. */
export async function runRace(
  contenders: readonly Contender[],
  log: ExecutionLog,
  options: { readonly rounds: number; readonly jitterMs: number },
): Promise<RaceTally> {
  let executions = 0;
  let duplicates = 0;
  let roundsWithDuplicates = 0;
  let roundsWithoutExecution = 0;
  let results = 0;
  let resultsNotTheWinners = 0;
  const errors: Record<string, number> = {};
  const settle: number[] = [];
  for (let round = 0; round < options.rounds; round++) {
    const started = performance.now();
    const outcomes = await Promise.allSettled(
      contenders.map(async (call) => {
        if (options.jitterMs > 0) await sleep(Math.random() * options.jitterMs);
        return call(round);
      }),
    );
    settle.push(performance.now() - started);
    const ran = log.executionsOf(round);
    executions += ran.length;
    duplicates += Math.max(0, ran.length - 1);
    if (ran.length > 1) roundsWithDuplicates++;
    if (ran.length === 0) roundsWithoutExecution++;
    const winner = JSON.stringify({ round, by: ran[0] });
    for (const outcome of outcomes) {
      if (outcome.status === 'rejected') {
        const name = nameOf(outcome.reason);
        errors[name] = (errors[name] ?? 0) + 1;
        continue;
      }
      results++;
      if (JSON.stringify(outcome.value) !== winner) resultsNotTheWinners++;
    }
  }
  settle.sort((a, b) => a - b);
  return {
    rounds: options.rounds,
    callers: contenders.length,
    jitterMs: options.jitterMs,
    executions,
    duplicates,
    roundsWithDuplicates,
    roundsWithoutExecution,
    results,
    resultsNotTheWinners,
    errors,
    settleMsP50: settle[Math.floor(settle.length / 2)] ?? Number.NaN,
    settleMsMax: settle.at(-1) ?? Number.NaN,
  };
}
