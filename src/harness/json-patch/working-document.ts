/**
 * The document a patch is being applied to, changed by copy-on-write along each pointer.
 *
 * A write clones only the containers on its path (root to parent) and links the clones together;
 * everything else stays shared with the input, which is never written. A clone made during this
 * call is *owned*: later writes through it change it in place, so each container is cloned at most
 * once per call however many operations pass through it.
 *
 * Invariant: an owned container is referenced from exactly one place. `add`, `replace` and `move`
 * keep it (a patch value is never owned; a moved value leaves its old place). `copy` breaks it — the
 * copied subtree is then reachable twice — so a copy forgets all ownership and later writes clone
 * afresh.
 */

import type { JsonValue } from '../../core/json.js';
import { JsonPatchError } from './json-patch-error.js';
import { arrayIndexOf, formatJsonPointer } from './json-pointer.js';
import type { ParsedOperation } from './parse-patch.js';

type MutableArray = JsonValue[];
type MutableObject = Record<string, JsonValue>;
type Container = MutableArray | MutableObject;

/**
 * Set an own data property. Plain assignment would run `Object.prototype`'s `__proto__` setter
 * (replacing the object's prototype), and fails on a frozen prototype's `toString`; a key that
 * `Object.prototype` carries is therefore defined, never assigned.
 */
function setMember(target: MutableObject, key: string, value: JsonValue): void {
  if (Object.hasOwn(Object.prototype, key)) {
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    target[key] = value;
  }
}

function isContainer(value: JsonValue | undefined): value is Container {
  return typeof value === 'object' && value !== null;
}

/** Where a pointer points, for errors: the operation and which of its pointers. */
export interface Target {
  readonly operation: ParsedOperation;
  readonly member: 'path' | 'from';
  readonly tokens: readonly string[];
}

function refuse(target: Target, code: 'path_not_found' | 'invalid_pointer', reason: string): JsonPatchError {
  return new JsonPatchError({
    code,
    reason: `\`${target.member}\` ${reason}`,
    operationIndex: target.operation.index,
    operation: target.operation.raw,
  });
}

function prefix(target: Target, depth: number): string {
  return depth === 0 ? 'the document root' : `\`${formatJsonPointer(target.tokens.slice(0, depth))}\``;
}

const arrayRule = 'digits without a leading zero, or `-` to append';

/** The index `token` names in `array` for reading, replacing or removing (`< length`). */
function existingIndex(array: readonly JsonValue[], token: string, target: Target, depth: number): number {
  const index = arrayIndexOf(token);
  if (index === null) {
    if (token === '-') {
      throw refuse(target, 'path_not_found', `uses \`-\` in the array at ${prefix(target, depth)}: only \`add\` may`);
    }
    throw refuse(target, 'invalid_pointer', `token \`${token.slice(0, 64)}\` is not an array index (${arrayRule})`);
  }
  if (index >= array.length) {
    throw refuse(
      target,
      'path_not_found',
      `index ${token} is past the end of the array at ${prefix(target, depth)} (length ${array.length})`,
    );
  }
  return index;
}

function child(node: Container, token: string, target: Target, depth: number): JsonValue {
  if (Array.isArray(node)) return node[existingIndex(node, token, target, depth)] as JsonValue;
  if (!Object.hasOwn(node, token)) {
    throw refuse(
      target,
      'path_not_found',
      `names member \`${token.slice(0, 64)}\`, absent from ${prefix(target, depth)}`,
    );
  }
  return node[token] as JsonValue;
}

function notContainer(target: Target, depth: number): JsonPatchError {
  return refuse(target, 'path_not_found', `goes through ${prefix(target, depth)}, which is not an object or array`);
}

/** A document being patched; see the module comment for the sharing rules. */
export class WorkingDocument {
  root: JsonValue;
  /** Containers cloned by this call; made on the first write, so a read-only patch allocates none. */
  #owned: Set<object> | null = null;

