/**
 * Which tool calls of one assistant turn are honoured, and what the model is told about the rest.
 */
import type { OpenAiToolCall } from './types.js';

/** A function call the loop will echo into the transcript and answer. */
export interface HonouredCall {
  readonly id: string;
  readonly name: string;
  readonly argsText: string;
}

/** Why a call was neither echoed nor run. */
export type SkipReason = 'parallel_limit' | 'answered_id' | 'not_function' | 'missing_id';

/** A call left out of the transcript; the model hears about it in a note. */
export interface SkippedCall {
  readonly id: string;
  readonly name: string;
  /** The raw arguments, as the model sent them. */
  readonly argsText: string;
  readonly why: SkipReason;
}

/** The honoured and skipped calls of one turn. */
export interface TurnPlan {
  readonly honoured: readonly HonouredCall[];
  readonly skipped: readonly SkippedCall[];
}

/**
 * Split a turn's calls. A call is skipped when it is not a function call, has no id, reuses an id
 * the transcript already answers (a redispatch: echoing it again would make the transcript invalid,
 * and it must not run again), or comes after `maxParallel` honoured calls.
 */
export function planTurn(calls: readonly OpenAiToolCall[], seen: ReadonlySet<string>, maxParallel: number): TurnPlan {
  const honoured: HonouredCall[] = [];
  const skipped: SkippedCall[] = [];
  const ids = new Set<string>();
  for (const call of calls) {
    const id = typeof call.id === 'string' ? call.id : '';
    const fn = call.function;
    const name = fn?.name ?? call.custom?.name ?? '';
    const argsText = typeof fn?.arguments === 'string' ? fn.arguments : '';
    if (fn === undefined || typeof fn.name !== 'string') skipped.push({ id, name, argsText, why: 'not_function' });
    else if (id === '') skipped.push({ id, name, argsText, why: 'missing_id' });
    else if (seen.has(id) || ids.has(id)) skipped.push({ id, name, argsText, why: 'answered_id' });
    else if (honoured.length >= maxParallel) skipped.push({ id, name, argsText, why: 'parallel_limit' });
    else {
      ids.add(id);
      honoured.push({ id, name: fn.name, argsText });
    }
  }
  return { honoured, skipped };
}

function because(why: SkipReason, maxParallel: number): string {
  switch (why) {
    case 'parallel_limit':
      return `only ${maxParallel} tool call${maxParallel === 1 ? '' : 's'} per turn are run; call it again if it is still needed`;
    case 'answered_id':
      return 'its call id was already answered earlier in this conversation; use that result';
    case 'not_function':
      return 'only function tools can be called';
    case 'missing_id':
      return 'it had no call id';
  }
}

/** The note telling the model which of its calls were NOT executed, and why. */
export function skippedNote(skipped: readonly SkippedCall[], maxParallel: number): string {
  const lines = skipped.map((call) => {
    const subject = `\`${call.name === '' ? 'unknown' : call.name}\`${call.id === '' ? '' : ` (call \`${call.id}\`)`}`;
    return `- ${subject}: ${because(call.why, maxParallel)}`;
  });
  return `These tool calls of your last turn were NOT executed and have no result:\n${lines.join('\n')}`;
}
