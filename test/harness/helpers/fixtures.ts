/**
 * A small design spec (a poster) and tools shared by the harness scenarios.
 */
import type { AgentTool, DesignSpec } from '../../../src/harness/index.js';

/** A poster: title, color, sorted tags. */
export const posterSpec: DesignSpec = {
  schema: {
    type: 'object',
    properties: {
      title: { type: 'string', minLength: 1, maxLength: 60 },
      color: { type: 'string', pattern: '^#[0-9a-f]{6}$' },
      tags: { type: 'array', items: { type: 'string' } },
    },
    required: ['title', 'color', 'tags'],
    additionalProperties: false,
  },
  // The stored form keeps tags sorted: a candidate with unsorted tags does not round-trip.
  normalizer: (design) => {
    const poster = design as { title: string; color: string; tags: string[] };
    return { ...poster, tags: [...poster.tags].sort() };
  },
};

/** A stored poster. */
export function poster(): { title: string; color: string; tags: string[] } {
  return { title: 'Summer sale', color: '#ff0000', tags: ['retail', 'sale'] };
}

/** Looks up a brand color by name. */
export const lookupColor: AgentTool<{ name: string }, { hex: string }> = {
  name: 'lookup_color',
  description: 'Hex code of a named brand color',
  inputSchema: {
    type: 'object',
    properties: { name: { type: 'string', minLength: 1 } },
    required: ['name'],
    additionalProperties: false,
  },
  parallelSafe: true,
  execute: ({ name }) => ({ hex: name === 'ocean' ? '#0055aa' : '#000000' }),
};

/** Stops the test with a clear message when a value is not defined. */
export function defined<T>(value: T | undefined, what = 'value'): T {
  if (value === undefined) throw new Error(`Expected ${what} to be defined`);
  return value;
}
