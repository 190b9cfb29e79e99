import { generateText, isStepCount, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createGuardPipeline, guardTools, hyphaeStopWhen, ToolCallRefusedError } from '../../src/adapters/ai-sdk.js';
import { createFuseBox, createLedger, createMemoryStorage, permissionFuse } from '../../src/index.js';
import { scriptedModel } from '../helpers/ai-sdk-model.js';

function counted<R>(result: R) {
  const calls: unknown[] = [];
  const execute = async (input: unknown) => {
    calls.push(input);
    return result;
  };
  return Object.assign(execute, { calls });
}

/** The tool-result parts of a prompt the model received. */
function toolResults(prompt: readonly { role: string; content: unknown }[] | undefined) {
  return (prompt ?? [])
    .filter((message) => message.role === 'tool')
    .flatMap((message) => message.content as { toolCallId: string; output: { type: string; value?: unknown } }[]);
}

describe('guardTools', () => {
  it('keeps schemas and toModelOutput, and leaves the input tools alone', () => {
    const weather = tool({
      description: 'Weather',
      inputSchema: z.object({ city: z.string() }),
      outputSchema: z.object({ t: z.number() }),
      execute: async () => ({ t: 20 }),
      toModelOutput: ({ output }) => ({ type: 'text', value: `${output.t} degrees` }),
    });
    const clientSide = tool({ inputSchema: z.object({}), outputSchema: z.string() });
    const tools = { weather, clientSide };
    const guarded = guardTools(tools, createGuardPipeline().forRun({ runId: 'r' }));
    expect(guarded.weather.inputSchema).toBe(weather.inputSchema);
    expect(guarded.weather.outputSchema).toBe(weather.outputSchema);
    expect(guarded.weather.toModelOutput).toBe(weather.toModelOutput);
    expect(guarded.weather.description).toBe('Weather');
    expect(guarded.weather.execute).not.toBe(weather.execute);
    expect(guarded.clientSide).toBe(clientSide);
    expect(tools.weather).toBe(weather);
  });

  it('runs an allowed call with the tool call id as the ledger ticket and applies toModelOutput', async () => {
    const ledger = createLedger({ storage: createMemoryStorage(), agentId: 'a', policyVersion: '1' });
    const guards = createGuardPipeline({ ledger }).forRun({ threadId: 't', runId: 'r' });
    const execute = counted({ t: 21 });
    const model = scriptedModel([
      { calls: [{ id: 'call-1', name: 'weather', input: { city: 'Oslo' } }] },
      { text: 'Mild' },
    ]);
    const result = await generateText({
      model,
      prompt: 'Weather in Oslo?',
      tools: guardTools(
        {
          weather: tool({
            inputSchema: z.object({ city: z.string() }),
            execute,
            toModelOutput: ({ output }) => ({ type: 'text', value: `${output.t} degrees` }),
          }),
        },
        guards,
      ),
      stopWhen: isStepCount(5),
    });
    expect(result.text).toBe('Mild');
    expect(execute.calls).toEqual([{ city: 'Oslo' }]);
    expect(toolResults(model.prompts[1])).toMatchObject([
      { toolCallId: 'call-1', output: { type: 'text', value: '21 degrees' } },
    ]);
    const { records } = await ledger.list();
    expect(records).toMatchObject([{ ticket: 'call-1', tool: 'weather', scope: { threadId: 't', runId: 'r' } }]);
  });

  it('answers a refused call with a tool error, same call id, saying it did NOT happen', async () => {
    const fuses = createFuseBox({
      permission: permissionFuse({ granted: ['read'], tools: { refund: ['spend'] }, maxDenials: 3 }),
    });
    const guards = createGuardPipeline({ fuses }).forRun({ runId: 'r' });
    const refund = counted('refunded');
    const model = scriptedModel([
      { calls: [{ id: 'call-9', name: 'refund', input: { amount: 40 } }] },
      { text: 'Cannot' },
    ]);
    const result = await generateText({
      model,
      prompt: 'Refund me',
      tools: guardTools({ refund: tool({ inputSchema: z.object({ amount: z.number() }), execute: refund }) }, guards),
      stopWhen: [isStepCount(5), hyphaeStopWhen(guards)],
    });
    expect(refund.calls).toEqual([]);
    const [answer] = toolResults(model.prompts[1]);
    expect(answer?.toolCallId).toBe('call-9');
    expect(answer?.output.type).toBe('error-text');
    expect(answer?.output.value).toMatch(/^The call to `refund` was NOT executed/);
    const error = result.steps[0]?.content.find((part) => part.type === 'tool-error');
    expect(error && 'error' in error && error.error).toBeInstanceOf(ToolCallRefusedError);
    expect(result.text).toBe('Cannot');
  });

  it('stops the run on a terminal refusal, the sibling calls of the step included', async () => {
    const fuses = createFuseBox({
      permission: permissionFuse({ granted: ['read'], tools: { lookup: ['read'], refund: ['spend'] }, maxDenials: 1 }),
    });
    const guards = createGuardPipeline({ fuses }).forRun({ runId: 'r' });
    const lookup = counted('found');
    const refund = counted('refunded');
    const model = scriptedModel([
      {
        calls: [
          { id: 'call-r', name: 'refund', input: { amount: 40 } },
          { id: 'call-l', name: 'lookup', input: { id: 1 } },
        ],
      },
      { text: 'never' },
    ]);
    const result = await generateText({
      model,
      prompt: 'Refund me',
      tools: guardTools(
        {
          refund: tool({ inputSchema: z.object({ amount: z.number() }), execute: refund }),
          lookup: tool({ inputSchema: z.object({ id: z.number() }), execute: lookup }),
        },
        guards,
      ),
      stopWhen: [isStepCount(5), hyphaeStopWhen(guards)],
    });
    expect(result.steps).toHaveLength(1);
    expect(model.prompts).toHaveLength(1);
    expect(lookup.calls).toEqual([]);
    const errors = result.steps[0]?.content.filter((part) => part.type === 'tool-error') ?? [];
    expect(errors.map((part) => (part.error as ToolCallRefusedError).refusal.code)).toEqual([
      'permission_denied',
      'run_stopped',
    ]);
  });

  it('re-throws an abort and the tool’s own errors as they are', async () => {
    const guards = createGuardPipeline().forRun({ runId: 'r' });
    const abort = new DOMException('stop', 'AbortError');
    const boom = new Error('boom');
    const tools = guardTools(
      {
        slow: tool({
          inputSchema: z.object({}),
          execute: async (): Promise<string> => {
            throw abort;
          },
        }),
        broken: tool({
          inputSchema: z.object({}),
          execute: async (): Promise<string> => {
            throw boom;
          },
        }),
      },
      guards,
    );
    const options = { toolCallId: 'c1', messages: [], context: {} };
    await expect(tools.slow.execute({}, options)).rejects.toBe(abort);
    await expect(tools.broken.execute({}, { ...options, toolCallId: 'c2' })).rejects.toBe(boom);
  });
});
