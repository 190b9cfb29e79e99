/**
 * The small-claim prototype (`small-claim-store.ts`) through the whole ledger, beside the Redis
 * driver and Powertools on the same server and client, cases interleaved round by round: what a claim
 * of a small value with no Lua would reach, and at the cost of which guarantees.
 *
 *   node bench/run-bundled.mjs bench/ledger/small-claim.ts [--quick]
 *
 * Writes bench/results/small-claim.{json,md}; bench/aggregate.ts gathers them into bench/RESULTS.md.
 */
import { createRedisStorage } from '../../src/storage/redis.js';
import { commandLine, type Figure, figure, headerLines, load, us, writeArea } from '../lib/area-report.js';
import type { Stats } from '../lib/histogram.js';
import { markdownTable } from '../lib/markdown-table.js';
import { measureCases, roundsText, type TimedCase } from '../lib/measure.js';
import { onBenchRedis } from '../lib/redis-bench-client.js';
import { ledgerCases } from './cases.js';
import { comparisonPlan, powertoolsCases } from './powertools-cases.js';
import { smallClaimStorage } from './small-claim-store.js';

const quick = process.argv.includes('--quick');
const plan = comparisonPlan(quick);

type Kind = 'call' | 'replay';
const KINDS: readonly Kind[] = ['call', 'replay'];
const SYSTEMS = ['hyphae Redis driver', 'hyphae over the small-claim prototype', 'powertools'] as const;
type System = (typeof SYSTEMS)[number];

function markdownOf(command: string, loadAtStart: number, stats: Record<System, Record<Kind, Stats>>): string {
  const pt = stats.powertools;
  const rows = SYSTEMS.flatMap((system) =>
    KINDS.map((kind) => {
      const s = stats[system][kind];
      return [system, kind, us(s.p50Us), us(s.p99Us), us(s.cpuUs), `${(pt[kind].p50Us / s.p50Us).toFixed(2)}×`];
    }),
  );
  return [
    '# A small claim: a prototype Redis layout through the whole ledger',
    '',
    ...headerLines(command, loadAtStart, new Date()),
    `- Plan: ${quick ? 'quick' : 'full'} mode, ${plan.warmupMs} ms warm-up, then ${roundsText(plan)}`,
    '',
    'One node-redis client on the shared server (127.0.0.1:6379), calls one at a time, every case in the',
    'same rounds. The ledger runs at its defaults over the Redis driver, and over the prototype in',
    '`bench/ledger/small-claim-store.ts`: the claim is one `SET key value NX GET` of a small value (the',
    'members a gate reads, about 350 bytes), no Lua; the outcome a compare-and-set script of one `GET`',
    'and one `SET` of the compact record. Powertools: `makeIdempotent` over its cache persistence layer,',
    'defaults. Speed-up = Powertools p50 ÷ the row’s p50 (above 1: faster than Powertools).',
    '',
    'What the prototype drops, each kept by the driver: the ticket index (a tool call id reused with other',
    'arguments is not caught), the ledger marker (a server restarted empty or flushed is taken for a new',
    'ledger, and a redispatched call runs again), the list index (`hyphae transitions`, the dashboard and',
    '`markWorkerDead({ owner })` see no record), the full record while a call runs (a reader sees the',
    'claim’s members only), and the change notice (pollers in other processes wait their interval).',
    '',
    ...markdownTable(
      [
        { title: 'system' },
        { title: 'case' },
        ...['p50 µs', 'p99 µs', 'CPU µs', 'speed-up (p50)'].map((title) => ({ title, align: 'right' as const })),
      ],
      rows,
    ),
    '',
  ].join('\n');
}

function figuresOf(stats: Record<System, Record<Kind, Stats>>): Figure[] {
  return SYSTEMS.filter((system) => system !== 'powertools').flatMap((system) =>
    KINDS.map((kind) =>
      figure(
        `${system} vs powertools: ${kind}, speed-up at p50 (powertools ÷ it)`,
        'µs p50',
        stats.powertools[kind].p50Us,
        stats[system][kind].p50Us,
      ),
    ),
  );
}

async function main(): Promise<void> {
  const loadAtStart = load();
  const command = commandLine();
  await onBenchRedis('small-claim bench', async (client, run) => {
    const driver = createRedisStorage({ client }, { prefix: `${run}driver:` });
    const small = await smallClaimStorage(client as never, `${run}small:`);
    const cases: Record<System, Record<Kind, TimedCase>> = {
      'hyphae Redis driver': ledgerCases('hyphae Redis driver', () => driver),
      'hyphae over the small-claim prototype': ledgerCases('hyphae over the small-claim prototype', () => small),
      powertools: powertoolsCases(client, `${run}powertools`),
    };
    const order = KINDS.flatMap((kind) => SYSTEMS.map((system) => cases[system][kind]));
    const measured = await measureCases(order, plan);
    const stats = Object.fromEntries(
      SYSTEMS.map((system) => [
        system,
        Object.fromEntries(KINDS.map((kind) => [kind, measured[order.indexOf(cases[system][kind])] as Stats])),
      ]),
    ) as Record<System, Record<Kind, Stats>>;
    for (const system of SYSTEMS)
      for (const kind of KINDS)
        console.log(`  ${system.padEnd(40)} ${kind.padEnd(7)} p50 ${us(stats[system][kind].p50Us).padStart(7)} µs`);
    await writeArea('small-claim', figuresOf(stats), markdownOf(command, loadAtStart, stats));
    console.log('wrote bench/results/small-claim.json and bench/results/small-claim.md');
  });
}

await main();
