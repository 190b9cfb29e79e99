/**
 * The lines `hyphae mcp` writes to standard error about its guard's events. A listing is judged
 * again on every `tools/list` (and in every HTTP session), so what it found is written once per
 * change, not once per listing.
 */
import type { McpGuardEvent } from '../../adapters/mcp/create-mcp-guard.js';

const PLAIN_SCOPE = /^[A-Za-z_][\w.-]*$/;

function names(tools: readonly string[]): string {
  return tools.map((name) => `\`${name}\``).join(', ');
}

/** The `hyphae.yaml` line that grants `scopes`. */
export function grantLine(scopes: readonly string[]): string {
  const items = scopes.map((scope) => (PLAIN_SCOPE.test(scope) ? scope : JSON.stringify(scope)));
  return `fuses: { permission: { granted: [${items.join(', ')}] } }`;
}

type ToolsObserved = Extract<McpGuardEvent, { type: 'tools_observed' }>;

function listingLines(event: ToolsObserved): Record<'hidden' | 'broken' | 'ungranted', string[]> {
  const hidden = [`hyphae mcp: hidden tools: ${event.hidden.length === 0 ? 'none' : names(event.hidden)}`];
  const broken = event.broken.map(
    ({ tool, reason }) => `hyphae mcp: every call to \`${tool}\` is refused: its schema does not compile: ${reason}`,
  );
  if (event.ungranted.length === 0) return { hidden, broken, ungranted: [] };
  const needed = event.ungranted.map(({ tool, missing }) => `\`${tool}\` (needs ${missing.join(', ')})`);
  const scopes = [...new Set([...event.granted, ...event.ungranted.flatMap(({ missing }) => missing)])];
  const ungranted = [
    `hyphae mcp: calls to ${needed.join(', ')} are refused: this session is granted ${event.granted.length === 0 ? 'no scope' : event.granted.join(', ')}. To grant them, put this line in hyphae.yaml (merged into its \`fuses\` section if it has one):`,
    `  ${grantLine(scopes)}`,
  ];
  return { hidden, broken, ungranted };
}

/**
 * A describer of events: the lines worth an operator's eye, each block of a tool listing only
 * when it differs from the one written last (an empty block is written only after a non-empty one).
 */
export function createEventLines(): (event: McpGuardEvent) => string[] {
  const last = new Map<string, string>();
  return function describeEvent(event) {
    switch (event.type) {
      case 'tool_call':
        return event.status === 'ok'
          ? []
          : [`hyphae mcp: \`${event.tool}\` ${event.status} (${event.code ?? 'error'})`];
      case 'secret_found':
        return [
          event.where === 'resource'
            ? `hyphae mcp: credential (${event.kinds.join(', ')}) in the resource \`${event.resource}\`: ${event.action}`
            : `hyphae mcp: credential (${event.kinds.join(', ')}) in the ${event.where} of \`${event.tool}\`: ${event.action}`,
        ];
      case 'tools_observed': {
        const out: string[] = [];
        for (const [block, lines] of Object.entries(listingLines(event))) {
          const key = lines.join('\n');
          const before = last.get(block);
          last.set(block, key);
          if (key === before) continue;
          const empty = block === 'hidden' ? event.hidden.length === 0 : lines.length === 0;
          if (empty && before === undefined) continue;
          out.push(...lines);
        }
        return out;
      }
      default:
        return [];
    }
  };
}
