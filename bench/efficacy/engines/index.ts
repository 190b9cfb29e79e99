/**
 * The durable engines of the efficacy bench, in table order. Adding one is an import and an entry
 * here; an engine whose `minNode` is above the running Node is skipped with the reason recorded, so
 * its module must load on every Node the repository supports (load the engine's SDK inside `run`).
 */
import { dbosEngine } from './dbos.js';
import { restateEngine } from './restate.js';
import type { Engine } from './types.js';
import { workflowEngine } from './workflow.js';

/** Every engine, in table order. */
export const engines: readonly Engine[] = [dbosEngine, workflowEngine, restateEngine];

/** An engine this Node does not run, and why. */
export interface SkippedEngine {
  readonly engine: Engine;
  readonly reason: string;
}

/** The major version of the running Node. */
export function nodeMajor(): number {
  return Number(process.versions.node.split('.')[0]);
}

/** The engines the running Node runs, and the others with the reason. */
export function enginesOnThisNode(
  all: readonly Engine[] = engines,
  major: number = nodeMajor(),
): { readonly runnable: readonly Engine[]; readonly skipped: readonly SkippedEngine[] } {
  const runnable = all.filter((engine) => engine.minNode <= major);
  const skipped = all
    .filter((engine) => engine.minNode > major)
    .map((engine) => ({ engine, reason: `needs Node ${engine.minNode} or later (ran on Node ${major})` }));
  return { runnable, skipped };
}
