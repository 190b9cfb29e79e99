/**
 * Drives `test/fixtures/race-worker.ts` children: spawned once per backend, each round sent to all
 * of them as one stdin line, each reply read back as one stdout line.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { RACE_READY, type RaceOrder, type RaceReply } from './race.js';
import { workerCommand } from './worker-command.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** How long one round may take before the children are declared stuck (a failure, never a skip). */
const ROUND_TIMEOUT_MS = 60_000;
/** How long a child may take to start (tsx compiles on the fly; two shared cores may be busy). */
export const READY_TIMEOUT_MS = 100_000;

/** The children of one backend. */
export interface RaceWorkers {
  readonly size: number;
  /** Resolves when every child has opened its store. */
  readonly ready: Promise<void>;
  /** Send child `i` the order `orderFor(i)`; resolves with every child's reply to that round. */
  round(orderFor: (index: number) => RaceOrder): Promise<RaceReply[]>;
  /** SIGKILL every child still running (safe to call twice). */
  kill(): void;
  /** End stdin and wait for the children to close their stores and exit. */
  stop(): Promise<void>;
}

interface Child {
  readonly process: ChildProcessWithoutNullStreams;
  readonly label: string;
  readonly ready: Promise<void>;
  readonly exited: Promise<void>;
  readonly waiting: Map<string, (reply: RaceReply) => void>;
  stderr: string;
  isReady: boolean;
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(what())), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function startChild(label: string, env: Record<string, string>): Child {
  const { command, args } = workerCommand('race-worker');
  const child = spawn(command, [...args, label], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const waiting = new Map<string, (reply: RaceReply) => void>();
  let markReady: () => void = () => {};
  let failReady: (error: Error) => void = () => {};
  const ready = new Promise<void>((resolve, reject) => {
    markReady = resolve;
    failReady = reject;
  });
  ready.catch(() => {});
  const state: Child = {
    process: child,
    label,
    ready,
    waiting,
    stderr: '',
    isReady: false,
    exited: new Promise<void>((resolve) => child.on('close', () => resolve())),
  };
  // A write to a child that died must fail its round, not crash the test process with EPIPE.
  child.stdin.on('error', () => {});
  child.stderr.on('data', (chunk: Buffer) => {
    state.stderr += chunk.toString('utf8');
  });
  createInterface({ input: child.stdout }).on('line', (line) => {
    if (line === RACE_READY) {
      state.isReady = true;
      markReady();
      return;
    }
    const reply = JSON.parse(line) as RaceReply;
    waiting.get(reply.round)?.(reply);
    waiting.delete(reply.round);
  });
  child.on('close', (code, signal) => {
    failReady(new Error(`Race worker ${label} exited (${signal ?? code}) before it was ready:\n${state.stderr}`));
  });
  return state;
}

/** Spawn `count` children on the store described by `env` (`TestStore.childEnv()`). */
export function startRaceWorkers(count: number, env: Record<string, string>): RaceWorkers {
  const children = Array.from({ length: count }, (_, i) => startChild(`child-${i}`, env));
  const describeChildren = (): string =>
    children
      .map(
        (child) =>
          `${child.label} (pid ${child.process.pid}, ready ${child.isReady}, exit ${child.process.exitCode ?? child.process.signalCode}):\n${child.stderr}`,
      )
      .join('\n');
  const alive = (child: Child): boolean => child.process.exitCode === null && child.process.signalCode === null;

  return {
    size: count,
    ready: withTimeout(
      Promise.all(children.map((child) => child.ready)).then(() => undefined),
      READY_TIMEOUT_MS,
      () => `Race workers were not ready within ${READY_TIMEOUT_MS} ms:\n${describeChildren()}`,
    ),

    round(orderFor) {
      const replies = children.map((child, index) => {
        const order = orderFor(index);
        const reply = new Promise<RaceReply>((resolve, reject) => {
          if (!alive(child)) {
            reject(new Error(`Race worker ${child.label} is not running:\n${child.stderr}`));
            return;
          }
          child.waiting.set(order.args.round, resolve);
          void child.exited.then(() =>
            reject(new Error(`Race worker ${child.label} exited during round ${order.args.round}:\n${child.stderr}`)),
          );
        });
        child.process.stdin.write(`${JSON.stringify(order)}\n`);
        return reply;
      });
      return withTimeout(Promise.all(replies), ROUND_TIMEOUT_MS, () => `A round did not end:\n${describeChildren()}`);
    },

    kill() {
      for (const child of children) if (alive(child)) child.process.kill('SIGKILL');
    },

    async stop() {
      for (const child of children) child.process.stdin.end();
      await withTimeout(
        Promise.all(children.map((child) => child.exited)),
        10_000,
        () => `Race workers did not exit:\n${describeChildren()}`,
      ).catch(() => {
        for (const child of children) if (alive(child)) child.process.kill('SIGKILL');
      });
    },
  };
}
