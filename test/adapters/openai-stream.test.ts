/**
 * `runGuardedToolLoop` with `stream: true` against a local endpoint that streams (SSE): the guards
 * sit at the same points as without streaming — loop stop, budget pre-flight and usage booking.
 */
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { createGuardPipeline, runGuardedToolLoop } from '../../src/adapters/openai.js';
import { budgetFuse, createFuseBox, createLedger, createMemoryStorage, loopFuse } from '../../src/index.js';
import { type OpenAiTestServer, startOpenAiServer, textStep, toolCallsStep } from '../helpers/openai-server.js';

let server: OpenAiTestServer;
afterEach(() => server?.close());

const tools = [{ type: 'function' as const, function: { name: 'lookup', parameters: { type: 'object' } } }];

function guardsOf(fuses: Parameters<typeof createFuseBox>[0], runId: string) {
  return createGuardPipeline({
    ledger: createLedger({ storage: createMemoryStorage(), agentId: 'a', policyVersion: '1' }),
    fuses: createFuseBox(fuses),
    tools: { lookup: { sideEffectClass: 'read' } },
  }).forRun({ runId });
}

describe('runGuardedToolLoop with stream: true', () => {
  it('reads streamed tool calls and text, and hands every chunk to onChunk', async () => {
    server = await startOpenAiServer([
      toolCallsStep([
        { id: 'call_1', name: 'lookup', args: { id: 'o_1' } },
        { id: 'call_2', name: 'lookup', args: { id: 'o_2' } },
      ]),
      textStep('both shipped'),
    ]);
    const seen: string[] = [];
    const chunks: unknown[] = [];
    const result = await runGuardedToolLoop({
      client: new OpenAI({ apiKey: 'k', baseURL: server.baseURL, maxRetries: 0 }),
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'where are o_1 and o_2?' }],
      tools,
      executors: { lookup: async (args: { id: string }) => seen.push(args.id) && 'shipped' },
      guards: guardsOf({}, 'stream-ok'),
      stream: true,
      onChunk: (chunk) => chunks.push(chunk),
    });

    expect(server.requests.map((request) => [request.stream, request.stream_options])).toEqual([
      [true, { include_usage: true }],
      [true, { include_usage: true }],
    ]);
    expect(seen).toEqual(['o_1', 'o_2']);
    expect(result).toMatchObject({ stopReason: 'completed', finalMessage: { content: 'both shipped' } });
    expect(chunks.length).toBeGreaterThan(6);
  });

  it('stops a loop and refuses a request past the budget, streamed as not', async () => {
    server = await startOpenAiServer(
      Array.from({ length: 12 }, (_, i) => toolCallsStep([{ id: `call_${i}`, name: 'lookup', args: { id: 'o_1' } }])),
    );
    let runs = 0;
    const loop = await runGuardedToolLoop({
      client: new OpenAI({ apiKey: 'k', baseURL: server.baseURL, maxRetries: 0 }),
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'go' }],
      tools,
      executors: {
        lookup: async () => {
          runs++;
          return 'still shipped';
        },
      },
      guards: guardsOf({ loop: loopFuse({ repeatThreshold: 3, terminal: true }) }, 'stream-loop'),
      stream: true,
    });
    expect([runs, server.requests.length, loop.stopReason, loop.refusal?.code]).toEqual([
      2,
      3,
      'stopped',
      'loop_repeat',
    ]);

    const before = server.requests.length;
    const guards = guardsOf({ budget: budgetFuse({ maxTokens: 100 }) }, 'stream-budget');
    const budget = await runGuardedToolLoop({
      client: new OpenAI({ apiKey: 'k', baseURL: server.baseURL, maxRetries: 0 }),
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'go' }],
      tools,
      executors: { lookup: async () => 'x' },
      guards,
      maxOutputTokens: 40,
      stream: true,
    });
    // The first streamed answer books its 30 real tokens; the next request would cross 100.
    expect(server.requests.length - before).toBeLessThanOrEqual(2);
    expect(budget.stopReason).toMatch(/model_call_refused|stopped/);
    expect(budget.refusal?.stage).toBe('model');
  });
});
