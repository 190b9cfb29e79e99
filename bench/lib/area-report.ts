/**
 * What every bench area writes: `bench/results/<area>.json` (figures) and `bench/results/<area>.md`,
 * which `bench/aggregate.ts` joins into `bench/results.json` and `bench/RESULTS.md`.
 */
import { writeFile } from 'node:fs/promises';
import { arch, cpus, loadavg, platform, release } from 'node:os';
import { relative } from 'node:path';

/** One figure of `results/<area>.json`: a value, the baseline measured in the same run, value ÷ baseline. */
export interface Figure {
  readonly name: string;
  readonly unit: string;
  readonly value: number;
  readonly baseline: number | null;
  readonly ratio: number | null;
}

/** Round for the JSON figures. */
export const round = (value: number, digits = 2): number => Number(value.toFixed(digits));

/** µs for tables: whole numbers from 100 up, two decimals below. */
export const us = (value: number): string => (value >= 100 ? value.toFixed(0) : value.toFixed(2));

/** A figure whose ratio is `value / baseline`. */
export function figure(name: string, unit: string, value: number, baseline: number | null, digits = 3): Figure {
  return {
    name,
    unit,
    value: round(value, digits),
    baseline: baseline === null ? null : round(baseline, digits),
    ratio: baseline === null || baseline === 0 ? null : round(value / baseline),
  };
}

/**
 * The command that ran this script, as a reader would type it; `args` are the arguments to show
 * (all of them unless the script passes a selection).
 */
export function commandLine(args: readonly string[] = process.argv.slice(2)): string {
  if (process.env.HYPHAE_BENCH_COMMAND !== undefined) return process.env.HYPHAE_BENCH_COMMAND;
  if (process.env.npm_lifecycle_event === 'bench')
    return ['npm run bench', ...(args.length > 0 ? ['--', ...args] : [])].join(' ');
  return ['node', ...process.execArgv, relative(process.cwd(), process.argv[1] ?? ''), ...args].join(' ');
}

/** Node version, CPU model and count, OS. */
export function machine(): string {
  const cpu = cpus();
  return `Node ${process.version}, ${cpu[0]?.model ?? 'unknown CPU'} (${cpu.length} cores), ${platform()} ${release()} ${arch()}`;
}

/** The 1-minute load average now. */
export const load = (): number => loadavg()[0] ?? 0;

/** The header lines every area page starts with after its title. */
export function headerLines(command: string, loadAtStart: number, date: Date): string[] {
  return [
    `- Command: \`${command}\``,
    `- Date: ${date.toISOString()}`,
    `- Machine: ${machine()}; load average (1 min) ${loadAtStart.toFixed(2)} at start, ${load().toFixed(2)} at end`,
  ];
}

/** Write `bench/results/<area>.json` and `bench/results/<area>.md`. */
export async function writeArea(area: string, figures: readonly Figure[], markdown: string): Promise<void> {
  await writeFile(new URL(`../results/${area}.json`, import.meta.url), `${JSON.stringify(figures, null, 2)}\n`);
  await writeFile(new URL(`../results/${area}.md`, import.meta.url), markdown);
}