  constructor(root: JsonValue) {
    this.root = root;
  }

  #own(node: Container): Container {
    let owned = this.#owned;
    if (owned === null) {
      owned = new Set();
      this.#owned = owned;
    } else if (owned.has(node)) {
      return node;
    }
    const clone: Container = Array.isArray(node) ? node.slice() : { ...node };
    owned.add(clone);
    return clone;
  }

  /**
   * The owned parent of the location `tokens` addresses (there is one: `tokens` is not empty), the
   * location's token in it and the parent's depth.
   */
  #slotForWrite(target: Target): { readonly parent: Container; readonly token: string; readonly depth: number } {
    const tokens = target.tokens;
    const root = this.root;
    if (!isContainer(root)) throw notContainer(target, 0);
    let node = this.#own(root);
    this.root = node;
    const last = tokens.length - 1;
    for (let depth = 0; depth < last; depth++) {
      const token = tokens[depth] as string;
      const next = child(node, token, target, depth);
      if (!isContainer(next)) throw notContainer(target, depth + 1);
      const owned = this.#own(next);
      if (owned !== next) {
        if (Array.isArray(node)) node[arrayIndexOf(token) as number] = owned;
        else setMember(node, token, owned);
      }
      node = owned;
    }
    return { parent: node, token: tokens[last] as string, depth: last };
  }

  /** The value at `tokens`; throws `path_not_found` when there is none. */
  read(target: Target): JsonValue {
    let node = this.root;
    const tokens = target.tokens;
    for (let depth = 0; depth < tokens.length; depth++) {
      if (!isContainer(node)) throw notContainer(target, depth);
      node = child(node, tokens[depth] as string, target, depth);
    }
    return node;
  }

  /** RFC 6902 `add`: insert into an array, set an object member (replacing it), or replace the root. */
  add(target: Target, value: JsonValue): void {
    if (target.tokens.length === 0) {
      this.root = value;
      return;
    }
    const { parent, token, depth } = this.#slotForWrite(target);
    if (!Array.isArray(parent)) {
      setMember(parent, token, value);
      return;
    }
    if (token === '-') {
      parent.push(value);
      return;
    }
    const index = arrayIndexOf(token);
    if (index === null) {
      throw refuse(target, 'invalid_pointer', `token \`${token.slice(0, 64)}\` is not an array index (${arrayRule})`);
    }
    if (index > parent.length) {
      throw refuse(
        target,
        'path_not_found',
        `index ${token} is past the end of the array at ${prefix(target, depth)} (length ${parent.length}; use \`-\` to append)`,
      );
    }
    if (index === parent.length) parent.push(value);
    else parent.splice(index, 0, value);
  }

  /** RFC 6902 `remove`; returns the removed value. The root cannot be removed. */
  remove(target: Target): JsonValue {
    if (target.tokens.length === 0) {
      throw new JsonPatchError({
        code: 'invalid_patch',
        reason: '`remove` at `""` would leave no document',
        operationIndex: target.operation.index,
        operation: target.operation.raw,
      });
    }
    const { parent, token, depth } = this.#slotForWrite(target);
    const removed = child(parent, token, target, depth);
    if (Array.isArray(parent)) parent.splice(arrayIndexOf(token) as number, 1);
    else delete parent[token];
    return removed;
  }

  /** RFC 6902 `replace`: the location must exist. */
  replace(target: Target, value: JsonValue): void {
    if (target.tokens.length === 0) {
      this.root = value;
      return;
    }
    const { parent, token, depth } = this.#slotForWrite(target);
    child(parent, token, target, depth);
    if (Array.isArray(parent)) parent[arrayIndexOf(token) as number] = value;
    else setMember(parent, token, value);
  }

  /**
   * Called before a `copy` lands: the copied subtree becomes reachable twice, so nothing may be
   * written in place any more (and `copy` from `/a` to `/a/b` must not write `a` into itself).
   */
  forgetOwnership(): void {
    this.#owned = null;
  }
}
