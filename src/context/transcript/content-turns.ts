/**
 * The turns of formats that keep tool calls and results as elements of an array `content` (AI SDK
 * parts, Anthropic blocks): reading them, and rewriting a message's elements after a repair.
 */
import {
  type CallItem,
  callItem,
  idOf,
  isObj,
  NONE,
  type Obj,
  type OutResult,
  type ResultItem,
  strip,
  type Turn,
  type TurnEdit,
  writeCallObject,
} from './turns.js';

/** Where a format keeps calls and results among the elements of `content`. */
export interface ContentKeys {
  /** True for an element that is a tool call the checks cover. */
  readonly isCall: (element: Obj) => boolean;
  readonly callId: string;
  readonly callName: string;
  /** The `type` of a result element. */
  readonly resultType: string;
  readonly resultId: string;
}

/** The elements of an array `content`; none otherwise. */
export function contentElements(message: Obj): readonly unknown[] {
  return Array.isArray(message.content) ? message.content : [];
}

/** The readers of a message's calls and results that `readTurn` takes. */
export function contentReaders(keys: ContentKeys): {
  readonly calls: (message: Obj) => readonly CallItem[];
  readonly results: (message: Obj) => readonly ResultItem[];
} {
  return {
    calls(message) {
      const calls: CallItem[] = [];
      for (const element of contentElements(message)) {
        if (isObj(element) && keys.isCall(element)) {
          calls.push(callItem(element, element[keys.callId], element[keys.callName], calls.length));
        }
      }
      return calls.length === 0 ? NONE : calls;
    },
    results(message) {
      const results: ResultItem[] = [];
      for (const element of contentElements(message)) {
        if (isObj(element) && element.type === keys.resultType) {
          results.push({ id: idOf(element[keys.resultId]), source: element });
        }
      }
      return results.length === 0 ? NONE : results;
    },
  };
}

/**
 * The message of a changed turn: each kept call and result element written again (the call with
 * its new id under `callId`, the result by `writeResult`), each dropped one left out, every other
 * element without artifacts; none when no element is left.
 */
export function rewriteContent(
  message: Obj,
  turn: Turn,
  edit: TurnEdit,
  callId: string,
  writeResult: (out: OutResult) => Obj,
): unknown[] {
  const items = new Map<unknown, () => Obj | null>();
  for (const call of turn.calls) {
    items.set(call.source, () => {
      const out = edit.calls.get(call);
      return out === undefined ? null : writeCallObject(out, callId);
    });
  }
  for (const result of turn.results) {
    items.set(result.source, () => {
      const out = edit.results.get(result);
      return out === undefined ? null : writeResult(out);
    });
  }
  const content: unknown[] = [];
  for (const element of contentElements(message)) {
    const write = items.get(element);
    if (write === undefined) {
      content.push(isObj(element) ? strip(element) : element);
      continue;
    }
    const next = write();
    if (next !== null) content.push(next);
  }
  return content.length === 0 ? [] : [{ ...message, content }];
}
