/**
 * A CPU cap on a process through the cgroup v1 `cpu` controller (CFS bandwidth): a group of its own
 * under `/sys/fs/cgroup/cpu` that may run `quotaUs` of CPU in every `periodUs`, whatever the
 * machine's other work. Needs root and the v1 controller mounted there; removed by `remove()`.
 */
import { mkdir, readdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Where the cgroup v1 `cpu` controller is mounted. */
const CPU_ROOT = '/sys/fs/cgroup/cpu';

/** How much CPU a capped group may use: `quotaUs` in every `periodUs`. */
export interface CpuCapSettings {
  readonly periodUs: number;
  readonly quotaUs: number;
}

/** The group's CFS counters (`cpu.stat`): periods it ran in, periods it hit its quota, time held back. */
export interface ThrottleStats {
  readonly periods: number;
  readonly throttledPeriods: number;
  readonly throttledUs: number;
}

/** A group of the `cpu` controller with a quota. */
export interface CpuCap {
  readonly name: string;
  readonly settings: CpuCapSettings;
  /** Move a process, every thread of it, into the group. */
  add(pid: number): Promise<void>;
  throttling(): Promise<ThrottleStats>;
  /** Move what is left in the group back to the root group and remove the group; safe to call twice. */
  remove(): Promise<void>;
}

/** Null when cgroup v1 `cpu` groups can be made here, else why not. */
export async function cpuCapUnavailable(): Promise<string | null> {
  try {
    const files = await readdir(CPU_ROOT);
    if (!files.includes('cpu.cfs_quota_us'))
      return `${CPU_ROOT} has no \`cpu.cfs_quota_us\` (not the v1 cpu controller)`;
  } catch {
    return `no cgroup v1 cpu controller at ${CPU_ROOT}`;
  }
  if (process.getuid?.() !== 0) return 'cgroups need root';
  return null;
}

async function pidsIn(dir: string): Promise<number[]> {
  const text = await readFile(join(dir, 'cgroup.procs'), 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map(Number);
}

async function removeGroup(dir: string): Promise<void> {
  // A process still inside keeps the group alive; the root group takes it back uncapped.
  for (const pid of await pidsIn(dir)) {
    await writeFile(join(CPU_ROOT, 'cgroup.procs'), String(pid)).catch(() => undefined);
  }
  await rmdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
  });
}

/** Create (or take over, after a run that did not clean up) the group `name` with `settings`. */
export async function createCpuCap(name: string, settings: CpuCapSettings): Promise<CpuCap> {
  const dir = join(CPU_ROOT, name);
  await removeGroup(dir);
  await mkdir(dir);
  try {
    // The period first: a quota larger than the old period would otherwise be refused on some kernels.
    await writeFile(join(dir, 'cpu.cfs_period_us'), String(settings.periodUs));
    await writeFile(join(dir, 'cpu.cfs_quota_us'), String(settings.quotaUs));
  } catch (error) {
    await removeGroup(dir);
    // The kernel takes a period and a quota of 1000 µs at least (and a period of 1 s at most).
    throw new Error(`Cannot cap cgroup \`${name}\` at ${settings.quotaUs} µs per ${settings.periodUs} µs`, {
      cause: error,
    });
  }
  return {
    name,
    settings,
    async add(pid) {
      // `cgroup.procs` moves every thread of the process; `tasks` would move one thread.
      await writeFile(join(dir, 'cgroup.procs'), String(pid));
      if (!(await pidsIn(dir)).includes(pid)) throw new Error(`Process ${pid} did not join cgroup \`${name}\``);
    },
    async throttling() {
      const text = await readFile(join(dir, 'cpu.stat'), 'utf8');
      const field = (key: string): number => Number(new RegExp(`^${key} (\\d+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
      return {
        periods: field('nr_periods'),
        throttledPeriods: field('nr_throttled'),
        throttledUs: field('throttled_time') / 1000,
      };
    },
    remove: () => removeGroup(dir),
  };
}
