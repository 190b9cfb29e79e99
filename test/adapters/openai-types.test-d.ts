/**
 * Type test (checked by `tsc`, not run): the loop takes and gives back the `openai` package's own
 * `ChatCompletionMessageParam[]` under the repo's strict settings, and the real client fits.
 */
import type OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { createGuardPipeline, type OpenAiChatClient, runGuardedToolLoop } from '../../src/adapters/openai.js';

export async function roundTrip(
  client: OpenAI,
  history: ChatCompletionMessageParam[],
): Promise<ChatCompletionMessageParam[]> {
  const typed: OpenAiChatClient = client;
  const result = await runGuardedToolLoop({
    client: typed,
    model: 'gpt-4o-mini',
    messages: history,
    tools: [],
    executors: {},
    guards: createGuardPipeline().forRun({ runId: 'types' }),
    stream: true,
  });
  const next: ChatCompletionMessageParam[] = result.messages;
  // The transcript goes straight back to the SDK.
  await client.chat.completions.create({ model: 'gpt-4o-mini', messages: next });
  return next;
}
