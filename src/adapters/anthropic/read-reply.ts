/**
 * The reply of a Messages request, read from a copy of the response (the client reads its own):
 * its id, content and usage, from a JSON body or from the SSE events of a stream.
 */

/** What the guards need of a reply: its id (a thread continues from it), content and usage. */
export interface ReadReply {
  readonly id: string | undefined;
  readonly content: unknown[];
  readonly usage: unknown;
  /** False when a stream ended before `message_stop`. */
  readonly complete: boolean;
}

type Bag = Record<string, unknown>;

const isBag = (value: unknown): value is Bag => typeof value === 'object' && value !== null && !Array.isArray(value);

function fromMessage(message: unknown): ReadReply {
  const bag = isBag(message) ? message : {};
  return {
    id: typeof bag.id === 'string' ? bag.id : undefined,
    content: Array.isArray(bag.content) ? bag.content : [],
    usage: bag.usage,
    complete: true,
  };
}

/** A stream's events folded into the message they make (text and tool input deltas included). */
class StreamFold {
  id: string | undefined;
  usage: Bag = {};
  readonly blocks: Bag[] = [];
  readonly inputs: string[] = [];
  complete = false;

  add(event: Bag): void {
    switch (event.type) {
      case 'message_start': {
        const message = isBag(event.message) ? event.message : {};
        this.id = typeof message.id === 'string' ? message.id : undefined;
        if (isBag(message.usage)) this.usage = { ...message.usage };
        break;
      }
      case 'content_block_start':
        if (typeof event.index === 'number' && isBag(event.content_block)) {
          this.blocks[event.index] = { ...event.content_block };
          this.inputs[event.index] = '';
        }
        break;
      case 'content_block_delta':
        this.delta(event);
        break;
      case 'content_block_stop':
        this.finishBlock(event.index);
        break;
      case 'message_delta':
        // The delta's counts are cumulative: each one stands for the total so far.
        if (isBag(event.usage)) {
          for (const [key, value] of Object.entries(event.usage))
            if (value !== null && value !== undefined) this.usage[key] = value;
        }
        break;
      case 'message_stop':
        this.complete = true;
        break;
    }
  }

  private delta(event: Bag): void {
    const index = event.index;
    const delta = event.delta;
    if (typeof index !== 'number' || !isBag(delta)) return;
    const block = this.blocks[index];
    if (block === undefined) return;
    if (delta.type === 'text_delta' && typeof delta.text === 'string') {
      block.text = `${typeof block.text === 'string' ? block.text : ''}${delta.text}`;
    } else if (delta.type === 'input_json_delta' && typeof delta.partial_json === 'string') {
      this.inputs[index] = `${this.inputs[index] ?? ''}${delta.partial_json}`;
    }
  }

  private finishBlock(index: unknown): void {
    if (typeof index !== 'number') return;
    const block = this.blocks[index];
    const input = this.inputs[index];
    if (block === undefined || input === undefined || input === '') return;
    try {
      block.input = JSON.parse(input);
    } catch {
      // Left as the start event gave it: only the size of the history is read from it.
    }
  }

  reply(): ReadReply {
    return { id: this.id, content: this.blocks.filter(isBag), usage: this.usage, complete: this.complete };
  }
}

function foldLine(fold: StreamFold, data: string): void {
  if (data === '') return;
  try {
    const event: unknown = JSON.parse(data);
    if (isBag(event)) fold.add(event);
  } catch {
    // Not an event the fold reads (a keep-alive, a comment).
  }
}

async function readStream(body: ReadableStream<Uint8Array>): Promise<ReadReply> {
  const fold = new StreamFold();
  const decoder = new TextDecoder();
  let buffered = '';
  let data: string[] = [];
  const flushLine = (line: string): void => {
    if (line === '') {
      foldLine(fold, data.join('\n'));
      data = [];
    } else if (line.startsWith('data:')) {
      data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
    }
  };
  try {
    for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
      buffered += decoder.decode(chunk, { stream: true });
      let end = buffered.indexOf('\n');
      while (end !== -1) {
        flushLine(buffered.slice(0, end).replace(/\r$/u, ''));
        buffered = buffered.slice(end + 1);
        end = buffered.indexOf('\n');
      }
    }
  } catch {
    // The stream broke off (an abort, a lost connection): what arrived is the reply's part.
  }
  flushLine(buffered);
  flushLine('');
  return fold.reply();
}

/** Read the reply of `response` from a copy of it; the client reads the original. */
export async function readReply(response: Response): Promise<ReadReply> {
  const copy = response.clone();
  const type = copy.headers.get('content-type') ?? '';
  if (type.includes('text/event-stream')) {
    return copy.body === null ? fromMessage(null) : readStream(copy.body);
  }
  try {
    return fromMessage(await copy.json());
  } catch {
    return { ...fromMessage(null), complete: false };
  }
}
