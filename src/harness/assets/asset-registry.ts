/**
 * A run's assets: refs, provenance, the duplicate rules, and previews loaded once per run.
 */
import { canonicalJson } from '../../core/canonical-json.js';
import type { ResolvedLimits } from '../limits.js';
import type { RenderedArtifact } from '../models/types.js';
import { ToolCallError } from '../tools/tool-call-error.js';
import { type CheckedArtifact, checkMetadata, digestArtifact } from '../visual/check-artifact.js';
import type { ApprovedAsset, Asset, AssetProvenance } from './asset-provider.js';

/** The shape of an asset ref: `asset:` and a number. */
export const ASSET_REF_PATTERN = '^asset:[1-9][0-9]{0,8}$';

/** An asset of this run, with where its preview comes from. */
export interface AssetRecord {
  readonly approved: ApprovedAsset;
  readonly preview: RenderedArtifact | undefined;
  readonly previewLoader: Asset['previewLoader'] | undefined;
}

/** What one search registered. */
export interface SearchRegistration {
  readonly assets: readonly ApprovedAsset[];
  /** The provider returned more than the limit; the rest were not looked at. */
  readonly truncated: boolean;
  /** Repeats of an asset already in this result. */
  readonly duplicatesSkipped: number;
}

/** A run's assets. */
export interface AssetRegistry {
  /**
   * Check and register what a search returned, all or nothing: an invalid asset, or one whose
   * id this provider already used for a different asset, fails the search ({@link ToolCallError}).
   */
  register(
    provider: string,
    query: string,
    found: unknown,
    limit: number,
    where: Omit<AssetProvenance, 'provider' | 'query'>,
  ): SearchRegistration;
  get(ref: string): AssetRecord | undefined;
  /** Every asset discovered so far, in the order of their refs. */
  approved(): readonly ApprovedAsset[];
  /** The checked preview of `ref`, loaded at most once successfully per run. */
  preview(ref: string, load: () => Promise<CheckedArtifact>): Promise<CheckedArtifact>;
  /** Inspections that reached the vision model. */
  inspections: number;
}

interface Entry {
  record: AssetRecord;
  readonly fingerprint: string;
}

function invalid(provider: string, index: number, problem: string): never {
  throw new ToolCallError(
    'failed',
    'asset_invalid',
    `Provider \`${provider}\` returned an unusable asset at index ${index}: ${problem}`,
  );
}

function optionalText(value: unknown, max: number, what: string, fail: (problem: string) => never): string | null {
  if (value === undefined) return null;
  if (typeof value !== 'string' || value.length > max)
    fail(`\`${what}\` must be a string of at most ${max} characters`);
  return value as string;
}

/** The identity of an asset's content: everything but how its preview is produced. */
function fingerprintOf(
  asset: Omit<ApprovedAsset, 'ref' | 'provenance' | 'hasPreview'>,
  preview: RenderedArtifact | undefined,
  lazy: boolean,
): string {
  let previewPrint: unknown = lazy ? 'lazy' : null;
  if (preview !== undefined) {
    previewPrint =
      preview.bytes instanceof Uint8Array
        ? { mediaType: preview.mediaType, sha256: digestArtifact(preview).sha256 }
        : 'unusable';
  }
  return canonicalJson({ ...asset, preview: previewPrint });
}

