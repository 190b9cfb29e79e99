/**
 * The built-in `retrieve_evidence` tool: part of a full tool result of this run, by ref and
 * RFC 6901 pointer, bounded in bytes.
 */
import { canonicalJson } from '../../core/canonical-json.js';
import { GuardError } from '../../errors.js';
import { getByPointer, type JsonValue } from '../json-patch/apply-json-patch.js';
import type { ResolvedLimits } from '../limits.js';
import type { AgentTool } from './agent-tool.js';
import { EVIDENCE_REF_PATTERN, type EvidenceStore } from './evidence-store.js';

/** Name of the built-in evidence tool. */
export const RETRIEVE_EVIDENCE = 'retrieve_evidence';

/** `retrieve_evidence` refused a request; the message tells the model what to ask instead. */
export class EvidenceRetrievalError extends GuardError {
  constructor(message: string) {
    super('evidence_retrieval_refused', message, { llmMessage: message });
  }
}

const INPUT_SCHEMA = Object.freeze({
  type: 'object',
  properties: {
    ref: {
      type: 'string',
      pattern: EVIDENCE_REF_PATTERN,
      description: 'An evidence ref from a tool result of this run',
    },
    pointer: {
      type: 'string',
      maxLength: 1024,
      description: 'RFC 6901 JSON Pointer into the full result ("" or absent for all of it)',
    },
  },
  required: ['ref'],
  additionalProperties: false,
});

function shape(value: JsonValue): string {
  if (Array.isArray(value)) return `an array of ${value.length} items (ask for \`/0\`, \`/1\`, …)`;
  if (typeof value === 'object' && value !== null) {
    const keys = Object.keys(value).sort();
    const listed = keys
      .slice(0, 20)
      .map((key) => `\`${key}\``)
      .join(', ');
    return `an object with ${keys.length} members (${listed}${keys.length > 20 ? ', …' : ''})`;
  }
  return typeof value === 'string' ? `a string of ${value.length} characters` : `a ${typeof value}`;
}

/** Build the run's `retrieve_evidence` tool over its evidence store. */
export function retrieveEvidenceTool(
  evidence: EvidenceStore,
  limits: ResolvedLimits,
): AgentTool<{ ref: string; pointer?: string }, { ref: string; pointer: string; value: JsonValue }> {
  const maxBytes = limits.maxEvidenceRetrievalBytes;
  return {
    name: RETRIEVE_EVIDENCE,
    description: `Return the full result of an earlier tool call of this run, or the part of it at an RFC 6901 pointer. Answers are at most ${maxBytes} bytes; for larger values ask for a narrower pointer.`,
    inputSchema: INPUT_SCHEMA,
    maxCallsPerRun: limits.maxEvidenceRetrievals,
    maxResultBytes: maxBytes + 2048,
    parallelSafe: true,
    execute({ ref, pointer = '' }) {
      const stored = evidence.get(ref);
      if (stored === undefined) {
        throw new EvidenceRetrievalError(`Unknown evidence ref \`${ref}\`: use a ref from a tool result of this run`);
      }
      const value = getByPointer(stored, pointer);
      if (value === undefined) throw new EvidenceRetrievalError(`Nothing at \`${pointer}\` in \`${ref}\``);
      const bytes = Buffer.byteLength(canonicalJson(value), 'utf8');
      if (bytes > maxBytes) {
        throw new EvidenceRetrievalError(
          `The value at \`${pointer}\` in \`${ref}\` is ${bytes} bytes, over the ${maxBytes}-byte limit: it is ${shape(value)}; ask for a narrower pointer`,
        );
      }
      return { ref, pointer, value };
    },
  };
}
