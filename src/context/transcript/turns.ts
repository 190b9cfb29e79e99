/**
 * The format-neutral view the checks run on: each message becomes a {@link Turn} listing the tool
 * calls it declares and the tool results it carries, with pointers back to the original objects so
 * a repair can rebuild every format without losing what it does not understand.
 */
import type { TranscriptFormat } from './types.js';

/** A plain object of a transcript (message, part, block or tool call). */
export type Obj = Readonly<Record<string, unknown>>;

/** One tool call a turn declares. */
export interface CallItem {
  /** The id, or undefined when absent or empty. */
  readonly id: string | undefined;
  readonly name: string;
  /** True when the call carries an `index` field; `index` is its value. */
  readonly hasIndex: boolean;
  readonly index: unknown;
  /** 0-based position among the turn's calls. */
  readonly position: number;
  /** The tool call object, part or block. */
  readonly source: Obj;
}

/** One tool result a turn carries. */
export interface ResultItem {
  readonly id: string | undefined;
  /** The tool message (OpenAI), result part (AI SDK) or result block (Anthropic). */
  readonly source: Obj;
}

/** The normalised role; null when the message has no role the format allows. */
export type TurnRole = 'system' | 'user' | 'assistant' | 'tool';

/** One message of the input, as the checks see it. */
export interface Turn {
  readonly index: number;
  readonly source: unknown;
  readonly role: TurnRole | null;
  /** The role as written, for messages. */
  readonly rawRole: unknown;
  readonly calls: readonly CallItem[];
  readonly results: readonly ResultItem[];
  /** Paths of parse-helper fields (see {@link ARTIFACT_KEYS}). */
  readonly artifacts: readonly string[];
}

/** A call that survives a repair, as written. */
export interface OutCall {
  readonly id: string;
  /** The object whose content (name, arguments) is written: the last duplicate's. */
  readonly source: Obj;
  /** New 0-based position among the surviving calls of its turn. */
  readonly index: number;
  readonly hasIndex: boolean;
}

/** A result that survives (or is synthesized by) a repair. */
export interface OutResult {
  readonly id: string;
  readonly toolName: string;
  /** The object whose content is written (the last candidate's); null for a synthesized result. */
  readonly source: Obj | null;
}

/** What survives of one input turn. */
export interface TurnEdit {
  readonly calls: ReadonlyMap<CallItem, OutCall>;
  readonly results: ReadonlyMap<ResultItem, OutResult>;
  /** Results appended inside this turn (the `next`-block formats). */
  readonly appended: readonly OutResult[];
}

/** Reads and writes one format. */
export interface FormatAdapter {
  readonly format: TranscriptFormat;
  /** Prefix of generated tool call ids when the transcript uses no id family. */
  readonly idPrefix: string;
  /**
   * Which turns answer an assistant turn: `run` — the consecutive `tool` turns after it (OpenAI,
   * AI SDK); `next` — the `user` turn right after it (Anthropic).
   */
  readonly block: 'run' | 'next';
  read(message: unknown, index: number): Turn;
  /** The messages one changed turn becomes; [] drops it. */
  write(turn: Turn, edit: TurnEdit): unknown[];
  /** New messages carrying results appended after a block. */
  resultMessages(results: readonly OutResult[]): unknown[];
}

/**
 * Keys that only client SDK parse helpers add to responses and no request schema accepts:
 * OpenAI `.parse()` sets `message.parsed` and `tool_calls[].function.parsed_arguments`; Anthropic
 * `messages.parse()` sets `parsed_output` on content blocks.
 */
export const ARTIFACT_KEYS: readonly string[] = Object.freeze(['parsed', 'parsed_arguments', 'parsed_output']);

/** The shared empty list: most turns declare no call, carry no result and no artifact. */
export const NONE: readonly never[] = Object.freeze([]);

