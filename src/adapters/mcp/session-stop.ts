/**
 * How a stopped MCP session ends. An MCP session is a client's whole working day with no run
 * boundaries, so only a terminal stop (its budget spent, too many permission denials, an untrusted
 * store) latches it, and its refusals say how the stop ends: when the client starts a new session,
 * or, with a cooldown, at a time they name — after which the stop is lifted and the session's
 * fuses (budget, denials, loop window) start over.
 */
import type { GuardRun } from '../shared/run-types.js';
import type { ToolCallOutcome } from '../shared/types.js';

/** The stop latch of one guard's session. */
export interface SessionStop {
  /** Before a call: lift a stop whose cooldown has passed. */
  resume(run: GuardRun): void;
  /** After a call: note when the session stopped, and say in a terminal refusal how the stop ends. */
  settle(run: GuardRun, name: string, outcome: ToolCallOutcome): ToolCallOutcome;
}

/** A stop latch lifted `cooldownMs` after it latched, or never (until a new session) without one. */
export function createSessionStop(cooldownMs: number | undefined, now: () => number): SessionStop {
  let stoppedAt: number | undefined;

  function ending(): string {
    if (cooldownMs === undefined || stoppedAt === undefined) return 'It lasts until the client starts a new session';
    return `Calls run again after ${new Date(stoppedAt + cooldownMs).toISOString()}`;
  }

  return {
    resume(run) {
      if (run.stopped === null) {
        stoppedAt = undefined;
        return;
      }
      if (cooldownMs === undefined || stoppedAt === undefined || now() < stoppedAt + cooldownMs) return;
      run.reset();
      stoppedAt = undefined;
    },
    settle(run, name, outcome) {
      const stop = run.stopped;
      if (stop !== null && stoppedAt === undefined) stoppedAt = now();
      if (outcome.status !== 'refused' || !outcome.terminal) return outcome;
      const message =
        outcome.code === 'run_stopped' && stop !== null
          ? `The call to \`${name}\` was NOT executed: this session was stopped by an earlier refusal (\`${stop.code}\`). ${ending()}; until then, tell the user`
          : `${outcome.message}. ${ending()}`;
      return Object.freeze({ ...outcome, message });
    },
  };
}
