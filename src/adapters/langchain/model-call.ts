/**
 * The budget at the provider boundary of `createAgent`: a pre-flight before the model is called
 * (a refused call is not made) and the real usage booked from the answer.
 */
import { convertToOpenAITool } from '@langchain/core/utils/function_calling';
import type { GuardRun } from '../shared/run-types.js';
import type { GuardRefusal } from '../shared/types.js';
import { isObject } from './messages.js';
import { stopAnswer } from './stop.js';
import { toPlainMessage } from './transcript.js';

/** The fields of `createAgent`'s model request the pre-flight reads. */
export interface LangChainModelRequest {
  readonly model?: unknown;
  readonly messages?: readonly unknown[];
  readonly systemMessage?: unknown;
  readonly systemPrompt?: unknown;
  readonly tools?: readonly unknown[];
}

/** What the pre-flight prices when the chat model does not say. */
export interface ModelCallSettings {
  readonly model: string | undefined;
  readonly maxOutputTokens: number | undefined;
  readonly stopMessage: (refusal: GuardRefusal) => string;
}

function stringField(source: unknown, ...keys: string[]): string | undefined {
  if (!isObject(source)) return undefined;
  for (const key of keys) {
    const value = source[key];
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}

function modelName(model: unknown, settings: ModelCallSettings): string {
  if (settings.model !== undefined) return settings.model;
  const named = stringField(model, 'model', 'modelName', 'model_name');
  if (named !== undefined) return named;
  if (isObject(model) && typeof model.getName === 'function') {
    const name: unknown = (model.getName as () => unknown).call(model);
    if (typeof name === 'string' && name !== '') return name;
  }
  return 'unknown';
}

function maxOutputTokens(model: unknown, settings: ModelCallSettings): number | undefined {
  if (settings.maxOutputTokens !== undefined) return settings.maxOutputTokens;
  const value = isObject(model) ? (model.maxTokens ?? model.maxOutputTokens) : undefined;
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : undefined;
}

function toolDefinitions(tools: readonly unknown[] | undefined): unknown {
  if (tools === undefined || tools.length === 0) return undefined;
  return tools.map((tool) => {
    try {
      return convertToOpenAITool(tool as Parameters<typeof convertToOpenAITool>[0]);
    } catch {
      // Counted from what can be read: an estimate of the schema, not a refusal.
      return { name: stringField(tool, 'name') ?? '', description: stringField(tool, 'description') ?? '' };
    }
  });
}

function promptMessages(request: LangChainModelRequest): unknown[] {
  const messages = (request.messages ?? []).map(toPlainMessage);
  const system = isObject(request.systemMessage) ? request.systemMessage.content : request.systemPrompt;
  if (typeof system === 'string' && system !== '') return [{ role: 'system', content: system }, ...messages];
  if (Array.isArray(system) && system.length > 0) return [{ role: 'system', content: system }, ...messages];
  return messages;
}

function usageOf(response: unknown): unknown {
  if (!isObject(response)) return undefined;
  if (response.usage_metadata !== undefined) return response.usage_metadata;
  const metadata = isObject(response.response_metadata) ? response.response_metadata : undefined;
  return metadata?.usage ?? metadata?.tokenUsage;
}

/**
 * Call the model under the budget: refused → an AI message saying the call was NOT made (it has
 * no tool calls, so the agent ends); allowed → the call, its usage booked, or its reservation
 * given back when it throws.
 */
export async function guardModelCall(
  run: GuardRun,
  request: LangChainModelRequest,
  handler: (request: never) => unknown,
  settings: ModelCallSettings,
): Promise<unknown> {
  const gate = run.checkModelCall({
    model: modelName(request.model, settings),
    messages: promptMessages(request),
    tools: toolDefinitions(request.tools),
    maxOutputTokens: maxOutputTokens(request.model, settings),
  });
  if (gate.status === 'refused') return stopAnswer(gate.refusal, settings.stopMessage(gate.refusal));
  let response: unknown;
  try {
    response = await handler(request as never);
  } catch (error) {
    run.releaseModelCall(gate.reservation);
    throw error;
  }
  run.recordModelUsage(usageOf(response), gate.reservation);
  return response;
}