/** True for a non-null, non-array object. */
export function isObj(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function hasArtifact(value: unknown): value is Obj {
  if (!isObj(value)) return false;
  for (const key of ARTIFACT_KEYS) if (Object.hasOwn(value, key)) return true;
  return false;
}

// Paths are built only on a hit: almost every message has no artifact.
function addArtifacts(value: Obj, path: string, found: string[] | undefined): string[] {
  const out = found ?? [];
  for (const key of ARTIFACT_KEYS) if (Object.hasOwn(value, key)) out.push(path === '' ? key : `${path}.${key}`);
  return out;
}

/**
 * Paths of artifact keys on the message, on each element of an array `content`, on each element of
 * `tool_calls` and on its `function`.
 */
export function findArtifacts(message: Obj): readonly string[] {
  let found: string[] | undefined;
  if (hasArtifact(message)) found = addArtifacts(message, '', found);
  const { content, tool_calls: calls } = message;
  if (Array.isArray(content)) {
    for (let i = 0; i < content.length; i++) {
      const part: unknown = content[i];
      if (hasArtifact(part)) found = addArtifacts(part, `content[${i}]`, found);
    }
  }
  if (Array.isArray(calls)) {
    for (let i = 0; i < calls.length; i++) {
      const call: unknown = calls[i];
      if (hasArtifact(call)) found = addArtifacts(call, `tool_calls[${i}]`, found);
      const fn = isObj(call) ? call.function : undefined;
      if (hasArtifact(fn)) found = addArtifacts(fn, `tool_calls[${i}].function`, found);
    }
  }
  return found ?? NONE;
}

/** A shallow copy of `value` without artifact keys (the same object when it has none). */
export function strip<T extends Obj>(value: T): T {
  if (!ARTIFACT_KEYS.some((key) => Object.hasOwn(value, key))) return value;
  const copy: Record<string, unknown> = { ...value };
  for (const key of ARTIFACT_KEYS) delete copy[key];
  return copy as T;
}

/** A non-empty string, or undefined. */
export function idOf(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** A call item read from `source`. */
export function callItem(source: Obj, id: unknown, name: unknown, position: number): CallItem {
  return {
    id: idOf(id),
    name: typeof name === 'string' ? name : '',
    hasIndex: Object.hasOwn(source, 'index'),
    index: source.index,
    position,
    source,
  };
}

/** The text of a synthesized result: the call was not executed, never a fabricated success. */
export function notExecutedText(toolName: string, id: string): string {
  return `Tool call \`${toolName}\` (id \`${id}\`) was NOT executed: no result was recorded for it. Do not assume it ran; call it again if it is still needed.`;
}

/** A turn for a message whose role the format does not allow. */
export function invalidTurn(message: unknown, index: number): Turn {
  const rawRole = isObj(message) ? message.role : undefined;
  return { index, source: message, role: null, rawRole, calls: NONE, results: NONE, artifacts: NONE };
}

/**
 * Read one message of a format whose roles are `roles`: an invalid turn when it is no object or has
 * no role the format allows; else its calls (an assistant's) and results (a `resultRole` message's).
 */
export function readTurn(
  message: unknown,
  index: number,
  roles: Readonly<Record<string, TurnRole>>,
  resultRole: TurnRole,
  read: {
    readonly calls: (message: Obj) => readonly CallItem[];
    readonly results: (message: Obj) => readonly ResultItem[];
  },
): Turn {
  if (!isObj(message)) return invalidTurn(message, index);
  const role = typeof message.role === 'string' ? roles[message.role] : undefined;
  if (role === undefined) return invalidTurn(message, index);
  return {
    index,
    source: message,
    role,
    rawRole: message.role,
    calls: role === 'assistant' ? read.calls(message) : NONE,
    results: role === resultRole ? read.results(message) : NONE,
    artifacts: findArtifacts(message),
  };
}

function stripEach(list: readonly unknown[], inner: (value: Obj) => Obj): readonly unknown[] {
  let changed = false;
  const out = list.map((item: unknown) => {
    const next = isObj(item) ? inner(item) : item;
    if (next !== item) changed = true;
    return next;
  });
  return changed ? out : list;
}

function stripCall(call: Obj): Obj {
  const stripped = strip(call);
  const fn = stripped.function;
  if (!isObj(fn)) return stripped;
  const next = strip(fn);
  return next === fn ? stripped : { ...stripped, function: next };
}

/**
 * A message without artifact keys wherever {@link findArtifacts} looks: on itself, on the parts of
 * an array `content`, on each element of an array `tool_calls` and on its `function`. The same
 * object when it has none, so a repair strips exactly what validation reports.
 */
export function stripMessage(message: Obj): Obj {
  let out = strip(message);
  const { content, tool_calls: calls } = out;
  if (Array.isArray(content)) {
    const parts = stripEach(content, strip);
    if (parts !== content) out = { ...out, content: parts };
  }
  if (Array.isArray(calls)) {
    const next = stripEach(calls, stripCall);
    if (next !== calls) out = { ...out, tool_calls: next };
  }
  return out;
}

/** A written call: `source` without artifacts, with its new id and, when it had one, its new index. */
export function writeCallObject(out: OutCall, idKey: string): Obj {
  const { index: _old, ...rest } = strip(out.source);
  const written: Record<string, unknown> = { ...rest, [idKey]: out.id };
  if (isObj(written.function)) written.function = strip(written.function);
  if (out.hasIndex) written.index = out.index;
  return written;
}
