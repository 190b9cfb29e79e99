/**
 * Run one schedule of the explorer: N workers call one ledgered payment over one memory store, each
 * through its own ledger (as separate processes would), and a chooser decides at every yield point
 * who moves next, or which fault happens there: a worker killed, the leases expiring, an operator
 * release of a dead worker's claim. The history it leaves is judged by the history checker.
 */
import { GuardError } from '../../errors.js';
import { sideEffect } from '../../ledger/boundary-markers.js';
import { createLedger } from '../../ledger/create-ledger.js';
import { isExpired } from '../../ledger/resolve-gate.js';
import type { Ledger } from '../../ledger/types.js';
import type { SideEffectClass } from '../../records/envelope.js';
import type { TransitionRecord } from '../../records/transition-record.js';
import type { LedgerStorage, ListQuery } from '../../storage/ledger-storage.js';
import { createMemoryStorage } from '../../storage/memory.js';
import { checkHistory, type HistoryCheck } from '../history/check-history.js';
import { createHistoryRecorder, type HistoryEvent, type HistoryRecorder } from '../history/history.js';
import { createSimWorld, type SimWorld } from './sim-world.js';

/** A decision the chooser can take at a branching point. */
export type Choice =
  | { readonly kind: 'step'; readonly point: number; readonly worker: string; readonly label: string }
  | { readonly kind: 'crash'; readonly worker: string }
  | { readonly kind: 'expire' }
  | { readonly kind: 'release' };

/** Faults the explorer may insert, each at most this many times per schedule. */
export interface ExploreFaults {
  readonly crash?: number;
  readonly leaseExpiry?: number;
  readonly release?: number;
}

/** What one schedule runs. */
export interface ScheduleSetup {
  /** Workers calling the same transition (2 or 3 in practice). */
  readonly workers: number;
  readonly sideEffectClass: SideEffectClass | string;
  readonly faults: Required<ExploreFaults>;
  readonly leaseTtlMs: number;
  /** Wraps the fresh memory store each schedule runs on (a seeded bug, a counting proxy). */
  readonly storage?: (base: LedgerStorage) => LedgerStorage;
  /** Steps after which a schedule counts as stuck. */
  readonly maxSteps: number;
}

/** What happened in one schedule. */
export interface ScheduleRun {
  /** Every step in order, readable (`w1 create`, `crash w2`, `expire leases`, …). */
  readonly trace: readonly string[];
  /** The index taken at each branching point, and how many choices it had. */
  readonly decisions: readonly { readonly index: number; readonly count: number }[];
  readonly history: readonly HistoryEvent[];
  readonly check: HistoryCheck;
  /** The schedule hit the step limit before every worker settled (a livelock or a lost wake-up). */
  readonly stuck: boolean;
}

const TRANSITION = 'pay:call-1';
const CALL_ID = 'call-1';

function scheduled(base: LedgerStorage, world: SimWorld, worker: string): LedgerStorage {
  // Each operation parks at a yield point first, then runs atomically on the shared store.
  const after =
    <A extends unknown[], R>(label: string, op: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      await world.point(worker, label);
      return op(...args);
    };
  return {
    capabilities: base.capabilities,
    get: after('get', (key: string) => base.get(key)),
    create: after('create', (record: TransitionRecord) => base.create(record)),
    update: after('update', (key: string, version: number, next: TransitionRecord) => base.update(key, version, next)),
    findByTicket: after('findByTicket', (ticket: string) => base.findByTicket(ticket)),
    list: after('list', (query?: ListQuery) => base.list(query)),
    close: async () => {},
  };
}

interface Worker {
  readonly name: string;
  readonly recorder: HistoryRecorder;
  readonly ledger: Ledger;
}

