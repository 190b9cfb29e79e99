/**
 * `anthropicGuardMiddleware` and `guardAnthropicClient`: every Messages request of a client (a tool
 * runner's turns, a hand-written `messages.create` loop) goes through the run's guards before it is
 * sent — the history repaired, the run's stop and the budget pre-flight checked — and its usage is
 * booked when the reply comes.
 */
import { GuardError } from '../../errors.js';
import { checkArguments, InvalidArgumentError } from '../../invalid-argument.js';
import type { GuardRun } from '../shared/run-types.js';
import { readReply } from './read-reply.js';
import { stopResponse } from './stop-response.js';
import { type ThreadBody, ThreadHistories } from './thread-histories.js';
import type { AnthropicApiRequest, AnthropicClientLike, AnthropicGuardOptions, AnthropicMiddleware } from './types.js';

/** A Messages create request (`POST /v1/messages`), not a count, a batch or another endpoint. */
function isMessagesCreate(request: AnthropicApiRequest): boolean {
  if ((request.method ?? 'GET').toUpperCase() !== 'POST') return false;
  try {
    return new URL(request.url).pathname.replace(/\/+$/u, '').endsWith('/v1/messages');
  } catch {
    return false;
  }
}

function bodyOf(request: AnthropicApiRequest): ThreadBody {
  let parsed: unknown;
  try {
    parsed = typeof request.body === 'string' ? JSON.parse(request.body) : undefined;
  } catch (cause) {
    throw new GuardError('unreadable_request', 'The Messages request body is not JSON; it was not sent', { cause });
  }
  if (typeof parsed !== 'object' || parsed === null || !Array.isArray((parsed as ThreadBody).messages)) {
    throw new GuardError('unreadable_request', 'The Messages request has no `messages` list; it was not sent');
  }
  return parsed as ThreadBody;
}

/** The prompt the budget estimates: the system prompt (a thread's own on a `continue`) as a first message, then the history. */
function promptOf(system: unknown, messages: readonly unknown[]): unknown[] {
  return system === undefined ? [...messages] : [{ role: 'system', content: system }, ...messages];
}

/**
 * A client middleware that guards every Messages request with one run's guards. Before the request:
 * the whole history (on a message thread, the thread's history and the new messages) is repaired,
 * so an orphan `tool_result` or a `tool_use` without its result never reaches the API (a repair a
 * thread's `continue` cannot carry starts a new thread with the whole repaired history); a stopped
 * run or a budget pre-flight refusal answers with a final assistant message (`end_turn`, the note
 * for the model) instead of sending the request, which ends a tool runner. After it: the reply's
 * usage (input, output, cache creation and cache read tokens) is booked in place of the
 * reservation; a failed attempt gives the reservation back. It runs per HTTP attempt, so each of
 * the client's retries is pre-flighted too.
 *
 * @example
 * import Anthropic from '@anthropic-ai/sdk';
 * import { anthropicGuardMiddleware } from 'hyphae/anthropic';
 *
 * const guards = pipeline.forRun({ threadId: 'thread-1', runId: 'run-1' });
 * const client = new Anthropic({ middleware: [anthropicGuardMiddleware(guards)] });
 */
export function anthropicGuardMiddleware(guards: GuardRun, options: AnthropicGuardOptions = {}): AnthropicMiddleware {
  checkArguments('anthropicGuardMiddleware', { guards, options });
  const repair = options.repairTranscript !== false;
  const histories = new ThreadHistories();
  let refused = 0;
  return async function hyphaeGuards(request, next): Promise<Response> {
    if (!isMessagesCreate(request)) return next(request as never);
    const body = bodyOf(request);
    // The usage of the replies before is booked first, so the pre-flight counts it, not their estimates.
    await histories.settled();
    const plan = await histories.plan(
      body,
      repair ? (messages) => guards.repairTranscript(messages, { format: 'anthropic' }) : null,
    );
    const model = typeof body.model === 'string' ? body.model : 'unknown';
    const gate = guards.checkModelCall({
      model,
      messages: promptOf(plan.system, plan.history),
      tools: plan.body.tools ?? plan.tools,
      maxOutputTokens: typeof body.max_tokens === 'number' ? body.max_tokens : undefined,
    });
    if (gate.status === 'refused') {
      // The note of what stopped the run, rather than the echo `run_stopped`.
      return stopResponse(guards.stopped ?? gate.refusal, model, body.stream === true, ++refused);
    }
    let response: Response;
    try {
      const headers = new Headers(request.headers);
      headers.delete('content-length');
      response = await next({ ...request, headers, body: JSON.stringify(plan.body) } as never);
    } catch (error) {
      guards.releaseModelCall(gate.reservation);
      throw error;
    }
    if (!response.ok) {
      guards.releaseModelCall(gate.reservation);
      return response;
    }
    histories.track(
      readReply(response).then((reply) => {
        // A reply without its usage (a stream cut short) books the reservation in its place.
        guards.recordModelUsage(reply.complete ? reply.usage : undefined, gate.reservation);
        return reply;
      }),
      plan,
    );
    return response;
  };
}

/**
 * A copy of `client` (its `withOptions`) whose every Messages request goes through
 * {@link anthropicGuardMiddleware}, after the client's own middleware.
 *
 * @example
 * import Anthropic from '@anthropic-ai/sdk';
 * import { guardAnthropicClient, guardRunnableTools } from 'hyphae/anthropic';
 *
 * const guards = pipeline.forRun({ threadId: 'thread-1', runId: 'run-1' });
 * const client = guardAnthropicClient(new Anthropic(), guards);
 * const final = await client.beta.messages.toolRunner({ model, max_tokens: 1024, messages, tools: guardRunnableTools(tools, guards) });
 */
export function guardAnthropicClient<C extends AnthropicClientLike>(
  client: C,
  guards: GuardRun,
  options: AnthropicGuardOptions = {},
): C {
  checkArguments('guardAnthropicClient', { client, guards, options });
  if (typeof client.withOptions !== 'function') {
    throw new InvalidArgumentError(
      'guardAnthropicClient',
      'client',
      'must be an `Anthropic` client (it has no `withOptions`)',
    );
  }
  const middleware = [...(client.middleware ?? []), anthropicGuardMiddleware(guards, options)];
  return client.withOptions({ middleware } as never) as C;
}
