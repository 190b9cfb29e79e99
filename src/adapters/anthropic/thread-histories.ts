/**
 * The history behind each request of a guarded client. A message thread's `continue` sends only the
 * new messages; the server holds the rest. The guards need the whole history to repair it and to
 * estimate the request, so the history each threaded reply ends is kept, by the reply's id.
 */

/** The fields of a Messages request body the guards read or rewrite. */
export interface ThreadBody {
  readonly model?: unknown;
  readonly messages: readonly unknown[];
  readonly system?: unknown;
  readonly tools?: unknown;
  readonly max_tokens?: unknown;
  readonly stream?: unknown;
  readonly thread?: { readonly type?: unknown; readonly previous_message_id?: unknown } | undefined;
  readonly [key: string]: unknown;
}

/** What one request is: the body to send and the whole history it stands for (repaired). */
export interface RequestPlan {
  readonly body: ThreadBody;
  readonly history: readonly unknown[];
  readonly system: unknown;
  readonly tools: unknown;
}

interface Entry {
  readonly history: readonly unknown[];
  readonly system: unknown;
  readonly tools: unknown;
}

/** Replies whose history is kept: a thread goes on from its latest reply, a retry from one before. */
const KEPT = 8;

type Repair = (messages: readonly unknown[]) => unknown[];

function sameList(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((item, i) => item === b[i]);
}

/** The histories of a guarded client's threaded replies. */
export class ThreadHistories {
  readonly #entries = new Map<string, Entry>();
  readonly #pending = new Set<Promise<void>>();

  /**
   * The request to send for `body`. A `continue` whose thread history is known is repaired as a
   * whole: a repair within the new messages is sent as they are; one that changes what the server
   * already holds starts a new thread with the whole repaired history (and the thread's `system`
   * and `tools`). A `continue` whose history is not known here is sent as it is.
   */
  async plan(body: ThreadBody, repair: Repair | null): Promise<RequestPlan> {
    const previous = body.thread?.type === 'continue' ? body.thread.previous_message_id : undefined;
    const prior = typeof previous === 'string' ? await this.#entry(previous) : undefined;
    const system = body.system ?? prior?.system;
    const tools = body.tools ?? prior?.tools;
    if (previous !== undefined && prior === undefined) return { body, history: body.messages, system, tools };
    const known = prior?.history ?? [];
    const full = [...known, ...body.messages];
    const repaired = repair === null ? full : repair(full);
    if (sameList(full, repaired)) return { body, history: full, system, tools };
    if (prior === undefined) return { body: { ...body, messages: repaired }, history: repaired, system, tools };
    if (sameList(known, repaired.slice(0, known.length))) {
      return { body: { ...body, messages: repaired.slice(known.length) }, history: repaired, system, tools };
    }
    const created: ThreadBody = {
      ...body,
      thread: { type: 'create' },
      messages: repaired,
      ...(system === undefined ? {} : { system }),
      ...(tools === undefined ? {} : { tools }),
    };
    return { body: created, history: repaired, system, tools };
  }

  /** Keep the history a threaded request's reply ends, once the reply is read. */
  track(
    reply: Promise<{ readonly id: string | undefined; readonly content: unknown[]; readonly complete: boolean }>,
    plan: RequestPlan,
  ): void {
    const pending: Promise<void> = reply
      .then((read) => {
        if (plan.body.thread === undefined || read.id === undefined || !read.complete) return;
        this.#entries.set(read.id, {
          history: [...plan.history, { role: 'assistant', content: read.content }],
          system: plan.system,
          tools: plan.tools,
        });
        for (const id of this.#entries.keys()) {
          if (this.#entries.size <= KEPT) break;
          this.#entries.delete(id);
        }
      })
      .catch(() => {
        // Nothing is kept of a reply that could not be read: its `continue` is sent as it is.
      })
      .finally(() => this.#pending.delete(pending));
    this.#pending.add(pending);
  }

  /** Once every reply still being read is: its usage booked, its history kept. */
  async settled(): Promise<void> {
    if (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
  }

  /** The entry of reply `id`, once the replies still being read are. */
  async #entry(id: string): Promise<Entry | undefined> {
    const entry = this.#entries.get(id);
    if (entry !== undefined || this.#pending.size === 0) return entry;
    await Promise.allSettled([...this.#pending]);
    return this.#entries.get(id);
  }
}
