/**
 * Reading JSON a model wrote as text, and saying briefly why a value does not fit its schema:
 * shared by the final answer, the vision review and the AI SDK vision adapter.
 */
import { toJsonPointer, type ValidationIssue } from '../../boundary/issues.js';

const FENCE = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/;

/** The JSON value in a model's text: trimmed, one enclosing ```` ```json ```` fence removed, parsed. Never throws. */
export function parseModelJson(
  text: string,
): { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: Error } {
  const trimmed = text.trim();
  try {
    return { ok: true, value: JSON.parse(FENCE.exec(trimmed)?.[1] ?? trimmed) };
  } catch (error) {
    return { ok: false, error: error as Error };
  }
}

/** The first five issues as `pointer: message`, joined with `; ` (the value itself is `/`). */
export function describeIssues(issues: readonly ValidationIssue[]): string {
  return issues
    .slice(0, 5)
    .map((issue) => `${toJsonPointer(issue.path) || '/'}: ${issue.message}`)
    .join('; ');
}
