/**
 * The decisions of a transcript repair, taken in O(n) over the turns: which calls and results
 * survive, under which id, where each result goes, and the report of every change.
 */
import { countFamilies, familyOf, familyPrefix } from './analyze.js';
import type { CallItem, FormatAdapter, Obj, OutCall, OutResult, ResultItem, Turn } from './turns.js';
import type { TranscriptChange, TranscriptChangeKind } from './types.js';

/** What to do with a tool call that has no result anywhere in the transcript. */
export type UnansweredPolicy = 'drop' | 'synthesize';

/** Everything the writer needs. */
export interface RepairPlan {
  /** Turns dropped whole (invalid role). */
  readonly dropped: ReadonlySet<number>;
  readonly calls: ReadonlyMap<CallItem, OutCall>;
  readonly results: ReadonlyMap<ResultItem, OutResult>;
  /** Results appended to the block of an assistant turn, by turn index, in call order. */
  readonly appended: ReadonlyMap<number, readonly OutResult[]>;
  readonly changes: TranscriptChange[];
}

interface Declared {
  readonly item: CallItem;
  readonly turn: number;
  readonly id: string;
  /** Content of the last declaration of the id ("first position, last content"). */
  source: Obj;
  name: string;
}

interface Candidates {
  /** The first result of the id inside the declaring turn's block, if any. */
  inBlock: ResultItem | null;
  last: ResultItem;
  readonly first: ResultItem;
  readonly firstTurn: number;
  /** Later results of the id, in order; null until a duplicate shows up (rare). */
  more: { readonly item: ResultItem; readonly turn: number }[] | null;
}

type Ids = ReturnType<typeof idAllocator>;
type Change = (kind: TranscriptChangeKind, index: number, message: string, toolCallId?: string) => void;

function idAllocator(turns: readonly Turn[], adapter: FormatAdapter) {
  // Built on first need only: most transcripts need no new id at all.
  let taken: Set<string> | undefined;
  const families = countFamilies(turns);
  const renames = new Map<string, string>();
  const unique = (base: string): string => {
    if (taken === undefined) {
      taken = new Set();
      for (const turn of turns) {
        for (const item of turn.calls) if (item.id !== undefined) taken.add(item.id);
        for (const item of turn.results) if (item.id !== undefined) taken.add(item.id);
      }
    }
    let id = base;
    for (let n = 2; taken.has(id); n++) id = `${base}_${n}`;
    taken.add(id);
    return id;
  };
  return {
    prefix: families.majority === null ? adapter.idPrefix : familyPrefix(families.majority),
    unique,
    /** The id after renaming the minority family to the majority one. */
    final(id: string): string {
      const { minority, majority } = families;
      if (minority === null || majority === null || familyOf(id) !== minority) return id;
      let next = renames.get(id);
      if (next === undefined) {
        next = unique(familyPrefix(majority) + id.slice(familyPrefix(minority).length));
        renames.set(id, next);
      }
      return next;
    },
  };
}

/** Step 1: drop invalid turns, note artifacts, give every call its final id, drop duplicate calls. */
function declareCalls(turns: readonly Turn[], ids: Ids, change: Change) {
  const dropped = new Set<number>();
  const declared = new Map<string, Declared>();
  const byTurn = new Map<number, Declared[]>();
  for (const turn of turns) {
    const at = turn.index;
    if (turn.role === null) {
      dropped.add(at);
      change('dropped_invalid_message', at, `Dropped message ${at} with role \`${String(turn.rawRole)}\``);
      continue;
    }
    for (const path of turn.artifacts) change('stripped_artifact', at, `Stripped \`${path}\` from message ${at}`);
    for (const call of turn.calls) {
      let id: string;
      if (call.id === undefined) {
        id = ids.unique(`${ids.prefix}hyphae_${at}_${call.position}`);
        change(
          'assigned_tool_call_id',
          at,
          `Tool call ${call.position} (\`${call.name}\`) had no id; assigned \`${id}\``,
          id,
        );
      } else {
        id = ids.final(call.id);
        if (id !== call.id)
          change('renamed_tool_call_id', at, `Renamed tool call \`${call.id}\` and its results to \`${id}\``, id);
      }
      const existing = declared.get(id);
      if (existing !== undefined) {
        existing.source = call.source;
        existing.name = call.name;
        const why = `the call in message ${existing.turn} keeps its place with this call's content`;
        change('dropped_duplicate_tool_call', at, `Dropped duplicate tool call \`${id}\`; ${why}`, id);
        continue;
      }
      const entry: Declared = { item: call, turn: at, id, source: call.source, name: call.name };
      declared.set(id, entry);
      const list = byTurn.get(at);
      if (list === undefined) byTurn.set(at, [entry]);
      else list.push(entry);
    }
  }
  return { dropped, declared, byTurn };
}

