/**
 * Asset providers: named searches the agent can run for images, icons, fonts… Each provider
 * becomes a `search_assets_<name>` tool; what it finds gets run-scoped refs and provenance.
 */
import { invalidHarnessOption } from '../errors.js';
import type { ArtifactMetadata, RenderedArtifact } from '../models/types.js';

/** What a lazy preview loader knows. */
export interface AssetPreviewContext {
  readonly runId: string;
  /** The asset's run-scoped ref, e.g. `asset:3`. */
  readonly assetRef: string;
  /** The caller's signal, unchanged. */
  readonly signal?: AbortSignal;
  /** Aborts at the load's or the run's time limit. */
  readonly timeoutSignal: AbortSignal;
}

/** One asset a provider found. Previews are optional: eager (`preview`) or lazy (`previewLoader`). */
export interface Asset {
  /** The provider's id of the asset (stable: the same id must always describe the same asset). */
  readonly id: string;
  readonly title?: string;
  /** What it is, e.g. `photo`, `icon`, `font`. */
  readonly kind?: string;
  /** How a design refers to it (a URL, a key in the application's asset store). */
  readonly uri?: string;
  readonly metadata?: ArtifactMetadata;
  /** A preview image, given now. */
  readonly preview?: RenderedArtifact;
  /** A preview image, loaded only when the asset is inspected (then kept for the run). */
  previewLoader?(context: AssetPreviewContext): RenderedArtifact | Promise<RenderedArtifact>;
}

/** What a search knows. */
export interface AssetSearchContext {
  readonly runId: string;
  readonly provider: string;
  /** The caller's signal, unchanged. */
  readonly signal?: AbortSignal;
  /** Aborts at the search's or the run's time limit. */
  readonly timeoutSignal: AbortSignal;
}

/**
 * A named source of assets, offered to the model as `search_assets_<name>`.
 *
 * @example
 * const stock: AssetProvider = {
 *   name: 'stock',
 *   description: 'Licensed stock photos',
 *   search: async (query, limit) => (await photos.search(query, limit)).map((p) => ({
 *     id: p.id, title: p.alt, kind: 'photo', uri: p.url,
 *     previewLoader: async () => ({ bytes: await download(p.thumbUrl), mediaType: 'image/jpeg' }),
 *   })),
 * };
 */
export interface AssetProvider {
  /** Lower-case letters, digits and `_`, starting with a letter; at most 40 characters. */
  readonly name: string;
  /** What the provider holds (shown to the model in the tool's description). */
  readonly description?: string;
  /** Searches per run (default `limits.maxAssetSearches`). */
  readonly maxSearches?: number;
  /** Time limit of one search (default `limits.assetSearchTimeoutMs`). */
  readonly timeoutMs?: number;
  search(query: string, limit: number, context: AssetSearchContext): readonly Asset[] | Promise<readonly Asset[]>;
}

/** Where an asset was found: which provider, for which query, in which call. */
export interface AssetProvenance {
  readonly provider: string;
  readonly query: string;
  readonly callId: string;
  readonly stepId: string;
}

/** An asset discovered in this run: what candidate policies and tools see of it (never preview bytes). */
export interface ApprovedAsset {
  /** Run-scoped ref, e.g. `asset:3`. */
  readonly ref: string;
  readonly provider: string;
  readonly id: string;
  readonly title: string | null;
  readonly kind: string | null;
  readonly uri: string | null;
  readonly metadata: ArtifactMetadata;
  readonly hasPreview: boolean;
  /** Every search that returned it, in order. */
  readonly provenance: readonly AssetProvenance[];
}

/** The shape of a provider name. */
export const ASSET_PROVIDER_NAME_PATTERN: RegExp = /^[a-z][a-z0-9_]{0,39}$/;

/** Prefix of the search tools' names. */
export const SEARCH_ASSETS_PREFIX = 'search_assets_';

/** Check the providers of a harness; throws {@link InvalidOptionError} naming the offending one. */
export function checkAssetProviders(providers: unknown): readonly AssetProvider[] {
  if (providers === undefined) return [];
  if (!Array.isArray(providers)) throw invalidHarnessOption('assetProviders', 'expected an array of providers');
  const names = new Set<string>();
  return Object.freeze(
    providers.map((provider: unknown, index) => {
      const at = `assetProviders[${index}]`;
      if (typeof provider !== 'object' || provider === null) throw invalidHarnessOption(at, 'expected an object');
      const { name, search, description } = provider as Partial<AssetProvider>;
      if (typeof name !== 'string' || !ASSET_PROVIDER_NAME_PATTERN.test(name)) {
        throw invalidHarnessOption(`${at}.name`, `\`${String(name)}\` does not match ${ASSET_PROVIDER_NAME_PATTERN}`);
      }
      if (names.has(name)) throw invalidHarnessOption(`${at}.name`, `\`${name}\` is used twice`);
      names.add(name);
      if (typeof search !== 'function') throw invalidHarnessOption(`${at}.search`, 'expected a function');
      if (description !== undefined && typeof description !== 'string') {
        throw invalidHarnessOption(`${at}.description`, 'expected a string');
      }
      return provider as AssetProvider;
    }),
  );
}
