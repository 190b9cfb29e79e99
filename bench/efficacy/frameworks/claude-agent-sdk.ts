/**
 * The Claude Agent SDK's `query()`, running its bundled Claude Code binary against a local
 * stand-in for the Anthropic Messages API (SSE streaming) on 127.0.0.1, offline. The scenario's
 * tools are in-process tools of one `createSdkMcpServer` server (`bench`). Stock is `query()` at its
 * defaults (no `maxTurns`, no `maxBudgetUsd`) with the tools allowed by `allowedTools`; guarded is
 * the same with `guardClaudeAgent`'s hooks, `canUseTool`, guarded tools and `observe`.
 *
 * Each query starts a Claude Code process (about a second), so this front door runs the scenarios
 * it can take (`CLAUDE_AGENT_SCENARIOS`): a prompt, not a stored history (no `orphan`,
 * `dangling`). The binary makes the model calls: `budget` is guarded by the pre-flight in the hooks
 * between calls (see docs/adapters/claude-agent-sdk.md, "Budget").
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSdkMcpServer, type Options, query, type SDKResultMessage, tool } from '@anthropic-ai/claude-agent-sdk';
import { guardClaudeAgent } from '../../../src/adapters/claude-agent-sdk.js';
import { COMPLETED, createScript, type Deliver, type Meter, stopEnding } from '../harness.js';
import type { ScenarioId, Turn } from '../scenarios.js';
import { type ToolName, toolDescriptions, toolSchemas } from '../tools.js';

/** The scenarios this front door runs. */
export const CLAUDE_AGENT_SCENARIOS: readonly ScenarioId[] = [
  'loop',
  'cycle',
  'polling',
  'polling-identical',
  'permission',
  'budget',
  'redispatch',
  'replay',
  'abort-retry',
  'same-id',
  'twin-calls',
  'flaky-read',
  'payment-fails',
];

const SERVER = 'bench';

function sse(response: ServerResponse, event: string, data: object): void {
  response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

/** A scripted turn as a streamed Messages API answer; tool calls named as the agent sees them. */
type Block =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'tool_use'; readonly id: string; readonly name: string; readonly input: unknown };

function stream(response: ServerResponse, turn: Turn, model: string, id: string): void {
  const blocks: readonly Block[] =
    'text' in turn
      ? [{ type: 'text', text: turn.text }]
      : turn.calls.map((call) => ({
          type: 'tool_use',
          id: call.id,
          name: `mcp__${SERVER}__${call.name}`,
          input: call.args,
        }));
  const stopReason = 'text' in turn ? 'end_turn' : 'tool_use';
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  const message = { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null };
  sse(response, 'message_start', {
    type: 'message_start',
    message: { ...message, usage: { input_tokens: turn.usage.input, output_tokens: 1 } },
  });
  blocks.forEach((block, index) => {
    const start = block.type === 'text' ? { type: 'text', text: '' } : { ...block, input: {} };
    const delta =
      block.type === 'text'
        ? { type: 'text_delta', text: block.text }
        : { type: 'input_json_delta', partial_json: JSON.stringify(block.input) };
    sse(response, 'content_block_start', { type: 'content_block_start', index, content_block: start });
    sse(response, 'content_block_delta', { type: 'content_block_delta', index, delta });
    sse(response, 'content_block_stop', { type: 'content_block_stop', index });
  });
  sse(response, 'message_delta', {
    type: 'message_delta',
    delta: { stop_reason: stopReason },
    usage: { output_tokens: turn.usage.output },
  });
  sse(response, 'message_stop', { type: 'message_stop' });
  response.end();
}

async function readJson(request: IncomingMessage): Promise<{ model?: string; tools?: unknown[] }> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { model?: string; tools?: unknown[] };
}

/** `POST /v1/messages`: the agent loop's requests (those with tools) answer from the script. */
async function startServer(turns: readonly Turn[], meter: Meter) {
  const script = createScript(turns, meter);
  let calls = 0;
  const server = createServer((request, response) => {
    readJson(request).then(
      (body) => {
        const model = body.model ?? 'claude';
        // The binary's own side requests (a session title) carry no tools and are not the agent's.
        if ((body.tools ?? []).length === 0) {
          stream(response, { text: 'Bench', usage: { input: 0, output: 0 } }, model, 'msg_side');
          return;
        }
        meter.modelCalls++;
        calls++;
        stream(response, script.next(), model, `msg_${calls}`);
      },
      () => {
        response.writeHead(400);
        response.end();
      },
    );
  });
  // A proxied request to the internet is refused.
  server.on('connect', (_request, socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The options of an offline query: its home in a temp folder, nothing non-essential sent. */
function offlineOptions(url: string, home: string): Options {
  return {
    cwd: home,
    settingSources: [],
    persistSession: false,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: home,
      CLAUDE_CONFIG_DIR: join(home, '.claude'),
      ANTHROPIC_BASE_URL: url,
      ANTHROPIC_API_KEY: 'sk-ant-bench',
      DISABLE_TELEMETRY: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_ERROR_REPORTING: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      HTTPS_PROXY: url,
      HTTP_PROXY: url,
      NO_PROXY: '127.0.0.1',
    },
  };
}

function textOf(result: unknown): string {
  return typeof result === 'string' ? result : (JSON.stringify(result) ?? 'null');
}

/** One delivery with `query()`: stock, or with `guardClaudeAgent`. */
export const deliverClaudeAgent: Deliver = async ({ scenario, provider, meter, pipeline, scope }) => {
  const server = await startServer(scenario.script, meter);
  const home = mkdtempSync(join(tmpdir(), 'hyphae-bench-claude-'));
  try {
    const tools = scenario.tools.map((name: ToolName) =>
      tool(name, toolDescriptions[name], toolSchemas[name].shape, async (args) => ({
        content: [{ type: 'text' as const, text: textOf(await provider.bodies[name](args)) }],
      })),
    );
    const agent = pipeline === undefined ? undefined : guardClaudeAgent({ guards: pipeline, ...scope });
    const bench = createSdkMcpServer({
      name: SERVER,
      tools: agent === undefined ? tools : agent.guardTools(SERVER, tools),
    });
    const options: Options = {
      ...offlineOptions(server.url, home),
      mcpServers: { [SERVER]: bench },
      ...(agent === undefined
        ? { allowedTools: scenario.tools.map((name) => `mcp__${SERVER}__${name}`) }
        : { hooks: { ...agent.hooks }, canUseTool: agent.canUseTool }),
    };
    let result: SDKResultMessage | undefined;
    for await (const message of query({ prompt: scenario.prompt, options })) {
      agent?.observe(message);
      if (message.type === 'result') result = message;
    }
    const stopped = agent?.run.stopped ?? null;
    agent?.run.end();
    if (stopped !== null) return stopEnding(stopped);
    return result?.subtype === 'success' ? COMPLETED : `ended \`${result?.subtype ?? 'without a result'}\``;
  } finally {
    await server.close();
    rmSync(home, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
  }
};
