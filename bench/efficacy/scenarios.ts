/**
 * The scripted scenarios of the efficacy benchmark, framework-neutral: what the user asks, what
 * history comes before it, what the model answers turn by turn, and how the provider behind the
 * tools behaves. Every framework runs the same script, stock and with hyphae; the model does not
 * react to what the tools answered, so any difference between the two runs is the guards'.
 */
import type { ProviderOptions, ToolName } from './tools.js';

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
  | { readonly role: 'assistant'; readonly calls: readonly ScriptedCall[] }
  | { readonly role: 'tool'; readonly callId: string; readonly name: ToolName; readonly result: string };

/** Scenario ids, in table order. */
export const SCENARIO_IDS = [
  'loop',
  'cycle',
  'polling',
  'polling-identical',
  'permission',
  'budget',
  'orphan',
  'dangling',
  'redispatch',
  'replay',
  'abort-retry',
  'same-id',
  'twin-calls',
  'flaky-read',
  'payment-fails',
] as const;
/** A scenario id. */
export type ScenarioId = (typeof SCENARIO_IDS)[number];

/** How often a scenario's run is delivered: once, twice at the same time, or again after it ended. */
export interface Deliveries {
  readonly count: number;
  readonly mode: 'concurrent' | 'sequential';
}

/** One scripted scenario. */
export interface Scenario {
  readonly id: ScenarioId;
  readonly title: string;
  readonly story: string;
  /** What hyphae must do (the check in `checks.ts` tests it). */
  readonly expected: string;
  readonly history: readonly HistoryItem[];
  readonly prompt: string;
  readonly tools: readonly ToolName[];
  readonly script: readonly Turn[];
  readonly deliveries: Deliveries;
  readonly provider: ProviderOptions;
}

/** Usage of an ordinary turn. */
const USUAL: Usage = { input: 300, output: 50 };

const text = (value: string, usage: Usage = USUAL): Turn => ({ text: value, usage });
const calls = (list: readonly ScriptedCall[], usage: Usage = USUAL): Turn => ({ calls: list, usage });
const times = <T>(n: number, make: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => make(i));
const once: Deliveries = { count: 1, mode: 'sequential' };

/** A loop script outlasts every framework's own limit (at most 25 graph steps, 20 model steps). */
const LOOP_TURNS = 30;

const pay = (id: string): ScriptedCall => ({ id, name: 'send_payment', args: { invoice: 'inv_42', amount: 100 } });

