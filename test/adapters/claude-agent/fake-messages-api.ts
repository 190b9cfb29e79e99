/**
 * A local Anthropic Messages API for the Claude Code binary: `POST /v1/messages` answers each
 * model request with the next scripted turn, streamed as SSE when the request asks for it.
 * Requests without tools (the binary's own side requests, e.g. a title) get a short text answer
 * and are not counted as turns. Any CONNECT (a proxied request to the internet) is recorded and
 * refused, so a test can assert nothing left the machine.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A content block of a scripted answer. */
export type ScriptedBlock =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'tool_use'; readonly id: string; readonly name: string; readonly input: unknown };

/** One scripted model answer. */
export interface ScriptedTurn {
  readonly content: readonly ScriptedBlock[];
  /** Default `tool_use` when a block calls a tool, else `end_turn`. */
  readonly stopReason?: string;
  readonly usage?: { readonly input_tokens: number; readonly output_tokens: number };
}

/** A model request the binary sent (with tools: a turn of the agent loop). */
export interface RecordedRequest {
  readonly model: string;
  readonly messages: readonly { readonly role: string; readonly content: unknown }[];
  readonly tools: readonly { readonly name: string }[];
}

export interface FakeMessagesApi {
  readonly url: string;
  /** The agent loop's model requests, in order. */
  readonly requests: RecordedRequest[];
  /** Hosts the binary tried to reach through the proxy (must stay empty). */
  readonly connects: string[];
  close(): Promise<void>;
}

type Script = readonly ScriptedTurn[] | ((request: RecordedRequest, index: number) => ScriptedTurn);

function sse(res: ServerResponse, event: string, data: unknown): void {
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

function answer(res: ServerResponse, body: Record<string, unknown>, turn: ScriptedTurn, id: string): void {
  const usage = turn.usage ?? { input_tokens: 100, output_tokens: 50 };
  const stopReason = turn.stopReason ?? (turn.content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn');
  const model = String(body.model);
  if (body.stream !== true) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id,
        type: 'message',
        role: 'assistant',
        model,
        content: turn.content,
        stop_reason: stopReason,
        stop_sequence: null,
        usage,
      }),
    );
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const message = {
    id,
    type: 'message',
    role: 'assistant',
    model,
    content: [],
    stop_reason: null,
    stop_sequence: null,
  };
  sse(res, 'message_start', {
    type: 'message_start',
    message: { ...message, usage: { input_tokens: usage.input_tokens, output_tokens: 1 } },
  });
  turn.content.forEach((block, index) => {
    if (block.type === 'text') {
      sse(res, 'content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'text', text: '' },
      });
      sse(res, 'content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'text_delta', text: block.text },
      });
    } else {
      sse(res, 'content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
      });
      sse(res, 'content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) },
      });
    }
    sse(res, 'content_block_stop', { type: 'content_block_stop', index });
  });
  sse(res, 'message_delta', {
    type: 'message_delta',
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: { output_tokens: usage.output_tokens },
  });
  sse(res, 'message_stop', { type: 'message_stop' });
  res.end();
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      text += chunk;
    });
    req.on('end', () => resolve(text));
    req.on('error', reject);
  });
}

/** Start the fake API on a free local port; a script past its end answers `done`. */
export async function startFakeMessagesApi(script: Script): Promise<FakeMessagesApi> {
  const requests: RecordedRequest[] = [];
  const connects: string[] = [];
  let side = 0;
  const server = createServer((req, res) => {
    void readBody(req).then((text) => {
      const url = req.url ?? '';
      if (req.method !== 'POST' || !url.startsWith('/v1/messages')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: url } }));
        return;
      }
      const body = JSON.parse(text) as Record<string, unknown>;
      if (url.startsWith('/v1/messages/count_tokens')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ input_tokens: 100 }));
        return;
      }
      const tools = Array.isArray(body.tools) ? (body.tools as { name: string }[]) : [];
      if (tools.length === 0) {
        side++;
        answer(res, body, { content: [{ type: 'text', text: 'Guarded agent' }] }, `msg_side_${side}`);
        return;
      }
      const request: RecordedRequest = {
        model: String(body.model),
        messages: body.messages as RecordedRequest['messages'],
        tools,
      };
      const index = requests.length;
      requests.push(request);
      const turn =
        typeof script === 'function'
          ? script(request, index)
          : (script[index] ?? { content: [{ type: 'text', text: 'done' }] });
      answer(res, body, turn, `msg_${index + 1}`);
    });
  });
  server.on('connect', (req, socket) => {
    connects.push(req.url ?? '');
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    connects,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The `tool_result` blocks of a request's last user message, as `[tool_use_id, text]`. */
export function toolResultsIn(request: RecordedRequest | undefined): [string, string][] {
  const last = request?.messages.at(-1);
  if (last === undefined || !Array.isArray(last.content)) return [];
  return (last.content as Record<string, unknown>[])
    .filter((block) => block.type === 'tool_result')
    .map((block) => {
      const content = block.content;
      const text = Array.isArray(content)
        ? (content as { text?: string }[]).map((part) => part.text ?? '').join('')
        : String(content);
      return [String(block.tool_use_id), text];
    });
}
