/**
 * The default context policy: keep what the model needs to decide — the latest render review,
 * the current candidate's references, unresolved high-severity findings, tool errors and
 * authorisation evidence — and compact the rest once it is superseded or old, keeping each
 * compacted record's evidence ref so it stays retrievable.
 */
import { canonicalJson } from '../../core/canonical-json.js';
import { checkOptions } from '../../invalid-argument.js';
import { integerOption } from '../../option-checks.js';
import type { ModelMessage, ToolResultMessage } from '../models/types.js';
import { COMMIT_RENDER } from '../tools/commit-render.js';
import { RENDER_DESIGN } from '../tools/render-design.js';
import type { ModelContextPolicy } from './context-policy.js';

/** Options of {@link compactSupersededResults}. */
export interface CompactSupersededResultsOptions {
  /** Other succeeded results are compacted once this many model calls came after them (default 3). */
  readonly afterModelCalls?: number;
  /** Tools whose results are authorisation evidence (approvals, permission checks): never compacted. */
  readonly authorizationTools?: readonly string[];
  /** Severities of a structured review's `findings[].severity` that count as high (default `high`, `critical`). */
  readonly highSeverities?: readonly string[];
}

interface RenderResult {
  readonly index: number;
  readonly ref: string;
  readonly base: string | undefined;
  readonly review: unknown;
}

function parsed(message: ToolResultMessage): Readonly<Record<string, unknown>> | undefined {
  try {
    const value = JSON.parse(message.content) as { result?: unknown };
    const result = value?.result;
    return typeof result === 'object' && result !== null ? (result as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function stub(message: ToolResultMessage, extra: object, note: string): ToolResultMessage {
  return { ...message, content: canonicalJson({ compacted: true, ref: message.evidenceRef ?? null, ...extra, note }) };
}

/** Inputs of the calls each tool message answers, by message index. */
function callInputs(messages: readonly ModelMessage[]): Map<number, unknown> {
  const inputs = new Map<number, unknown>();
  messages.forEach((message, index) => {
    if (message.role !== 'assistant') return;
    (message.toolCalls ?? []).forEach((call, k) => {
      const answer = messages[index + 1 + k];
      if (answer?.role === 'tool' && answer.toolCallId === call.id) inputs.set(index + 1 + k, call.input);
    });
  });
  return inputs;
}

function hasHighFinding(review: unknown, high: ReadonlySet<string>): boolean {
  const findings = (review as { findings?: unknown } | null)?.findings;
  if (!Array.isArray(findings)) return false;
  return findings.some((finding: unknown) => {
    const severity = (finding as { severity?: unknown } | null)?.severity;
    return typeof severity === 'string' && high.has(severity.toLowerCase());
  });
}

/**
 * The default context policy. Kept as they are: tool errors, results of `authorizationTools`,
 * the latest `render_design` result, the result of the render committed last and of that
 * commit, and any render whose structured review reports a high-severity finding no later
 * render has been based on (the finding is unresolved). Compacted to a stub that keeps the
 * evidence ref (and the render ref): other successful renders and earlier commits at once
 * (they are superseded), and any other succeeded result once `afterModelCalls` model calls
 * came after it. Deterministic: it depends only on the transcript.
 *
 * @example
 * createPatchHarness({ designSpec, mainModel, contextPolicy: compactSupersededResults({ authorizationTools: ['check_approval'] }) });
 */
export function compactSupersededResults(options: CompactSupersededResultsOptions = {}): ModelContextPolicy {
  checkOptions('compactSupersededResults', options);
  const after = integerOption('afterModelCalls', options.afterModelCalls ?? 3);
  const authorization = new Set(options.authorizationTools ?? []);
  const high = new Set((options.highSeverities ?? ['high', 'critical']).map((severity) => severity.toLowerCase()));
  return {
    name: 'compact-superseded-results',
    apply(messages) {
      const inputs = callInputs(messages);
      const renders: RenderResult[] = [];
      const commits: { index: number; ref: string }[] = [];
      messages.forEach((message, index) => {
        if (message.role !== 'tool' || message.isError) return;
        const result = parsed(message);
        if (message.toolName === RENDER_DESIGN && typeof result?.render_ref === 'string') {
          const base = (inputs.get(index) as { base_render_ref?: unknown } | undefined)?.base_render_ref;
          renders.push({
            index,
            ref: result.render_ref,
            base: typeof base === 'string' ? base : undefined,
            review: result.visual_review,
          });
        } else if (message.toolName === COMMIT_RENDER && typeof result?.committed === 'string') {
          commits.push({ index, ref: result.committed });
        }
      });
      const baseOf = new Map(renders.map((render) => [render.ref, render.base]));
      const descendsFrom = (ref: string, ancestor: string): boolean => {
        for (let at = baseOf.get(ref); at !== undefined; at = baseOf.get(at)) if (at === ancestor) return true;
        return false;
      };
      const keep = new Set<number>();
      const lastCommit = commits.at(-1);
      const latest = renders.at(-1);
      if (latest !== undefined) keep.add(latest.index);
      if (lastCommit !== undefined) {
        keep.add(lastCommit.index);
        const committed = renders.filter((render) => render.ref === lastCommit.ref).at(-1);
        if (committed !== undefined) keep.add(committed.index);
      }
      for (const render of renders) {
        const resolved = renders.some((later) => later.index > render.index && descendsFrom(later.ref, render.ref));
        if (!resolved && hasHighFinding(render.review, high)) keep.add(render.index);
      }
      const superseded = new Set([...renders.map((render) => render.index), ...commits.map((commit) => commit.index)]);
      const refOf = new Map(renders.map((render) => [render.index, render.ref]));

      let later = 0;
      const out = [...messages];
      for (let i = out.length - 1; i >= 0; i--) {
        const message = out[i] as ModelMessage;
        if (message.role === 'assistant') later++;
        if (message.role !== 'tool' || message.isError || keep.has(i) || authorization.has(message.toolName)) continue;
        if (superseded.has(i)) {
          const renderRef = refOf.get(i);
          out[i] = stub(
            message,
            renderRef === undefined ? {} : { render_ref: renderRef },
            'Superseded; call retrieve_evidence with its ref to see it again',
          );
        } else if (message.evidenceRef !== undefined && later >= after) {
          out[i] = stub(message, {}, 'This result was compacted; call retrieve_evidence with its ref to see it again');
        }
      }
      return out;
    },
  };
}