/** Step 2: drop orphan results; group the others by call id, noting which sit in their call's block. */
function collectResults(
  turns: readonly Turn[],
  owners: Int32Array,
  ids: Ids,
  declared: ReadonlyMap<string, Declared>,
  change: Change,
): Map<string, Candidates> {
  const candidates = new Map<string, Candidates>();
  for (const turn of turns) {
    if (turn.role === null) continue;
    for (const result of turn.results) {
      const id = result.id === undefined ? undefined : ids.final(result.id);
      const call = id === undefined ? undefined : declared.get(id);
      if (id === undefined || call === undefined) {
        const what =
          id === undefined ? 'with no tool call id' : `for \`${result.id}\`, which no assistant message declared,`;
        change(
          'dropped_orphaned_tool_result',
          turn.index,
          `Dropped tool result ${what} in message ${turn.index}`,
          ...(id === undefined ? [] : [id]),
        );
        continue;
      }
      const inBlock = owners[turn.index] === call.turn ? result : null;
      const entry = candidates.get(id);
      if (entry === undefined) {
        candidates.set(id, { inBlock, last: result, first: result, firstTurn: turn.index, more: null });
        continue;
      }
      entry.inBlock ??= inBlock;
      entry.last = result;
      entry.more ??= [];
      entry.more.push({ item: result, turn: turn.index });
    }
  }
  return candidates;
}

/**
 * Step 3, per surviving call in order: keep the first in-block result (with the last content),
 * else move one into the block; drop the rest; answer or drop an unanswered call; re-index.
 */
function placeResults(
  byTurn: ReadonlyMap<number, readonly Declared[]>,
  candidates: ReadonlyMap<string, Candidates>,
  unanswered: UnansweredPolicy,
  change: Change,
) {
  const calls = new Map<CallItem, OutCall>();
  const results = new Map<ResultItem, OutResult>();
  const appended = new Map<number, OutResult[]>();
  for (const [at, list] of byTurn) {
    const extra: OutResult[] = [];
    let position = 0;
    for (const call of list) {
      const { id, name } = call;
      const found = candidates.get(id);
      if (found === undefined && unanswered === 'drop') {
        change('dropped_unanswered_tool_call', at, `Dropped tool call \`${id}\` (\`${name}\`): it has no result`, id);
        continue;
      }
      if (found === undefined) {
        extra.push({ id, toolName: name, source: null });
        change(
          'synthesized_tool_result',
          at,
          `Answered tool call \`${id}\` (\`${name}\`) with a NOT executed result`,
          id,
        );
      } else {
        const out: OutResult = { id, toolName: name, source: found.last.source };
        if (found.inBlock === null) {
          extra.push(out);
          change(
            'moved_tool_result',
            found.firstTurn,
            `Moved the tool result for \`${id}\` to the results of message ${at}`,
            id,
          );
        } else {
          results.set(found.inBlock, out);
        }
        const kept = found.inBlock ?? found.first;
        // With a single result for the id, `kept` is that result and there is nothing to drop.
        const all = found.more === null ? [] : [{ item: found.first, turn: found.firstTurn }, ...found.more];
        for (const { item, turn } of all) {
          if (item === kept) continue;
          const why = 'one result keeps the first place with the last content';
          change('dropped_duplicate_tool_result', turn, `Dropped a duplicate result for \`${id}\`; ${why}`, id);
        }
      }
      calls.set(call.item, { id, source: call.source, index: position, hasIndex: call.item.hasIndex });
      if (call.item.hasIndex && call.item.index !== position) {
        const was = JSON.stringify(call.item.index) ?? 'undefined';
        change('reindexed_tool_call', at, `Tool call \`${id}\` index ${was} set to ${position}`, id);
      }
      position++;
    }
    if (extra.length > 0) appended.set(at, extra);
  }
  return { calls, results, appended };
}

/** Decide the repair of `turns`; `owners` comes from `blockOwners`. */
export function planRepair(
  turns: readonly Turn[],
  owners: Int32Array,
  adapter: FormatAdapter,
  unanswered: UnansweredPolicy,
): RepairPlan {
  const changes: TranscriptChange[] = [];
  const change: Change = (kind, index, message, toolCallId) => {
    changes.push(toolCallId === undefined ? { kind, index, message } : { kind, index, message, toolCallId });
  };
  const ids = idAllocator(turns, adapter);
  const { dropped, declared, byTurn } = declareCalls(turns, ids, change);
  const candidates = collectResults(turns, owners, ids, declared, change);
  const placed = placeResults(byTurn, candidates, unanswered, change);
  return { dropped, ...placed, changes };
}
