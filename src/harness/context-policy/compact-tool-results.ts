/**
 * The default context policy: compact tool results that the model has already seen in several
 * calls, keeping their evidence refs so they stay retrievable.
 */
import { canonicalJson } from '../../core/canonical-json.js';
import { checkOptions } from '../../invalid-argument.js';
import { integerOption } from '../../option-checks.js';
import type { ModelMessage, ToolResultMessage } from '../models/types.js';
import type { ModelContextPolicy } from './context-policy.js';

/** Options of {@link compactToolResults}. */
export interface CompactToolResultsOptions {
  /** A result is superseded once this many model calls came after it (default 3). */
  readonly afterModelCalls?: number;
}

function compacted(message: ToolResultMessage): ToolResultMessage {
  const content = canonicalJson({
    compacted: true,
    ref: message.evidenceRef ?? null,
    note: 'This result was compacted; call retrieve_evidence with its ref to see it again',
  });
  return { ...message, content };
}

/**
 * A context policy that replaces each succeeded tool result with a short stub naming its
 * evidence ref once `afterModelCalls` model calls have followed it (the default policy, with 3).
 * Failed results and results without a ref are kept as they are. Deterministic: it depends only
 * on the transcript.
 *
 * @example
 * createPatchHarness({ designSpec, mainModel, contextPolicy: compactToolResults({ afterModelCalls: 5 }) });
 */
export function compactToolResults(options: CompactToolResultsOptions = {}): ModelContextPolicy {
  checkOptions('compactToolResults', options);
  const after = integerOption('afterModelCalls', options.afterModelCalls ?? 3);
  return {
    name: 'compact-tool-results',
    apply(messages) {
      // Walk backwards counting the assistant turns (model calls) that follow each message.
      let later = 0;
      const out = [...messages];
      for (let i = out.length - 1; i >= 0; i--) {
        const message = out[i] as ModelMessage;
        if (message.role === 'assistant') later++;
        else if (message.role === 'tool' && !message.isError && message.evidenceRef !== undefined && later >= after) {
          out[i] = compacted(message);
        }
      }
      return out;
    },
  };
}
