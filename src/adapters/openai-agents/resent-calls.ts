/**
 * A model that re-sends a function call whose id the input already answers: the Agents runner does
 * not run such a call again, so the tool wrappers never see it. The model guard hands it to the
 * pipeline instead, which answers it from the ledger (the body never runs) and lets the loop fuse
 * count the repeat, so a model re-sending one call every turn is stopped like any other loop.
 */
import { GuardError } from '../../errors.js';
import type { GuardRun } from '../shared/run-types.js';

type Item = Readonly<Record<string, unknown>>;

const isItem = (value: unknown): value is Item => typeof value === 'object' && value !== null;

/** Never runs a body: the call was answered before and is only being counted. */
async function notDispatched(): Promise<never> {
  throw new GuardError('not_dispatched', 'A call the runner answered already is not run again');
}

/** Run the response's re-sent calls (their ids answered in `input`) through `run`, in order. */
export async function recheckResentCalls(run: GuardRun, input: unknown, response: unknown): Promise<void> {
  const answered = new Set<string>();
  for (const item of Array.isArray(input) ? input : []) {
    if (isItem(item) && item.type === 'function_call_result' && typeof item.callId === 'string') {
      answered.add(item.callId);
    }
  }
  const output = isItem(response) && Array.isArray(response.output) ? response.output : [];
  for (const item of output) {
    if (!isItem(item) || item.type !== 'function_call' || typeof item.callId !== 'string') continue;
    if (!answered.has(item.callId) || typeof item.name !== 'string' || run.stopped !== null) continue;
    await run.executeToolCall(
      { id: item.callId, name: item.name, argsText: typeof item.arguments === 'string' ? item.arguments : '' },
      notDispatched,
    );
  }
}
