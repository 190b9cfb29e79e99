/**
 * The `search_assets_<name>` tools: one per asset provider. Bounded (query, limit, searches per
 * run, time), deduplicated, and recorded with provenance; what they find becomes `approvedAssets`.
 */
import { type AssetProvider, SEARCH_ASSETS_PREFIX } from '../assets/asset-provider.js';
import type { ResolvedLimits } from '../limits.js';
import type { RunContext } from '../run/run-context.js';
import { type AgentTool, type ToolBody, unbound } from './agent-tool.js';

interface SearchInput {
  readonly query: string;
  readonly limit?: number;
}

/** The name of a provider's search tool. */
export function searchToolName(provider: AssetProvider): string {
  return `${SEARCH_ASSETS_PREFIX}${provider.name}`;
}

/** The definition of a provider's search tool; a run binds {@link searchAssetsBody} to it. */
export function searchAssetsDefinition(provider: AssetProvider, limits: ResolvedLimits): AgentTool<SearchInput> {
  const about = provider.description?.trim();
  return {
    name: searchToolName(provider),
    description: `Search the asset provider \`${provider.name}\`${about ? ` (${about})` : ''}. Each asset found gets a ref (asset:<n>) for this run; inspect_asset looks at one with a vision model.`,
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', minLength: 1, maxLength: limits.maxAssetQueryLength, description: 'What to look for' },
        limit: {
          type: 'integer',
          minimum: 1,
          maximum: limits.maxAssetResults,
          description: `Assets to return at most (default ${limits.maxAssetResults})`,
        },
      },
      required: ['query'],
      additionalProperties: false,
    },
    maxCallsPerRun: provider.maxSearches ?? limits.maxAssetSearches,
    timeoutMs: provider.timeoutMs ?? limits.assetSearchTimeoutMs,
    // Not parallel-safe: refs are numbered in call order, so that the same run gives the same refs.
    execute: unbound,
  };
}

/** A query that is only whitespace, as a problem for the model. */
export function blankQuery(input: unknown): string | null {
  const { query } = input as { query?: unknown };
  return typeof query === 'string' && query.trim() === '' ? '/query: the query must not be blank' : null;
}

/** The body of the run's search tool of `provider`. */
export function searchAssetsBody(run: RunContext, provider: AssetProvider): ToolBody<SearchInput> {
  return async function searchAssets({ query, limit = run.limits.maxAssetResults }, context) {
    const found = await provider.search(query, limit, {
      runId: run.runId,
      provider: provider.name,
      timeoutSignal: context.timeoutSignal,
      ...(context.signal === undefined ? {} : { signal: context.signal }),
    });
    const registered = run.assets.register(provider.name, query, found, limit, {
      callId: context.callId,
      stepId: context.stepId,
    });
    return {
      provider: provider.name,
      query,
      assets: registered.assets.map((asset) => ({
        ref: asset.ref,
        id: asset.id,
        title: asset.title,
        kind: asset.kind,
        uri: asset.uri,
        metadata: asset.metadata,
        preview: asset.hasPreview,
      })),
      truncated: registered.truncated,
      duplicates_skipped: registered.duplicatesSkipped,
    };
  };
}
