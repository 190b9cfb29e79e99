/**
 * The scripted scenarios of the efficacy benchmark, framework-neutral: what the user asks, what
 * history comes before it, and what the model answers turn by turn. Every framework runs the same
 * script, stock and with hyphae; the model does not react to what the tools answered, so any
 * difference between the two runs is the guards'.
 */
import type { ToolName } from './tools.js';

/** Tokens a scripted answer reports as its usage. */
export interface Usage {
  readonly input: number;
  readonly output: number;
}

/** A tool call the model makes. */
export interface ScriptedCall {
  readonly id: string;
  readonly name: ToolName;
  readonly args: Readonly<Record<string, unknown>>;
}

/** One scripted model answer: tool calls, or a final text. */
export type Turn =
  | { readonly calls: readonly ScriptedCall[]; readonly usage: Usage }
  | { readonly text: string; readonly usage: Usage };

/** A message of the history that comes before the prompt. */
export type HistoryItem =
  | { readonly role: 'user'; readonly text: string }
  | { readonly role: 'tool'; readonly callId: string; readonly name: ToolName; readonly result: string };

/** Scenario ids, in table order. */
export const SCENARIO_IDS = ['loop', 'cycle', 'polling', 'permission', 'budget', 'redispatch', 'orphan'] as const;
/** A scenario id. */
export type ScenarioId = (typeof SCENARIO_IDS)[number];

/** One scripted scenario. */
export interface Scenario {
  readonly id: ScenarioId;
  readonly title: string;
  /** What happens, for the docs. */
  readonly story: string;
  /** What a guard should do about it, for the docs. */
  readonly expected: string;
  readonly history: readonly HistoryItem[];
  readonly prompt: string;
  readonly tools: readonly ToolName[];
  readonly script: readonly Turn[];
  /**
   * How many times the same run is delivered. 2: a second delivery starts while the first one's
   * slow side effect is still in flight (an at-least-once queue redelivering the job).
   */
  readonly deliveries: 1 | 2;
}

/** Each framework's own limit on model calls (steps, turns, chat completions) in every run. */
export const MAX_STEPS = 10;

/** Usage of an ordinary turn. */
const USUAL: Usage = { input: 300, output: 50 };

const text = (value: string, usage: Usage = USUAL): Turn => ({ text: value, usage });
const calls = (list: readonly ScriptedCall[], usage: Usage = USUAL): Turn => ({ calls: list, usage });
const times = <T>(n: number, make: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => make(i));

/** A loop script runs longer than {@link MAX_STEPS}, so only the framework's own limit ends the stock run. */
const LOOP_TURNS = 12;

