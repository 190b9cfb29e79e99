/**
 * Guard-efficacy benchmark: each scripted scenario with each framework loop (the openai SDK's
 * tool runner, the AI SDK's ToolLoopAgent and streamText, LangChain's createAgent, a LangGraph
 * StateGraph, OpenAI Agents run() and streamed, the Anthropic SDK's tool runner, the Claude Agent
 * SDK's query() and a Mastra Agent), stock and with hyphae, at each framework's own default limits.
 *
 *   node --import tsx bench/efficacy/run.ts      # a few minutes: each query() starts Claude Code
 *
 * Writes bench/results/efficacy.json and bench/results/efficacy.md. A scenario whose expectation
 * hyphae missed with a framework is printed and reported as MISSED; it does not fail the run.
 */
import { commandLine } from '../lib/area-report.js';
import { runEfficacy } from './efficacy.js';
import { writeReport } from './report.js';

const started = performance.now();
const rows = await runEfficacy();
for (const row of rows) {
  const pair = (read: (run: typeof row.stock) => number) => `${read(row.stock)} → ${read(row.hyphae)}`;
  console.log(
    [
      row.framework.id.padEnd(14),
      row.scenario.id.padEnd(11),
      `executions ${pair((run) => run.toolExecutions)}`.padEnd(20),
      `model calls ${pair((run) => run.modelCalls)}`.padEnd(21),
      `effects ${pair((run) => run.effects)}`.padEnd(16),
      row.missed === null ? 'met' : `MISSED: ${row.missed}`,
    ].join(' '),
  );
}
await writeReport(rows, commandLine());
console.log(
  `wrote bench/results/efficacy.json and bench/results/efficacy.md in ${Math.round(performance.now() - started)} ms`,
);
