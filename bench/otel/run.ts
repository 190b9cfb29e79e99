/**
 * What telemetry costs a guarded call: a ledgered read tool on the memory store behind a fuse box,
 * with no telemetry (the baseline), with `hyphae/otel` on the global API and no SDK (no-op), and
 * with the SDK recording every span into an in-memory exporter (one span per call, through the
 * ledger's `onEvent` and `onCallEvent`). With `--before` and `--now`, the same call with telemetry
 * off on the library bundled at the revision before the call hook and as it is now, each copy used
 * only with telemetry off (`node bench/otel/build-before.mjs`), so the cost of the call hook when
 * nobody observes is a ratio of the same run. Rounds alternate the modes so the machine's load
 * drifts over all of them alike; the median round is reported.
 *
 *   node bench/otel/build-before.mjs && node bench/run-bundled.mjs bench/otel/run.ts \
 *     --before .scratch/otel-before/index.bundle.mjs --now .scratch/otel-now/index.bundle.mjs [--calls N] [--rounds N]
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import * as api from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { createFuseBox, createLedger, createMemoryStorage, loopFuse, permissionFuse } from '../../src/index.js';
import { createTelemetry, type Telemetry } from '../../src/otel/index.js';
import { commandLine, type Figure, figure, headerLines, load, writeArea } from '../lib/area-report.js';

const { values } = parseArgs({
  options: {
    calls: { type: 'string', default: '10000' },
    rounds: { type: 'string', default: '9' },
    before: { type: 'string' },
    now: { type: 'string' },
  },
});
const BEFORE = values.before;
const NOW = values.now;
type Library = { createLedger: typeof createLedger; createMemoryStorage: typeof createMemoryStorage };
const library = async (path: string | undefined): Promise<Library | undefined> =>
  path === undefined ? undefined : ((await import(pathToFileURL(resolve(path)).href)) as Library);
const before = await library(BEFORE);
const now = await library(NOW);
const compare = before !== undefined && now !== undefined;
const CALLS = Number(values.calls);
const ROUNDS = Number(values.rounds);

const contextManager = new AsyncLocalStorageContextManager().enable();
api.context.setGlobalContextManager(contextManager);
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

type Mode = 'off' | 'off, copy before the call hook' | 'off, copy of now' | 'no-op' | 'in-memory';

function telemetryOf(mode: Mode): Telemetry | undefined {
  if (mode.startsWith('off')) return undefined;
  if (mode === 'no-op') return createTelemetry({ api });
  return createTelemetry({ tracer: provider.getTracer('bench'), activeSpan: () => api.trace.getActiveSpan() });
}

/** µs per guarded call (fuse check + ledgered call) for one round of `mode`. */
async function round(mode: Mode): Promise<number> {
  const telemetry = telemetryOf(mode);
  const box = createFuseBox({
    permission: permissionFuse({ granted: ['read'], tools: { lookup: ['read'] } }),
    loop: loopFuse({ repeatThreshold: 1_000_000 }),
    ...(telemetry === undefined ? {} : { onEvent: telemetry.onFuseEvent }),
    keepLog: false,
  });
  const lib: Library = (mode === 'off, copy before the call hook'
    ? before
    : mode === 'off, copy of now'
      ? now
      : undefined) ?? {
    createLedger,
    createMemoryStorage,
  };
  const ledger = lib.createLedger({
    storage: lib.createMemoryStorage(),
    agentId: 'bench',
    policyVersion: '1',
    ...(telemetry === undefined ? {} : telemetry.ledgerHooks),
  });
  const lookup = ledger.tool({ name: 'lookup', sideEffectClass: 'read' }, async (args: { id: number }) => args.id);
  const run = box.forRun('run');
  const start = performance.now();
  for (let i = 0; i < CALLS; i++) {
    if (!run.checkToolCall({ id: `c${i}`, name: 'lookup', args: { id: i } }).allowed) throw new Error('refused');
    await lookup({ id: i }, { toolCallId: `c${i}` });
  }
  const us = ((performance.now() - start) * 1000) / CALLS;
  exporter.reset();
  await ledger.close();
  return us;
}

const MODES: readonly Mode[] = [
  'off',
  ...(compare ? (['off, copy before the call hook', 'off, copy of now'] as const) : []),
  'no-op',
  'in-memory',
];
const loadAtStart = load();
const date = new Date();
const samples: Record<Mode, number[]> = {
  off: [],
  'off, copy before the call hook': [],
  'off, copy of now': [],
  'no-op': [],
  'in-memory': [],
};
for (const mode of MODES) await round(mode);
// The order rotates every round, so no mode always follows the one whose garbage it collects.
for (let r = 0; r < ROUNDS; r++) {
  for (let m = 0; m < MODES.length; m++) {
    const mode = MODES[(r + m) % MODES.length] as Mode;
    samples[mode].push(await round(mode));
  }
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const off = median(samples.off);
const figures: Figure[] = MODES.map((mode) =>
  figure(`guarded read call (fuse box + memory ledger), telemetry ${mode}`, 'µs/call', median(samples[mode]), off),
);
const hookRatio = compare
  ? `\nCall hook unobserved: copy of now / copy before = ${(median(samples['off, copy of now']) / median(samples['off, copy before the call hook'])).toFixed(2)}.\n`
  : '';
const rows = MODES.map(
  (mode) => `| ${mode} | ${median(samples[mode]).toFixed(1)} | ${(median(samples[mode]) / off).toFixed(2)} |`,
);
const markdown = `# Telemetry

A guarded call — the fuse box's check, then a ledgered read tool on the memory store — with
\`hyphae/otel\` off (the baseline), on the global API with no SDK installed (no-op), and with the SDK
recording one span per call into an in-memory exporter (the ledger's \`onEvent\` and
\`onCallEvent\`, the fuse box's \`onEvent\`).${compare ? ` The two "copy" rows are the same call with telemetry off on the library bundled on its own before the call hook (\`${BEFORE}\`) and now (\`${NOW}\`), by \`node bench/otel/build-before.mjs\`; each copy runs only with telemetry off, so their ratio is what the hook costs when nobody observes.` : ''} ${CALLS} calls per round, ${ROUNDS} rounds of
each mode in rotating order; the median round.

${headerLines(commandLine(), loadAtStart, date).join('\n')}

| telemetry | µs per call | ratio to off |
| --- | --- | --- |
${rows.join('\n')}
${hookRatio}
Off is the code path of a ledger and a fuse box given no \`onEvent\` or \`onCallEvent\`: nothing of
\`hyphae/otel\` runs, and the ledger builds no call event.
`;
await writeArea('otel', figures, markdown);
process.stdout.write(markdown);
await provider.shutdown();