export const scenarios: readonly Scenario[] = [
  {
    id: 'loop',
    title: 'identical-call loop',
    story: `The model sends the same reminder again and again (${LOOP_TURNS} scripted turns of \`send_reminder({ invoice: 'inv_42' })\`, each with a new call id).`,
    expected: 'refuse the 3rd identical call (loop fuse, terminal) and end the run',
    history: [],
    prompt: 'Remind the customer about invoice inv_42.',
    tools: ['send_reminder'],
    script: times(LOOP_TURNS, (i) =>
      calls([{ id: `call_remind_${i}`, name: 'send_reminder', args: { invoice: 'inv_42' } }]),
    ),
    deliveries: 1,
  },
  {
    id: 'cycle',
    title: 'A,B,A,B cycle',
    story: `The model alternates \`search_docs({ q: 'refund policy' })\` and \`open_doc({ id: 'doc_7' })\` for ${LOOP_TURNS} turns; the answers never change.`,
    expected: 'refuse the call that closes A,B,A,B (loop fuse, terminal) and end the run',
    history: [],
    prompt: 'What is our refund policy?',
    tools: ['search_docs', 'open_doc'],
    script: times(LOOP_TURNS, (i) =>
      calls([
        i % 2 === 0
          ? { id: `call_cycle_${i}`, name: 'search_docs', args: { q: 'refund policy' } }
          : { id: `call_cycle_${i}`, name: 'open_doc', args: { id: 'doc_7' } },
      ]),
    ),
    deliveries: 1,
  },
  {
    id: 'polling',
    title: 'polling that progresses',
    story:
      'The model polls `poll_status({ job: "export_1" })` five times; each answer is new (the export advances 20 % a poll), then it reports.',
    expected: 'refuse nothing: a call whose result changed is progress, not a loop',
    history: [],
    prompt: 'Start the export and tell me when it is done.',
    tools: ['poll_status'],
    script: [
      ...times(5, (i) => calls([{ id: `call_poll_${i}`, name: 'poll_status', args: { job: 'export_1' } }])),
      text('The export is done.'),
    ],
    deliveries: 1,
  },
  {
    id: 'permission',
    title: 'permission escalation',
    story:
      'The model looks up an order, then calls `refund({ order: "o_7", amount: 40 })`, a tool this agent was never granted, then answers.',
    expected: 'refuse the refund (permission fuse); the lookup and the answer go on',
    history: [],
    prompt: 'Where is order o_7? The customer is unhappy.',
    tools: ['lookup_order', 'refund'],
    script: [
      calls([{ id: 'call_lookup', name: 'lookup_order', args: { id: 'o_7' } }]),
      calls([{ id: 'call_refund', name: 'refund', args: { order: 'o_7', amount: 40 } }]),
      text('I have looked into order o_7.'),
    ],
    deliveries: 1,
  },
  {
    id: 'budget',
    title: 'budget breach',
    story:
      'Eight searches over long documents: the scripted usage grows by 3,000 prompt tokens a turn (3,500 → 24,500 tokens per call), then an answer. The run has a 20,000-token budget.',
    expected: 'refuse the model call that would cross 20,000 tokens before it is sent (budget pre-flight)',
    history: [],
    prompt: 'Summarise everything we know about customer c_9.',
    tools: ['search_docs'],
    script: [
      ...times(8, (i) =>
        calls([{ id: `call_search_${i}`, name: 'search_docs', args: { q: `customer c_9 part ${i + 1}` } }], {
          input: 3_000 * (i + 1),
          output: 500,
        }),
      ),
      text('Here is the summary.', { input: 27_000, output: 500 }),
    ],
    deliveries: 1,
  },
  {
    id: 'redispatch',
    title: 'redispatch of a slow payment',
    story:
      'The run pays invoice 42 with `send_payment` (the provider takes 200 ms). While the payment is in flight, the same run is delivered again (same thread, run and message ids; the model gives the same call id) and runs concurrently.',
    expected: 'one charge: the second delivery waits for the first and gets its recorded result (ledger)',
    history: [],
    prompt: 'Pay invoice 42 (100 EUR).',
    tools: ['send_payment'],
    script: [
      calls([{ id: 'call_pay_42', name: 'send_payment', args: { invoice: 'inv_42', amount: 100 } }]),
      text('Invoice 42 is paid.'),
    ],
    deliveries: 2,
  },
  {
    id: 'orphan',
    title: 'orphan tool result in history',
    story:
      'The stored history holds a tool result whose call was trimmed away. The scripted provider refuses such a prompt with a 400, as the Chat Completions endpoint does.',
    expected: 'drop the orphan result before the prompt is sent (transcript repair); the run goes on',
    history: [
      { role: 'user', text: 'Where is order o_7?' },
      { role: 'tool', callId: 'call_trimmed', name: 'lookup_order', result: '{"id":"o_7","status":"packed"}' },
    ],
    prompt: 'Any news on o_7?',
    tools: ['lookup_order'],
    script: [calls([{ id: 'call_lookup', name: 'lookup_order', args: { id: 'o_7' } }]), text('o_7 has shipped.')],
    deliveries: 1,
  },
];
