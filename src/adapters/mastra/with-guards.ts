/**
 * `withGuards`: the one call that guards a Mastra agent, by returning the agent settings to
 * spread into `new Agent({ … })`.
 */
import { InvalidOptionError } from '../../errors.js';
import { guardToolRecord } from './guard-tools.js';
import { createHyphaeProcessor } from './processor.js';
import { mastraRunRegistry, toPipeline } from './run-registry.js';
import type { MastraGuardedSettings, MastraGuards, WithGuardsOptions } from './types.js';

function processorList(option: string, value: unknown): readonly unknown[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    throw new InvalidOptionError(option, `\`withGuards\` adds to a list of processors; \`${option}\` is not a list`);
  }
  return value;
}

/**
 * Guard a Mastra agent in one call: its tools are wrapped with `guardMastraTools`, and
 * `hyphaeProcessor` goes last in `inputProcessors` (the prompt it repairs and prices is the
 * one the other processors made) and first in `outputProcessors` (a step's usage is booked before
 * another processor can end the run). Every other setting (`model`, `instructions`,
 * `defaultOptions`, …) is passed through; the input is not mutated.
 *
 * With the loop fuse ending runs that repeat themselves, the step cap (`maxSteps`, 5 by default,
 * after which Mastra ends the run without an answer) can be raised for jobs that need more steps.
 *
 * @example
 * import { Agent } from '@mastra/core/agent';
 * import { withGuards } from 'hyphae/mastra';
 *
 * const agent = new Agent(
 *   withGuards(pipeline, { id: 'billing', name: 'billing', instructions: 'You pay invoices', model, tools }),
 * );
 * const result = await agent.generate('Pay invoice 42', { maxSteps: 25, requestContext });
 */
export function withGuards<S extends MastraGuardedSettings>(
  guards: MastraGuards,
  settings: S,
  options: WithGuardsOptions = {},
): S {
  if (typeof settings !== 'object' || settings === null) {
    throw new InvalidOptionError('settings', '`withGuards` needs the agent settings: an object');
  }
  if (typeof options !== 'object' || options === null) {
    throw new InvalidOptionError('options', '`withGuards` options must be an object');
  }
  const registry = mastraRunRegistry(toPipeline(guards));
  const processor = createHyphaeProcessor(registry, options);
  const input = processorList('inputProcessors', settings.inputProcessors);
  const output = processorList('outputProcessors', settings.outputProcessors);
  return {
    ...settings,
    ...(settings.tools === undefined ? {} : { tools: guardToolRecord(settings.tools, registry, options) }),
    inputProcessors: [...input, processor],
    outputProcessors: [processor, ...output],
  };
}