/** Run one schedule; `choose` picks an index among the choices at each branching point. */
export async function runSchedule(
  setup: ScheduleSetup,
  choose: (choices: readonly Choice[], depth: number) => number,
): Promise<ScheduleRun> {
  const world = createSimWorld();
  const operatorClock = world.clockFor('operator');
  const base = setup.storage === undefined ? createMemoryStorage() : setup.storage(createMemoryStorage());
  let tick = 0;
  const now = () => ++tick;
  const trace: string[] = [];
  const decisions: { index: number; count: number }[] = [];
  const effects: unknown[] = [];
  const used = { crash: 0, expire: 0, release: 0 };
  const done = new Set<string>();

  function worker(name: string): Worker {
    const recorder = createHistoryRecorder({ process: name, now });
    const ledger = createLedger({
      storage: scheduled(base, world, name),
      agentId: 'explorer',
      policyVersion: '1',
      ownerId: name,
      clock: world.clockFor(name),
      leaseTtlMs: setup.leaseTtlMs,
      pollIntervalMs: setup.leaseTtlMs / 4,
      pollMaxIntervalMs: setup.leaseTtlMs / 2,
    });
    return { name, recorder, ledger };
  }

  function start({ name, recorder, ledger }: Worker): void {
    const pay = ledger.tool({ name: 'pay', sideEffectClass: setup.sideEffectClass }, async () =>
      sideEffect(async () => {
        await world.point(name, 'effect');
        const result = { charge: effects.length + 1, by: name };
        effects.push(result);
        recorder.effect(TRANSITION, result);
        return result;
      }),
    );
    recorder
      .record({ caller: name, transition: TRANSITION, callId: CALL_ID }, () =>
        pay({ amount: 1 }, { toolCallId: CALL_ID }),
      )
      .catch(() => {})
      .finally(() => {
        done.add(name);
        world.touch();
      });
  }

  async function record(): Promise<TransitionRecord | null> {
    return (await base.list({ limit: 1 })).records[0] ?? null;
  }

  async function choices(allowFaults: boolean): Promise<Choice[]> {
    const parked = world.parked();
    const list: Choice[] = parked.map((p) => ({ kind: 'step', point: p.id, worker: p.worker, label: p.label }));
    if (!allowFaults) return list;
    if (used.crash < setup.faults.crash)
      for (const name of new Set(parked.map((p) => p.worker))) list.push({ kind: 'crash', worker: name });
    const current = await record();
    if (used.expire < setup.faults.leaseExpiry && current?.outcome === 'IN_FLIGHT') list.push({ kind: 'expire' });
    const deadOwner = [...world.crashed].some((name) => current?.owner?.startsWith(`${name}:`) === true);
    if (used.release < setup.faults.release && current !== null && current.outcome !== 'COMPLETED' && deadOwner)
      list.push({ kind: 'release' });
    return list;
  }

  async function act(choice: Choice, operator: Ledger): Promise<void> {
    switch (choice.kind) {
      case 'step':
        trace.push(`${choice.worker} ${choice.label}`);
        world.resume(choice.point);
        return;
      case 'crash':
        used.crash += 1;
        trace.push(`crash ${choice.worker}`);
        world.crash(choice.worker);
        return;
      case 'expire':
        used.expire += 1;
        trace.push(`expire leases (+${setup.leaseTtlMs} ms)`);
        world.advance(setup.leaseTtlMs);
        return;
      case 'release': {
        used.release += 1;
        const current = await record();
        // The operator tells the truth: it checked the provider.
        const verified = effects.length > 0 ? 'completed' : 'not_executed';
        try {
          // It saw the worker killed: it records the death (its heartbeat may still look fresh),
          // then releases. A held lease stays refused, as for any release.
          if (current?.outcome === 'IN_FLIGHT' && isExpired(current, operatorClock.now())) {
            await operator.markWorkerDead(current.key, {
              by: 'explorer',
              reason: 'the worker was killed',
              overrideHeartbeat: true,
            });
          }
          await operator.release(current?.key ?? '', {
            verified,
            ...(verified === 'completed' ? { result: effects[0] } : {}),
            by: 'explorer',
            reason: 'the worker was killed',
          });
          trace.push(`operator releases ${verified}`);
        } catch (error) {
          trace.push(`operator release refused (${error instanceof GuardError ? error.code : String(error)})`);
        }
        return;
      }
    }
  }

  async function drive(allowFaults: boolean, until: () => boolean): Promise<boolean> {
    const operator = createLedger({
      storage: base,
      agentId: 'explorer',
      policyVersion: '1',
      clock: operatorClock,
    });
    for (let steps = 0; steps < setup.maxSteps; steps += 1) {
      await world.settle();
      if (until()) return true;
      const list = await choices(allowFaults);
      if (list.length === 0) {
        if (!world.fireNextTimer()) return until();
        trace.push(`time passes to ${world.now()} ms`);
        continue;
      }
      let index = 0;
      if (list.length > 1) {
        index = choose(list, decisions.length);
        decisions.push({ index, count: list.length });
      }
      await act(list[index] as Choice, operator);
    }
    return false;
  }

  const workers = Array.from({ length: setup.workers }, (_, i) => worker(`w${i + 1}`));
  workers.forEach(start);
  const live = () => workers.every((w) => done.has(w.name) || world.crashed.has(w.name));
  let finished = await drive(true, live);

  // A redispatch after everything: a completed transition must still give its result.
  if (finished) {
    trace.push('redispatch');
    const late = worker('r');
    start(late);
    workers.push(late);
    finished = await drive(false, () => done.has('r'));
  }
  if (!finished) trace.push('stuck: the step limit was reached');

  const history = workers.flatMap((w) => w.recorder.events()).sort((a, b) => a.at - b.at);
  const check = checkHistory(history, {
    crashed: [...world.crashed],
    records: { [TRANSITION]: await record() },
  });
  return { trace, decisions, history, check, stuck: !finished };
}
