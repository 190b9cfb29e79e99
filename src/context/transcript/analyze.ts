/**
 * Structure shared by validation and repair: which assistant turn each turn answers, and the tool
 * call id families in use.
 */
import type { FormatAdapter, Turn } from './turns.js';

/**
 * For each turn, the position of the assistant turn whose result block it belongs to, or -1.
 *
 * `run` formats: the consecutive `tool` turns right after an assistant turn. `next` formats: the
 * `user` turn right after an assistant turn. Anything else (including a message with an invalid
 * role) ends the block.
 */
export function blockOwners(turns: readonly Turn[], adapter: FormatAdapter): Int32Array {
  const owners = new Int32Array(turns.length).fill(-1);
  let current = -1;
  for (let i = 0; i < turns.length; i++) {
    const role = turns[i]?.role;
    if (adapter.block === 'next') {
      if (role === 'user' && turns[i - 1]?.role === 'assistant') owners[i] = i - 1;
      continue;
    }
    if (role === 'tool' && current >= 0) owners[i] = current;
    else current = role === 'assistant' ? i : -1;
  }
  return owners;
}

/** A tool call id family: OpenAI Chat Completions `call_…` or Responses item ids `fc_…`. */
export type IdFamily = 'call' | 'fc';

/** The family of `id`, or null for ids of neither family. */
export function familyOf(id: string): IdFamily | null {
  if (id.startsWith('call_')) return 'call';
  if (id.startsWith('fc_')) return 'fc';
  return null;
}

/** The prefix of a family's ids. */
export function familyPrefix(family: IdFamily): string {
  return family === 'call' ? 'call_' : 'fc_';
}

/** Counts of both families over every call and result id. */
export interface FamilyCount {
  readonly call: number;
  readonly fc: number;
  /** The family that is renamed when both appear: the smaller one, `fc` on a tie. */
  readonly minority: IdFamily | null;
  /** The family ids are generated in: the larger one, else none. */
  readonly majority: IdFamily | null;
}

/** Count the id families of `turns`. */
export function countFamilies(turns: readonly Turn[]): FamilyCount {
  let call = 0;
  let fc = 0;
  const add = (id: string | undefined): void => {
    const family = id === undefined ? null : familyOf(id);
    if (family === 'call') call++;
    else if (family === 'fc') fc++;
  };
  for (const turn of turns) {
    if (turn.role === null) continue;
    for (const item of turn.calls) add(item.id);
    for (const item of turn.results) add(item.id);
  }
  const mixed = call > 0 && fc > 0;
  const minority: IdFamily | null = mixed ? (call < fc ? 'call' : 'fc') : null;
  const majority: IdFamily | null =
    minority === 'call' ? 'fc' : call > 0 || fc > 0 ? (call >= fc ? 'call' : 'fc') : null;
  return { call, fc, minority, majority };
}
