/**
 * The outputs of the DBOS comparison: `bench/results/dbos.json` (figures) and `bench/results/dbos.md`.
 */
import { type Figure, figure, headerLines, us, writeArea } from '../lib/area-report.js';
import type { Stats } from '../lib/histogram.js';
import { type Column, markdownTable } from '../lib/markdown-table.js';
import { type Plan, roundsText } from '../lib/measure.js';

/** One measured case. */
export interface Measured {
  readonly name: string;
  readonly stats: Stats;
}

/** Everything one run produced. */
export interface DbosReport {
  readonly command: string;
  readonly mode: 'full' | 'quick';
  readonly plan: Plan;
  readonly crashRounds: number;
  readonly loadAtStart: number;
  /** Statements sent to PostgreSQL for one call. */
  readonly statements: { readonly hyphaeCall: number; readonly hyphaeSideEffect: number; readonly dbosCall: number };
  /** In order: hyphae call, hyphae sideEffect call, DBOS call, hyphae replay, DBOS replay. */
  readonly first: readonly Measured[];
  /** In order: hyphae reclaim, hyphae hard block, DBOS resume (fast queue), DBOS resume (defaults). */
  readonly crashes: readonly (Measured & { readonly perChild: number })[];
}

const COLUMNS: Column[] = [
  { title: 'case' },
  { title: 'hyphae p50 µs', align: 'right' },
  { title: 'hyphae p99 µs', align: 'right' },
  { title: 'DBOS p50 µs', align: 'right' },
  { title: 'DBOS p99 µs', align: 'right' },
  { title: 'speed-up (p50)', align: 'right' },
  { title: 'speed-up (p99)', align: 'right' },
];

const times = (value: number): string => `${value.toFixed(value >= 100 ? 0 : 2)}×`;

function pairRow(label: string, hyphae: Stats, dbos: Stats): string[] {
  return [
    label,
    us(hyphae.p50Us),
    us(hyphae.p99Us),
    us(dbos.p50Us),
    us(dbos.p99Us),
    times(dbos.p50Us / hyphae.p50Us),
    times(dbos.p99Us / hyphae.p99Us),
  ];
}

function get<T>(list: readonly T[], index: number): T {
  const item = list[index];
  if (item === undefined) throw new Error(`missing case ${index}`);
  return item;
}

