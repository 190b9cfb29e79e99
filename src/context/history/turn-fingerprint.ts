/**
 * Fingerprints of chat turns: SHA-256 of the canonical JSON of what the model reads — role, full
 * content, tool calls with their ids, and the answered call id — in any of the three formats.
 */
import { canonicalJson } from '../../core/canonical-json.js';
import { sha256Hex } from '../../core/fingerprint.js';
import { unreadableArgument } from '../../invalid-argument.js';

function normalize(value: unknown, stack: Set<object>): unknown {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
    if (typeof value === 'bigint' || typeof value === 'symbol' || typeof value === 'function') return String(value);
    return value;
  }
  if (stack.has(value)) return '[cycle]';
  if (value instanceof URL) return value.href;
  if (value instanceof Date) return value.toISOString();
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) {
    const bytes =
      value instanceof ArrayBuffer
        ? new Uint8Array(value)
        : new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
    return { $bytes: Buffer.from(bytes).toString('base64') };
  }
  stack.add(value);
  try {
    if (Array.isArray(value)) return value.map((item: unknown) => normalize(item, stack));
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = normalize(item, stack);
    return out;
  } finally {
    stack.delete(value);
  }
}

/**
 * The fingerprint of one turn. Two turns share it only when role, full content, tool calls (ids
 * included) and `tool_call_id` are equal, so two tool-call turns with empty content but different
 * call ids differ. Bytes, URLs and dates are fingerprinted by value; other fields (provider
 * options, parse artifacts) are ignored.
 *
 * @example
 * turnFingerprint({ role: 'user', content: 'hi' }) === turnFingerprint({ content: 'hi', role: 'user' }); // true
 */
export function turnFingerprint(message: unknown): string {
  try {
    if (typeof message !== 'object' || message === null) {
      return sha256Hex(canonicalJson({ value: normalize(message, new Set()) ?? null }));
    }
    const m = message as Record<string, unknown>;
    const projection = { role: m.role, content: m.content, tool_calls: m.tool_calls, tool_call_id: m.tool_call_id };
    return sha256Hex(canonicalJson(normalize(projection, new Set())));
  } catch (cause) {
    return unreadableArgument('turnFingerprint', 'message', cause);
  }
}
