/**
 * Agent input items (Responses-style: messages, `function_call`, `function_call_result`, and
 * items the repair has no say over) as OpenAI chat messages for the transcript repair, and back.
 *
 * Consecutive function calls are one assistant turn; each result is a tool turn. Other items
 * (reasoning, hosted tool calls, …) stay out of the repair and go back after the item they
 * followed. Unchanged items come back as the same objects.
 */

/** The item a plain message or call was read from; spread copies keep it. */
const ORIGIN: unique symbol = Symbol('hyphae.agents.origin');
/** The position of a plain message in the view; spread copies keep it. */
const INDEX: unique symbol = Symbol('hyphae.agents.index');

type Item = Readonly<Record<string, unknown>>;
type Plain = Record<string | symbol, unknown> & { [ORIGIN]?: unknown; [INDEX]?: number };

const MESSAGE_ROLES: ReadonlySet<string> = new Set(['user', 'system', 'developer', 'assistant']);

function isItem(value: unknown): value is Item {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function kindOf(item: unknown): 'call' | 'result' | 'message' | 'other' {
  if (!isItem(item)) return 'other';
  if (item.type === 'function_call') return 'call';
  if (item.type === 'function_call_result') return 'result';
  const isMessage = item.type === undefined || item.type === 'message';
  return isMessage && typeof item.role === 'string' && MESSAGE_ROLES.has(item.role) ? 'message' : 'other';
}

/** The plain view of a list of items, and what it needs to write them back. */
export interface ItemView {
  readonly plain: Plain[];
  /** Items outside the repair, by the index of the plain message they followed (-1: the start). */
  readonly others: ReadonlyMap<number, unknown[]>;
}

/** Read items as OpenAI chat messages. */
export function readItems(items: readonly unknown[]): ItemView {
  const plain: Plain[] = [];
  const others = new Map<number, unknown[]>();
  let group: Plain | null = null;
  for (const item of items) {
    const kind = kindOf(item);
    if (kind === 'other') {
      // Kept out of the repair, and out of the way: calls around it stay one turn.
      const anchor = plain.length - 1;
      others.set(anchor, [...(others.get(anchor) ?? []), item]);
      continue;
    }
    const source = item as Item;
    if (kind === 'call') {
      const call = {
        id: source.callId,
        type: 'function',
        function: { name: source.name, arguments: source.arguments ?? '' },
        [ORIGIN]: item,
      };
      if (group === null) {
        group = { role: 'assistant', content: '', tool_calls: [], [INDEX]: plain.length };
        plain.push(group);
      }
      (group.tool_calls as unknown[]).push(call);
      continue;
    }
    group = null;
    const index = plain.length;
    plain.push(
      kind === 'result'
        ? { role: 'tool', tool_call_id: source.callId, content: '', [ORIGIN]: item, [INDEX]: index }
        : { role: source.role === 'developer' ? 'system' : source.role, content: '', [ORIGIN]: item, [INDEX]: index },
    );
  }
  return { plain, others };
}

function callItems(message: Plain, read: ReadonlySet<unknown>): unknown[] {
  const calls = Array.isArray(message.tool_calls) ? (message.tool_calls as Plain[]) : [];
  return calls.map((call) => {
    const origin = call[ORIGIN] as Item;
    return read.has(call) || origin.callId === call.id ? origin : { ...origin, callId: call.id };
  });
}

function resultItem(message: Plain, read: ReadonlySet<unknown>, names: ReadonlyMap<string, string>): unknown {
  const origin = message[ORIGIN] as Item | undefined;
  const callId = String(message.tool_call_id ?? '');
  if (origin === undefined) {
    // Written by the repair: the call was NOT executed (the text says so).
    return {
      type: 'function_call_result',
      callId,
      name: names.get(callId) ?? '',
      status: 'incomplete',
      output: { type: 'text', text: String(message.content ?? '') },
    };
  }
  return read.has(message) || origin.callId === callId ? origin : { ...origin, callId };
}

/** Write repaired plain messages back as items, the items outside the repair in their places. */
export function writeItems(view: ItemView, repaired: readonly Plain[]): unknown[] {
  const read = new Set<unknown>(view.plain);
  for (const message of view.plain)
    for (const call of (message.tool_calls as Plain[] | undefined) ?? []) read.add(call);
  const names = new Map<string, string>();
  for (const message of repaired) {
    for (const call of (message.tool_calls as Plain[] | undefined) ?? []) {
      const fn = call.function as { name?: unknown } | undefined;
      if (typeof call.id === 'string' && typeof fn?.name === 'string') names.set(call.id, fn.name);
    }
  }
  const out: unknown[] = [];
  // Items outside the repair go out in one forward sweep, after the message they followed.
  let next = -1;
  const flush = (upTo: number): void => {
    for (; next <= upTo; next++) out.push(...(view.others.get(next) ?? []));
  };
  flush(-1);
  for (const message of repaired) {
    if (message.role === 'assistant' && Array.isArray(message.tool_calls)) out.push(...callItems(message, read));
    else if (message.role === 'tool') out.push(resultItem(message, read, names));
    else out.push(message[ORIGIN]);
    const index = message[INDEX];
    if (index !== undefined) flush(index);
  }
  flush(view.plain.length - 1);
  return out;
}