/** Write the area's JSON and Markdown. */
export async function writeDbosReport(report: DbosReport): Promise<void> {
  const [call, sideEffectCall, dbosCall, replay, dbosReplay] = [0, 1, 2, 3, 4].map((i) => get(report.first, i).stats);
  const [reclaim, block, resumeFast, resumeDefault] = [0, 1, 2, 3].map((i) => get(report.crashes, i));
  if (!(call && sideEffectCall && dbosCall && replay && dbosReplay && reclaim && block && resumeFast && resumeDefault))
    throw new Error('incomplete report');
  const { statements } = report;
  const pairs: [string, string, Stats, Stats][] = [
    ['first', 'first call: ledgered no-op ↔ workflow of one step', call, dbosCall],
    ['first-side-effect', 'first call: no-op in sideEffect() ↔ workflow of one step', sideEffectCall, dbosCall],
    ['replay', 'replay of a completed call (same id again)', replay, dbosReplay],
    [
      'crash-fast',
      'after SIGKILL in the body: redispatch → run ↔ resume on a 1 ms queue → run',
      reclaim.stats,
      resumeFast.stats,
    ],
    [
      'crash-default',
      'after SIGKILL in the body: redispatch → run ↔ resume with DBOS defaults → run',
      reclaim.stats,
      resumeDefault.stats,
    ],
  ];
  const figures: Figure[] = pairs.flatMap(([id, , hyphae, dbos]) => [
    figure(`dbos ${id} p50 speed-up (DBOS ÷ hyphae)`, 'ratio', dbos.p50Us / hyphae.p50Us, 1),
    figure(`dbos ${id} p99 speed-up (DBOS ÷ hyphae)`, 'ratio', dbos.p99Us / hyphae.p99Us, 1),
  ]);
  figures.push(figure('dbos hyphae hard block after SIGKILL in sideEffect p50', 'µs', block.stats.p50Us, null));
  // The cases after the first four are timed from the kill (crash.ts, `fromKill`).
  const fromKill = report.crashes.slice(4);
  for (const m of fromKill) figures.push(figure(`${m.name}, p50`, 'ms', m.stats.p50Us / 1000, null));
  const ms = (value: number): string => (value / 1000).toFixed(value >= 100_000 ? 0 : 1);
  const fromKillRows = fromKill.map((m) => [
    m.name,
    String(m.stats.ops),
    ms(m.stats.p50Us),
    ms(m.stats.p99Us),
    ms(m.stats.meanUs),
  ]);
  const detail = [...report.first, ...report.crashes].map((m) => [
    m.name,
    String(m.stats.ops),
    us(m.stats.p50Us),
    us(m.stats.p99Us),
    us(m.stats.meanUs),
    us(m.stats.cpuUs),
  ]);
  const { plan } = report;
  const markdown = [
    '# Against DBOS Transact (PostgreSQL)',
    '',
    ...headerLines(report.command, report.loadAtStart, new Date()),
    `- Plan: ${report.mode} mode; first calls and replays ${plan.warmupMs} ms warm-up, then ${roundsText(plan)}; crashes ${report.crashRounds} interleaved rounds of one killed child per case (${report.crashes.map((c) => c.perChild).join(' / ')} calls per child)`,
    '',
    `Both systems run in one process on the same PostgreSQL 15 server (127.0.0.1:5432, database \`dbos_bench\`,
server defaults: \`synchronous_commit=on\`, \`fsync=on\`), each through its own \`pg\` pool of 10. hyphae:
\`createLedger\` over \`createPostgresStorage({ connectionString })\`, \`ledger.tool\` with an \`idempotent_mutate\`
spec and a fresh tool call id per first call. DBOS Transact 5.3.0: \`DBOS.registerWorkflow\` of a function
that makes one \`DBOS.runStep\` call; a fresh workflow id per first call. Speed-up = DBOS ÷ hyphae (above 1:
hyphae is faster). Statements per first call, counted at \`pg.Client#query\`: hyphae ${statements.hyphaeCall}
(${statements.hyphaeSideEffect} with \`sideEffect()\`), DBOS ${statements.dbosCall} (three transactions: the
workflow row and its input, the step's output, the workflow's status and output).`,
    '',
    'Settings that are not the default, for either system:',
    '',
    ...markdownTable(
      [{ title: 'system' }, { title: 'setting' }, { title: 'why' }],
      [
        ['both', 'database `dbos_bench` on the shared server, DBOS schema dropped at the start', 'a clean run'],
        ['DBOS', "`logLevel: 'error'`", 'no log lines in the timed loop'],
        [
          'DBOS',
          `\`executorID\` of each killed child: its own`,
          'so the parent resumes those workflows by id, not at its own launch',
        ],
        [
          'DBOS',
          '1 ms row only: `resumeWorkflow(id, { queueName })` onto a queue of `registerQueue(name, { minPollingIntervalMs: 1 })` (registered for those rounds only, deleted after), `getResult({ pollingIntervalMs: 1 })`',
          "without them a recovery waits on DBOS's 1 s polls (the defaults row)",
        ],
        [
          'hyphae',
          'killed child only: `leaseTtlMs: 250` (default 300 000)',
          'so a redispatch may reclaim 300 ms after the kill',
        ],
        [
          'hyphae',
          'killed child of the default-lease rows: default lease, `ownerId` of its own',
          'so the restart can name its claims to `markWorkerDead`',
        ],
      ],
    ),
    '',
    '## Latency per call',
    '',
    ...markdownTable(
      COLUMNS,
      pairs.map(([, label, hyphae, dbos]) => pairRow(label, hyphae, dbos)),
    ),
    '',
    `After a SIGKILL inside \`sideEffect()\`, hyphae's redispatch refuses the call (\`LedgerHardBlockError\`) in
${us(block.stats.p50Us)} µs at p50 (${us(block.stats.p99Us)} µs at p99); DBOS has no such state and runs the step again.`,
    '',
    '## Recovery timed from the kill',
    '',
    `The rows above start their clock after the pause for the killed worker's 250 ms lease. These start it at
the SIGKILL, so every wait is in them: the lease a redispatch waits out, a restart's own work, DBOS's
polls. Calls are brought to an end one after another, each timed from the kill. At the ledger's default
lease (5 min) a redispatch waits it out unless the restarted worker says the old one is dead
(\`ledger.markWorkerDead({ owner }, { overrideHeartbeat: true, ... })\` at startup, with a stable \`ownerId\`,
as the adapter docs show; \`markExecutorDead\` on DBOS); the no-mark row runs once, in a full run only.`,
    '',
    ...markdownTable(
      [
        { title: 'case' },
        { title: 'calls', align: 'right' },
        { title: 'p50 ms', align: 'right' },
        { title: 'p99 ms', align: 'right' },
        { title: 'mean ms', align: 'right' },
      ],
      fromKillRows,
    ),
    '',
    '## What each guarantees when the worker dies inside the effect',
    '',
    ...markdownTable(
      [{ title: 'where the worker dies' }, { title: 'hyphae (ledger on PostgreSQL)' }, { title: 'DBOS Transact' }],
      [
        [
          'before or after the step/call, nothing of it recorded',
          'the record is IN_FLIGHT with a lease; a redispatch polls until the lease passes, then reclaims (safe-retry classes) and runs the body',
          'the workflow is PENDING; recovery (at launch, or `resumeWorkflow`) re-runs it from its last recorded step',
        ],
        [
          'inside the effect of a tool that may run twice (`idempotent_mutate`, body not in `sideEffect()`)',
          'the body runs again on redispatch after the lease (at least once, as DBOS)',
          'the step runs again on recovery: at least once; exactly once only when the step itself is idempotent',
        ],
        [
          'inside `sideEffect()` (hyphae) / inside a step (DBOS)',
          '`maybe_crossed` was written before the effect began: the redispatch is refused (HARD_BLOCK, `LedgerHardBlockError`) until a reconciler or an operator says whether it happened; never run twice',
          'no mark before a step: the step runs again on recovery (up to `maxRecoveryAttempts`, then the workflow is parked)',
        ],
        [
          'after the effect, before its result is stored',
          'a non-idempotent class (payment) is never re-run: HARD_BLOCK, or the reconciler asks the provider by the recorded external reference',
          'the step runs again: the effect happens twice unless the callee dedupes it (its own idempotency key)',
        ],
        [
          'after completion',
          'RETURN of the stored result; the body is not run',
          'the recorded output is returned; the step is not run',
        ],
      ],
    ),
    '',
    '## Every case',
    '',
    ...markdownTable(
      [
        { title: 'case' },
        { title: 'ops', align: 'right' },
        { title: 'p50 µs', align: 'right' },
        { title: 'p99 µs', align: 'right' },
        { title: 'mean µs', align: 'right' },
        { title: 'CPU µs', align: 'right' },
      ],
      detail,
    ),
    '',
  ].join('\n');
  await writeArea('dbos', figures, markdown);
}
