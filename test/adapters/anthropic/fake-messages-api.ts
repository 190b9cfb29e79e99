/**
 * A local stand-in for the Messages API: `POST /v1/messages` on 127.0.0.1 (ephemeral port) answers
 * from a script, as JSON or as the SSE stream, and records every request body. Like the real API it
 * holds message threads (`thread: { type: 'create' | 'continue' }`) and answers 400 for a history
 * where a `tool_use` is not answered by the next message or a `tool_result` answers no `tool_use`
 * of the message before it.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A scripted `tool_use`. */
export interface ScriptedToolUse {
  /** Default: a new id for each reply (`toolu_<n>`). */
  readonly id?: string;
  readonly name: string;
  readonly input: Record<string, unknown>;
}

/** Anthropic usage: all four counts. */
export interface Usage {
  readonly input_tokens: number;
  readonly output_tokens: number;
  readonly cache_creation_input_tokens: number;
  readonly cache_read_input_tokens: number;
}

/** One scripted answer: a reply (tool uses or text), or an HTTP failure. */
export type Step =
  | { readonly toolUses: readonly ScriptedToolUse[]; readonly usage?: Usage }
  | { readonly text: string; readonly usage?: Usage }
  | { readonly status: number; readonly message: string };

type Json = Record<string, unknown>;

/** A running fake API. */
export interface FakeMessagesApi {
  /** For `new Anthropic({ baseURL })`. */
  readonly baseURL: string;
  /** Every request body, in order (answered or not). */
  readonly requests: Json[];
  /** The replies sent (status and body), in order. */
  readonly replies: { readonly status: number; readonly body: Json }[];
  /** Append steps; an exhausted script repeats its last step. */
  push(...steps: Step[]): void;
  close(): Promise<void>;
}

const defaultUsage: Usage = {
  input_tokens: 100,
  output_tokens: 20,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
};

type Block = { readonly type?: string; readonly id?: string; readonly tool_use_id?: string };
type Message = { readonly role?: string; readonly content?: unknown };

function blocks(message: Message | undefined): Block[] {
  return Array.isArray(message?.content) ? (message.content as Block[]) : [];
}

/** What the real API says of a history, or null when it takes it. */
export function historyError(messages: readonly Message[]): string | null {
  const seen = new Set<string>();
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i];
    const uses = blocks(message).filter((block) => block.type === 'tool_use');
    const results = blocks(message).filter((block) => block.type === 'tool_result');
    const before = new Set(
      blocks(messages[i - 1])
        .filter((block) => block.type === 'tool_use')
        .map((block) => block.id),
    );
    for (const result of results) {
      if (message?.role !== 'user' || !before.has(result.tool_use_id)) {
        return `messages.${i}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${result.tool_use_id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
      }
    }
    for (const use of uses) {
      if (use.id === undefined || seen.has(use.id)) return `messages.${i}: \`tool_use\` ids must be unique`;
      seen.add(use.id);
      const answered = blocks(messages[i + 1]).some((b) => b.type === 'tool_result' && b.tool_use_id === use.id);
      if (!answered) {
        return `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${use.id}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
      }
    }
  }
  return null;
}

function readBody(req: IncomingMessage): Promise<Json> {
  return new Promise((resolve, reject) => {
    let data = '';
    req.on('data', (chunk) => {
      data += String(chunk);
    });
    req.on('end', () => {
      try {
        resolve(JSON.parse(data) as Json);
      } catch (error) {
        reject(error);
      }
    });
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: Json): void {
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${status}` });
  res.end(JSON.stringify(body));
}

function sendStream(res: ServerResponse, message: Json): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const write = (type: string, data: Json) => res.write(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
  const usage = message.usage as Usage;
  write('message_start', {
    type: 'message_start',
    message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } },
  });
  (message.content as Json[]).forEach((block, index) => {
    if (block.type === 'text') {
      write('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      write('content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'text_delta', text: block.text },
      });
    } else {
      write('content_block_start', { type: 'content_block_start', index, content_block: { ...block, input: {} } });
      const json = JSON.stringify(block.input);
      write('content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'input_json_delta', partial_json: json.slice(0, 5) },
      });
      write('content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'input_json_delta', partial_json: json.slice(5) },
      });
    }
    write('content_block_stop', { type: 'content_block_stop', index });
  });
  write('message_delta', {
    type: 'message_delta',
    delta: { stop_reason: message.stop_reason, stop_sequence: null },
    usage: { output_tokens: usage.output_tokens },
  });
  write('message_stop', { type: 'message_stop' });
  res.end();
}

/** Start a fake Messages API with a script. */
export async function startFakeMessagesApi(script: readonly Step[] = []): Promise<FakeMessagesApi> {
  const steps: Step[] = [...script];
  const requests: Json[] = [];
  const replies: { status: number; body: Json }[] = [];
  const threads = new Map<string, Message[]>();
  let next = 0;
  let ids = 0;

  const fail = (res: ServerResponse, status: number, type: string, message: string, details?: Json) => {
    const body = { type: 'error', error: { type, message, ...(details === undefined ? {} : { details }) } };
    replies.push({ status, body });
    sendJson(res, status, body);
  };

  const server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      requests.push(body);
      const thread = body.thread as { type?: string; previous_message_id?: string } | undefined;
      let history = body.messages as Message[];
      if (thread?.type === 'continue') {
        const held = threads.get(String(thread.previous_message_id));
        if (held === undefined) {
          fail(res, 404, 'not_found_error', 'thread not found', { error_code: 'thread_not_found' });
          return;
        }
        history = [...held, ...history];
      }
      const invalid = historyError(history);
      if (invalid !== null) {
        fail(res, 400, 'invalid_request_error', invalid);
        return;
      }
      const step = steps[Math.min(next, steps.length - 1)];
      next++;
      if (step === undefined) throw new Error('the fake API has no script');
      if ('status' in step) {
        fail(res, step.status, step.status >= 500 ? 'api_error' : 'invalid_request_error', step.message);
        return;
      }
      const content =
        'toolUses' in step
          ? step.toolUses.map((use) => ({
              type: 'tool_use',
              id: use.id ?? `toolu_${++ids}`,
              name: use.name,
              input: use.input,
            }))
          : [{ type: 'text', text: step.text }];
      const message: Json = {
        id: `msg_${++ids}`,
        type: 'message',
        role: 'assistant',
        model: body.model,
        content,
        stop_reason: 'toolUses' in step ? 'tool_use' : 'end_turn',
        stop_sequence: null,
        usage: step.usage ?? defaultUsage,
      };
      if (thread !== undefined) threads.set(String(message.id), [...history, { role: 'assistant', content }]);
      replies.push({ status: 200, body: message });
      if (body.stream === true) sendStream(res, message);
      else sendJson(res, 200, message);
    })().catch((error: unknown) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'api_error', message: String(error) } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}`,
    requests,
    replies,
    push: (...more) => {
      steps.push(...more);
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error === undefined ? resolve() : reject(error)));
      }),
  };
}
