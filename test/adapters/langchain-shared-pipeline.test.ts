import { HumanMessage } from '@langchain/core/messages';
import { type DynamicStructuredTool, tool } from '@langchain/core/tools';
import { createAgent } from 'langchain';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createGuardPipeline, hyphaeMiddleware } from '../../src/adapters/langchain.js';
import { createFuseBox, createLedger, createMemoryStorage, loopFuse } from '../../src/index.js';
import { ScriptedChatModel } from '../helpers/scripted-chat-model.js';

/** A tool whose body waits for `release()`, and a promise that it has started. */
function heldTool() {
  let started = (): void => undefined;
  let release = (): void => undefined;
  const running = new Promise<void>((resolve) => {
    started = resolve;
  });
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const slow = tool(
    async () => {
      started();
      await held;
      return 'done';
    },
    { name: 'slow', description: 'Takes its time', schema: z.object({}) },
  );
  return { tool: slow as unknown as DynamicStructuredTool, running, release };
}

describe('hyphaeMiddleware: two agents on one pipeline', () => {
  it('keeps a run going after the other agent’s invocation of the same run ended it', async () => {
    const pipeline = createGuardPipeline({
      ledger: createLedger({ storage: createMemoryStorage(), agentId: 'agent', policyVersion: '1' }),
      fuses: createFuseBox({ loop: loopFuse() }),
    });
    const slow = heldTool();
    const first = createAgent({
      model: new ScriptedChatModel([{ calls: [{ id: 'call_1', name: 'slow' }] }, { text: 'first done' }]),
      tools: [slow.tool],
      middleware: [hyphaeMiddleware(pipeline)],
    });
    const second = createAgent({
      model: new ScriptedChatModel([{ text: 'second done' }]),
      tools: [],
      middleware: [hyphaeMiddleware(pipeline)],
    });
    // The same message and thread: one run, delivered to two agents (a redelivered job).
    const input = () => ({ messages: [new HumanMessage({ id: 'msg_1', content: 'go' })] });
    const config = { configurable: { thread_id: 'thread-1' } };

    const running = first.invoke(input(), config);
    await slow.running;
    const other = await second.invoke(input(), config);
    slow.release();
    const result = await running;

    expect(other.messages.at(-1)?.content).toBe('second done');
    // Before the fix its model call was refused: the other agent had ended the run's fuse run.
    expect(result.messages.at(-1)?.content).toBe('first done');
  });
});
