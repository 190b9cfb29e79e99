/**
 * A local stand-in for the Chat Completions endpoint: `POST /v1/chat/completions` on 127.0.0.1
 * (ephemeral port) answers from a script, and every request body is recorded.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A scripted tool call. */
export interface ScriptedCall {
  readonly id: string;
  readonly name: string;
  /** An object (sent as JSON) or raw argument text. */
  readonly args: unknown;
}

/** One scripted answer: a completion body, or an HTTP failure. */
export type ScriptStep =
  | { readonly completion: Record<string, unknown> }
  | { readonly status: number; readonly message: string; readonly retry?: boolean };

/** The request bodies the server received. */
export interface RecordedRequest {
  readonly model: string;
  readonly messages: readonly Record<string, unknown>[];
  readonly tools?: readonly unknown[];
  readonly max_completion_tokens?: number;
  readonly parallel_tool_calls?: boolean;
  readonly [key: string]: unknown;
}

/** A running scripted server. */
export interface OpenAiTestServer {
  /** For `new OpenAI({ baseURL })`. */
  readonly baseURL: string;
  readonly requests: RecordedRequest[];
  /** Append steps to the script. */
  push(...steps: ScriptStep[]): void;
  close(): Promise<void>;
}

const usage = (prompt: number, completion: number) => ({
  prompt_tokens: prompt,
  completion_tokens: completion,
  total_tokens: prompt + completion,
});

/** A completion whose message makes these tool calls. */
export function toolCallsStep(calls: readonly ScriptedCall[], tokens = { prompt: 20, completion: 10 }): ScriptStep {
  return {
    completion: {
      id: 'chatcmpl-test',
      object: 'chat.completion',
      created: 0,
      model: 'gpt-4o-mini',
      choices: [
        {
          index: 0,
          finish_reason: 'tool_calls',
          logprobs: null,
          message: {
            role: 'assistant',
            content: null,
            refusal: null,
            tool_calls: calls.map((call) => ({
              id: call.id,
              type: 'function',
              function: {
                name: call.name,
                arguments: typeof call.args === 'string' ? call.args : JSON.stringify(call.args),
              },
            })),
          },
        },
      ],
      usage: usage(tokens.prompt, tokens.completion),
    },
  };
}

/** A completion that answers with text. */
export function textStep(text: string, tokens = { prompt: 20, completion: 10 }): ScriptStep {
  return {
    completion: {
      id: 'chatcmpl-test',
      object: 'chat.completion',
      created: 0,
      model: 'gpt-4o-mini',
      choices: [
        {
          index: 0,
          finish_reason: 'stop',
          logprobs: null,
          message: { role: 'assistant', content: text, refusal: null },
        },
      ],
      usage: usage(tokens.prompt, tokens.completion),
    },
  };
}

function send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

/** A completion as the chunks of a stream (`stream: true`): text, then each call, then usage. */
function chunksOf(completion: Record<string, unknown>): unknown[] {
  const choice = (completion.choices as { message: Record<string, unknown>; finish_reason: string }[])[0];
  const message = choice?.message ?? {};
  const base = { id: completion.id, object: 'chat.completion.chunk', created: 0, model: completion.model };
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
    ...base,
    choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
  });
  const chunks: unknown[] = [chunk({ role: 'assistant', content: '' })];
  if (typeof message.content === 'string' && message.content !== '') {
    // Two halves, so the client has to join deltas.
    const half = Math.ceil(message.content.length / 2);
    chunks.push(chunk({ content: message.content.slice(0, half) }), chunk({ content: message.content.slice(half) }));
  }
  const calls = (message.tool_calls ?? []) as { id: string; function: { name: string; arguments: string } }[];
  calls.forEach((call, index) => {
    const args = call.function.arguments;
    chunks.push(
      chunk({
        tool_calls: [
          { index, id: call.id, type: 'function', function: { name: call.function.name, arguments: args.slice(0, 3) } },
        ],
      }),
      chunk({ tool_calls: [{ index, function: { arguments: args.slice(3) } }] }),
    );
  });
  chunks.push(chunk({}, choice?.finish_reason ?? 'stop'), { ...base, choices: [], usage: completion.usage });
  return chunks;
}

function sendStream(response: ServerResponse, completion: Record<string, unknown>): void {
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const chunk of chunksOf(completion)) response.write(`data: ${JSON.stringify(chunk)}\n\n`);
  response.end('data: [DONE]\n\n');
}

async function readBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

/** Start a scripted server; each request takes the next step, and an exhausted script answers 500. */
export async function startOpenAiServer(script: ScriptStep[] = []): Promise<OpenAiTestServer> {
  const steps = [...script];
  const requests: RecordedRequest[] = [];
  const server = createServer((request, response) => {
    if (request.method !== 'POST' || request.url !== '/v1/chat/completions') {
      send(response, 404, { error: { message: `No route ${request.method} ${request.url}` } });
      return;
    }
    readBody(request).then(
      (body) => {
        requests.push(body as RecordedRequest);
        const step = steps.shift();
        if (step === undefined) {
          send(response, 500, { error: { message: 'script exhausted' } }, { 'x-should-retry': 'false' });
        } else if ('completion' in step) {
          if ((body as { stream?: unknown }).stream === true) sendStream(response, step.completion);
          else send(response, 200, step.completion);
        } else {
          const retry = step.retry === false ? 'false' : 'true';
          send(
            response,
            step.status,
            { error: { message: step.message } },
            {
              'x-should-retry': retry,
              'retry-after-ms': '1',
            },
          );
        }
      },
      () => send(response, 400, { error: { message: 'bad json' } }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    push: (...more) => steps.push(...more),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error === undefined ? resolve() : reject(error)));
      }),
  };
}
