/**
 * A scripted `Model` for `@openai/agents`: each request is answered by the next scripted turn
 * (function calls or text), and every request is recorded. No network.
 */
import { type Model, type ModelRequest, type ModelResponse, setTracingDisabled, Usage } from '@openai/agents';

// Traces would go to OpenAI's exporter (which has no key here and says so).
setTracingDisabled(true);

/** One scripted answer; `fail` makes the request throw (a provider outage). */
export type AgentTurn =
  | {
      readonly calls: readonly {
        readonly id: string;
        readonly name: string;
        readonly args?: unknown;
        readonly raw?: string;
      }[];
    }
  | { readonly text: string }
  | { readonly fail: string };

type Output = ModelResponse['output'];

function outputOf(turn: AgentTurn): Output {
  if ('text' in turn) {
    return [
      { type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: turn.text }] },
    ];
  }
  if ('fail' in turn) return [];
  return turn.calls.map((call) => ({
    type: 'function_call' as const,
    callId: call.id,
    name: call.name,
    arguments: call.raw ?? JSON.stringify(call.args ?? {}),
    status: 'completed' as const,
  }));
}

export class ScriptedAgentModel implements Model {
  readonly requests: ModelRequest[] = [];
  readonly #turns: AgentTurn[];

  constructor(turns: readonly AgentTurn[]) {
    this.#turns = [...turns];
  }

  get remaining(): number {
    return this.#turns.length;
  }

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const turn = this.#turns.shift() ?? { text: 'script exhausted' };
    if ('fail' in turn) throw new Error(turn.fail);
    return {
      usage: new Usage({ requests: 1, inputTokens: 10, outputTokens: 5, totalTokens: 15 }),
      output: outputOf(turn),
    };
  }

  // biome-ignore lint/correctness/useYield: the tests never stream
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('ScriptedAgentModel does not stream');
  }
}

/** The `function_call_result` items of a request's input, as `[callId, output text]`. */
export function resultsIn(request: ModelRequest | undefined): [string, string][] {
  const input = Array.isArray(request?.input) ? request.input : [];
  return input.flatMap((item) => {
    if (item.type !== 'function_call_result') return [];
    const output = item.output;
    const text = typeof output === 'string' ? output : 'text' in output ? String(output.text) : JSON.stringify(output);
    return [[item.callId, text] as [string, string]];
  });
}
