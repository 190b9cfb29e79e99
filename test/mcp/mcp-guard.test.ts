/**
 * The MCP guard as a library: annotation defaults, the retry window of intent identity, output
 * validation of `structuredContent`, and refusals as tool results. The ledger is real (memory
 * storage); `forward` counts the calls that reached the server.
 */
import { describe, expect, it } from 'vitest';
import {
  createMcpGuard,
  type McpCallToolResult,
  type McpPolicy,
  type McpToolDefinition,
} from '../../src/adapters/mcp.js';
import { createManualClock } from '../../src/core/clock.js';
import { createLedger } from '../../src/ledger/create-ledger.js';
import { createMemoryStorage } from '../../src/storage/memory.js';

const PAY: McpToolDefinition = {
  name: 'pay',
  inputSchema: { type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'] },
};
const MEASURE: McpToolDefinition = {
  name: 'measure',
  inputSchema: { type: 'object' },
  outputSchema: { type: 'object', properties: { meters: { type: 'number' } }, required: ['meters'] },
  annotations: { readOnlyHint: true },
};

function setup(policy: McpPolicy = {}) {
  const clock = createManualClock(1_000_000);
  const ledger = createLedger({ storage: createMemoryStorage(), agentId: 'mcp', policyVersion: '1', clock });
  const guard = createMcpGuard({ ledger, clock, policy: { granted: ['read', 'write', 'destructive'], ...policy } });
  let sent = 0;
  const forward = async (): Promise<McpCallToolResult> => {
    sent++;
    return { content: [{ type: 'text', text: `effect ${sent}` }] };
  };
  return { clock, guard, forward, sent: () => sent };
}

describe('createMcpGuard', () => {
  it('treats a repeated side-effecting call as a retry within the window and as a new call after it', async () => {
    const { clock, guard, forward, sent } = setup({ retryWindowMs: 60_000 });
    await guard.observeTools([PAY], 'replace');
    const call = (rpcId: number) => guard.callTool({ name: 'pay', args: { amount: 5 }, rpcId }, forward);

    await call(1);
    clock.advance(59_999);
    const retried = await call(2);
    clock.advance(60_001);
    const fresh = await call(3);

    expect(sent()).toBe(2);
    expect('result' in retried && retried.result._meta?.['io.hyphae/replayed']).toBe(true);
    expect('result' in fresh && fresh.result.content).toEqual([{ type: 'text', text: 'effect 2' }]);
  });

  it('needs the `destructive` scope for a tool without annotations, and config wins over annotations', async () => {
    const writer = setup({ granted: ['read', 'write'] });
    await writer.guard.observeTools([PAY], 'replace');
    const configured = setup({ granted: ['read', 'write'], tools: { pay: { permissions: ['write'] } } });
    await configured.guard.observeTools([PAY], 'replace');

    const refused = await writer.guard.callTool({ name: 'pay', args: { amount: 1 }, rpcId: 1 }, writer.forward);
    const allowed = await configured.guard.callTool({ name: 'pay', args: { amount: 1 }, rpcId: 1 }, configured.forward);

    expect('result' in refused && refused.result.isError).toBe(true);
    expect(writer.sent()).toBe(0);
    expect('result' in allowed && allowed.result.isError).toBeUndefined();
    expect(configured.sent()).toBe(1);
  });

  it('refuses a tool the server never listed', async () => {
    const { guard, forward, sent } = setup();
    await guard.observeTools([PAY], 'replace');

    const answer = await guard.callTool({ name: 'delete_everything', args: {}, rpcId: 1 }, forward);

    expect('result' in answer && answer.result.isError).toBe(true);
    expect('result' in answer && answer.result._meta?.['io.hyphae/refusal']).toEqual({
      code: 'mcp_tool_unlisted',
      stage: 'registry',
    });
    expect(sent()).toBe(0);
  });

  it('fails a result whose `structuredContent` breaks the output schema, and passes an error result', async () => {
    const { guard } = setup();
    await guard.observeTools([MEASURE], 'replace');
    const returning = (result: McpCallToolResult) => async () => result;

    const broken = await guard.callTool(
      { name: 'measure', args: { probe: 1 }, rpcId: 1 },
      returning({ content: [], structuredContent: { meters: 'far' } }),
    );
    const fine = await guard.callTool(
      { name: 'measure', args: { probe: 2 }, rpcId: 2 },
      returning({ content: [], structuredContent: { meters: 3 } }),
    );
    const failed = await guard.callTool(
      { name: 'measure', args: { probe: 3 }, rpcId: 3 },
      returning({ content: [{ type: 'text', text: 'sensor down' }], isError: true }),
    );

    expect('result' in broken && broken.result.isError).toBe(true);
    expect('result' in broken && JSON.stringify(broken.result.content)).toContain('meters');
    expect('result' in fine && fine.result.structuredContent).toEqual({ meters: 3 });
    expect('result' in failed && failed.result.content).toEqual([{ type: 'text', text: 'sensor down' }]);
  });

  it('stops the session once its tool-call budget is spent', async () => {
    const { guard, forward, sent } = setup({ budget: { maxUsd: 1 }, tools: { pay: { costUsd: 0.4 } } });
    await guard.observeTools([PAY], 'replace');
    const pay = (amount: number) => guard.callTool({ name: 'pay', args: { amount }, rpcId: amount }, forward);

    await pay(1);
    await pay(2);
    const third = await pay(3);
    const cheaper = await guard.callTool({ name: 'pay', args: { amount: 4 }, rpcId: 4 }, forward);

    expect(sent()).toBe(2);
    expect('result' in third && third.result._meta?.['io.hyphae/refusal']).toEqual({
      code: 'budget_usd_exceeded',
      stage: 'fuses',
    });
    expect('result' in cheaper && cheaper.result.isError).toBe(true);
  });
});