/** A fresh registry for one run. */
export function createAssetRegistry(limits: ResolvedLimits): AssetRegistry {
  const byRef = new Map<string, Entry>();
  const byKey = new Map<string, string>(); // provider + id → ref
  const previews = new Map<string, Promise<CheckedArtifact>>();

  function check(
    provider: string,
    raw: unknown,
    index: number,
  ): {
    asset: Omit<ApprovedAsset, 'ref' | 'provenance'>;
    preview: RenderedArtifact | undefined;
    loader: Asset['previewLoader'] | undefined;
    fingerprint: string;
  } {
    const fail: (problem: string) => never = (problem) => invalid(provider, index, problem);
    if (typeof raw !== 'object' || raw === null) fail('expected an object');
    const item = raw as Partial<Asset>;
    if (typeof item.id !== 'string' || item.id === '' || item.id.length > 256)
      fail('`id` must be a non-empty string of at most 256 characters');
    const meta = checkMetadata(item.metadata, limits.maxArtifactMetadataBytes);
    if (!meta.ok) {
      fail(meta.kind === 'too_large' ? `\`metadata\` is over ${meta.maxBytes} bytes` : meta.problem);
    }
    const metadata = meta.metadata;
    if (item.preview !== undefined && item.previewLoader !== undefined)
      fail('give `preview` or `previewLoader`, not both');
    if (item.previewLoader !== undefined && typeof item.previewLoader !== 'function')
      fail('`previewLoader` must be a function');
    if (item.preview !== undefined && (typeof item.preview !== 'object' || item.preview === null))
      fail('`preview` must be `{ bytes, mediaType }`');
    const asset = {
      provider,
      id: item.id as string,
      title: optionalText(item.title, 500, 'title', fail),
      kind: optionalText(item.kind, 64, 'kind', fail),
      uri: optionalText(item.uri, 2048, 'uri', fail),
      metadata,
      hasPreview: item.preview !== undefined || item.previewLoader !== undefined,
    };
    const loader = item.previewLoader?.bind(item);
    return {
      asset,
      preview: item.preview,
      loader,
      fingerprint: fingerprintOf({ ...asset }, item.preview, loader !== undefined),
    };
  }

  return {
    register(provider, query, found, limit, where) {
      if (!Array.isArray(found)) {
        throw new ToolCallError(
          'failed',
          'asset_invalid',
          `Provider \`${provider}\` did not return an array of assets`,
        );
      }
      const provenance: AssetProvenance = Object.freeze({ provider, query, ...where });
      const kept: { key: string; checked: ReturnType<typeof check> }[] = [];
      const inResult = new Map<string, string>();
      let duplicatesSkipped = 0;
      let index = 0;
      for (; index < found.length && kept.length < limit; index++) {
        const checked = check(provider, found[index], index);
        const key = `${provider}\u0000${checked.asset.id}`;
        const earlier =
          inResult.get(key) ?? (byKey.has(key) ? byRef.get(byKey.get(key) as string)?.fingerprint : undefined);
        if (earlier !== undefined && earlier !== checked.fingerprint) {
          throw new ToolCallError(
            'failed',
            'asset_conflict',
            `Provider \`${provider}\` returned two different assets with the id \`${checked.asset.id}\`; nothing from this search was kept`,
          );
        }
        if (inResult.has(key)) {
          duplicatesSkipped++;
          continue;
        }
        inResult.set(key, checked.fingerprint);
        kept.push({ key, checked });
      }
      // Everything checked: now register (all or nothing).
      const assets = kept.map(({ key, checked }) => {
        const existing = byKey.get(key);
        if (existing !== undefined) {
          const entry = byRef.get(existing) as Entry;
          const approved = Object.freeze({
            ...entry.record.approved,
            provenance: Object.freeze([...entry.record.approved.provenance, provenance]),
          });
          entry.record = Object.freeze({ ...entry.record, approved });
          return approved;
        }
        const ref = `asset:${byRef.size + 1}`;
        const approved: ApprovedAsset = Object.freeze({
          ref,
          ...checked.asset,
          provenance: Object.freeze([provenance]),
        });
        byRef.set(ref, {
          record: Object.freeze({ approved, preview: checked.preview, previewLoader: checked.loader }),
          fingerprint: checked.fingerprint,
        });
        byKey.set(key, ref);
        return approved;
      });
      return { assets, truncated: index < found.length, duplicatesSkipped };
    },
    get: (ref) => byRef.get(ref)?.record,
    approved: () => [...byRef.values()].map((entry) => entry.record.approved),
    preview(ref, load) {
      let pending = previews.get(ref);
      if (pending === undefined) {
        pending = load();
        previews.set(ref, pending);
        // A failed load is not kept: the model may inspect again.
        pending.catch(() => previews.delete(ref));
      }
      return pending;
    },
    inspections: 0,
  };
}