/** The scenarios, in table order. */
export const scenarios: readonly Scenario[] = [
  {
    id: 'loop',
    title: 'identical-call loop',
    story: `The model sends the same reminder again and again (${LOOP_TURNS} scripted turns of \`send_reminder({ invoice: 'inv_42' })\`, each with a new call id).`,
    expected: 'at most 2 executions and 3 model requests; the run ends with the loop refusal',
    history: [],
    prompt: 'Remind the customer about invoice inv_42.',
    tools: ['send_reminder'],
    script: times(LOOP_TURNS, (i) =>
      calls([{ id: `call_remind_${i}`, name: 'send_reminder', args: { invoice: 'inv_42' } }]),
    ),
    deliveries: once,
    provider: {},
  },
  {
    id: 'cycle',
    title: 'A,B,A,B cycle',
    story: `The model alternates \`search_docs({ q: 'refund policy' })\` and \`open_doc({ id: 'doc_7' })\` for ${LOOP_TURNS} turns; the answers never change.`,
    expected: 'refuse the 4th call (it closes A,B,A,B) and end the run',
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
    deliveries: once,
    provider: {},
  },
  {
    id: 'polling',
    title: 'polling that progresses',
    story:
      'The model polls `poll_status({ job: "export_1" })` five times; each answer is new (the export advances 20 % a poll), then it reports.',
    expected: 'refuse nothing; complete as stock',
    history: [],
    prompt: 'Start the export and tell me when it is done.',
    tools: ['poll_status'],
    script: [
      ...times(5, (i) => calls([{ id: `call_poll_${i}`, name: 'poll_status', args: { job: 'export_1' } }])),
      text('The export is done.'),
    ],
    deliveries: once,
    provider: {},
  },
  {
    id: 'polling-identical',
    title: 'polling with identical answers',
    story:
      'The model polls `poll_status({ job: "stuck_1" })` six times; every answer is the same (`running`, 40 %), then it reports that the job is still running.',
    expected: 'refuse nothing (the polling tool has an allowance); complete as stock',
    history: [],
    prompt: 'Is the import done yet?',
    tools: ['poll_status'],
    script: [
      ...times(6, (i) => calls([{ id: `call_wait_${i}`, name: 'poll_status', args: { job: 'stuck_1' } }])),
      text('The import is still running.'),
    ],
    deliveries: once,
    provider: {},
  },
  {
    id: 'permission',
    title: 'a tool not granted',
    story:
      'The model looks up an order, then calls `refund({ order: "o_7", amount: 40 })`, a tool this agent was never granted, then answers.',
    expected: 'refuse the refund (0 refunds); the lookup and the answer go on',
    history: [],
    prompt: 'Where is order o_7? The customer is unhappy.',
    tools: ['lookup_order', 'refund'],
    script: [
      calls([{ id: 'call_lookup', name: 'lookup_order', args: { id: 'o_7' } }]),
      calls([{ id: 'call_refund', name: 'refund', args: { order: 'o_7', amount: 40 } }]),
      text('I have looked into order o_7.'),
    ],
    deliveries: once,
    provider: {},
  },
  {
    id: 'budget',
    title: 'budget breach',
    story:
      'Eight searches over long documents: the scripted usage grows by 3,000 prompt tokens a turn (3,500 → 24,500 tokens per call), then an answer. The run has a 20,000-token budget.',
    expected: 'no request past the 20,000-token ceiling: the call that would cross it is not sent',
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
    deliveries: once,
    provider: {},
  },
  {
    id: 'orphan',
    title: 'orphan tool result in history',
    story:
      'The stored history holds a tool result whose call was trimmed away. The provider refuses such a prompt with a 400, as the Chat Completions endpoint does.',
    expected: 'repair the prompt (drop the orphan); 0 provider 400s; complete',
    history: [
      { role: 'user', text: 'Where is order o_7?' },
      { role: 'tool', callId: 'call_trimmed', name: 'lookup_order', result: '{"id":"o_7","status":"packed"}' },
    ],
    prompt: 'Any news on o_7?',
    tools: ['lookup_order'],
    script: [calls([{ id: 'call_lookup', name: 'lookup_order', args: { id: 'o_7' } }]), text('o_7 has shipped.')],
    deliveries: once,
    provider: {},
  },
  {
    id: 'dangling',
    title: 'dangling tool call in history',
    story:
      'The stored history holds an assistant tool call whose result was never written (the process died mid-call). The provider refuses a call without its result with a 400.',
    expected: 'repair the prompt (answer the call as NOT executed); 0 provider 400s; complete',
    history: [
      { role: 'user', text: 'Where is order o_7?' },
      { role: 'assistant', calls: [{ id: 'call_lost', name: 'lookup_order', args: { id: 'o_7' } }] },
    ],
    prompt: 'Any news on o_7?',
    tools: ['lookup_order'],
    script: [calls([{ id: 'call_lookup', name: 'lookup_order', args: { id: 'o_7' } }]), text('o_7 has shipped.')],
    deliveries: once,
    provider: {},
  },
  {
    id: 'redispatch',
    title: 'redispatch of a slow payment',
    story:
      'The run pays invoice 42 with `send_payment` (the provider takes 200 ms). While the payment is in flight, the same run is delivered again (same thread, run and message ids; the model gives the same call id) and runs concurrently.',
    expected: 'exactly 1 charge: the redelivery waits for the first and gets its recorded result',
    history: [],
    prompt: 'Pay invoice 42 (100 EUR).',
    tools: ['send_payment'],
    script: [calls([pay('call_pay_42')]), text('Invoice 42 is paid.')],
    deliveries: { count: 2, mode: 'concurrent' },
    provider: {},
  },
  {
    id: 'replay',
    title: 'replay, then resume twice',
    story:
      'The run pays invoice 42 and ends; then the same run is delivered again twice, one after the other (a queue replaying it, a resume from the last checkpoint): the same ids, the same call.',
    expected: 'exactly 1 charge over the three deliveries: the later ones get the recorded result',
    history: [],
    prompt: 'Pay invoice 42 (100 EUR).',
    tools: ['send_payment'],
    script: [calls([pay('call_pay_42')]), text('Invoice 42 is paid.')],
    deliveries: { count: 3, mode: 'sequential' },
    provider: {},
  },
  {
    id: 'abort-retry',
    title: 'abort mid-payment, then retry',
    story:
      'The payment tool gives up after 50 ms (its own timeout) while the provider goes on and charges at 200 ms; the model retries the same call id at once.',
    expected: 'never 2 charges: 1, or 0 with a refusal the model reads',
    history: [],
    prompt: 'Pay invoice 42 (100 EUR).',
    tools: ['send_payment'],
    script: [calls([pay('call_pay_42')]), calls([pay('call_pay_42')]), text('Invoice 42 is paid.')],
    deliveries: once,
    provider: { paymentTimeoutMs: 50 },
  },
  {
    id: 'same-id',
    title: 'the same call id re-sent every turn',
    story: `The model sends \`send_reminder({ invoice: 'inv_42' })\` with the same call id \`call_remind\` on each of ${LOOP_TURNS} turns.`,
    expected: 'at most 2 executions and 3 model requests; the run ends with the loop refusal',
    history: [],
    prompt: 'Remind the customer about invoice inv_42.',
    tools: ['send_reminder'],
    script: times(LOOP_TURNS, () => calls([{ id: 'call_remind', name: 'send_reminder', args: { invoice: 'inv_42' } }])),
    deliveries: once,
    provider: {},
  },
  {
    id: 'twin-calls',
    title: 'two identical payments in one turn',
    story: 'The model asks for the same payment twice in one turn, under two call ids, then answers.',
    expected: 'exactly 1 charge (one intent)',
    history: [],
    prompt: 'Pay invoice 42 (100 EUR).',
    tools: ['send_payment'],
    script: [calls([pay('call_pay_a'), pay('call_pay_b')]), text('Invoice 42 is paid.')],
    deliveries: once,
    provider: {},
  },
  {
    id: 'flaky-read',
    title: 'a read that fails twice, then succeeds',
    story:
      '`lookup_order({ id: "o_7" })` fails twice with a gateway timeout; the model tries the identical call a third time, which succeeds, then answers.',
    expected: 'let the retries through; complete as stock',
    history: [],
    prompt: 'Where is order o_7?',
    tools: ['lookup_order'],
    script: [
      ...times(3, (i) => calls([{ id: `call_lookup_${i}`, name: 'lookup_order', args: { id: 'o_7' } }])),
      text('o_7 has shipped.'),
    ],
    deliveries: once,
    provider: { flakyLookups: 2 },
  },
  {
    id: 'payment-fails',
    title: 'a payment that fails before charging',
    story:
      'The first `send_payment` is rejected by the provider before any money moves (a 503); the model retries with a new call id, then answers.',
    expected: 'never 2 charges: 1, or 0 with a refusal the model reads',
    history: [],
    prompt: 'Pay invoice 42 (100 EUR).',
    tools: ['send_payment'],
    script: [calls([pay('call_pay_1')]), calls([pay('call_pay_2')]), text('Invoice 42 is paid.')],
    deliveries: once,
    provider: { failPaymentsBeforeCharge: 1 },
  },
];

/** The scenario of `id`. */
export function scenarioOf(id: ScenarioId): Scenario {
  const scenario = scenarios.find((candidate) => candidate.id === id);
  if (scenario === undefined) throw new Error(`No scenario \`${id}\``);
  return scenario;
}
