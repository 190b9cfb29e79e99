/**
 * Checks of artifacts handed to the harness (renders, asset previews, input artifacts): bytes,
 * size, media type and JSON metadata; and the digest traces keep instead of the bytes.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../../core/canonical-json.js';
import { deepFreeze } from '../../core/deep-freeze.js';
import type { ArtifactMetadata, RenderedArtifact } from '../models/types.js';

/** An artifact that passed its checks: private bytes, metadata always present (frozen). */
export interface CheckedArtifact extends RenderedArtifact {
  readonly metadata: ArtifactMetadata;
}

/** Bounds an artifact is checked against. */
export interface ArtifactBounds {
  readonly maxBytes: number;
  readonly maxMetadataBytes: number;
  /** Only `image/*` media types are accepted. */
  readonly imageOnly: boolean;
}

/** The checked artifact, or why it cannot be used. */
export type ArtifactCheck =
  | { readonly ok: true; readonly artifact: CheckedArtifact }
  | { readonly ok: false; readonly problem: string };

const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,63}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,127}$/;

/** Check an artifact; the copy it returns is the harness's own (later changes by its producer do not reach it). */
export function checkArtifact(value: unknown, bounds: ArtifactBounds): ArtifactCheck {
  if (typeof value !== 'object' || value === null)
    return { ok: false, problem: 'expected `{ bytes, mediaType, metadata }`' };
  const { bytes, mediaType, metadata } = value as Partial<RenderedArtifact>;
  if (!(bytes instanceof Uint8Array)) return { ok: false, problem: '`bytes` must be a Uint8Array' };
  if (bytes.byteLength === 0) return { ok: false, problem: 'the artifact is empty' };
  if (bytes.byteLength > bounds.maxBytes) {
    return { ok: false, problem: `the artifact is ${bytes.byteLength} bytes, over the ${bounds.maxBytes}-byte limit` };
  }
  if (typeof mediaType !== 'string' || !MEDIA_TYPE.test(mediaType.toLowerCase())) {
    return { ok: false, problem: `\`${String(mediaType)}\` is not a media type such as \`image/png\`` };
  }
  if (bounds.imageOnly && !mediaType.toLowerCase().startsWith('image/')) {
    return { ok: false, problem: `the media type \`${mediaType}\` is not an image type` };
  }
  const meta = checkMetadata(metadata, bounds.maxMetadataBytes);
  if (!meta.ok) return { ok: false, problem: meta.problem };
  return {
    ok: true,
    artifact: Object.freeze({
      bytes: bytes.slice(),
      mediaType: mediaType.toLowerCase(),
      metadata: meta.metadata,
    }),
  };
}

/** Why metadata cannot be used; `problem` words it for artifact checks, the rest lets other callers word their own. */
export type MetadataFailure =
  | { readonly ok: false; readonly kind: 'not_object'; readonly problem: string }
  | {
      readonly ok: false;
      readonly kind: 'not_json';
      readonly problem: string;
      readonly error: unknown;
      readonly reason: string;
    }
  | {
      readonly ok: false;
      readonly kind: 'too_large';
      readonly problem: string;
      readonly bytes: number;
      readonly maxBytes: number;
    };

/** Checked metadata (the harness's own copy, deeply frozen), or why it cannot be used. */
export type MetadataCheck = { readonly ok: true; readonly metadata: ArtifactMetadata } | MetadataFailure;

/**
 * Check JSON metadata given with an artifact, an asset or an input artifact: absent means `{}`;
 * otherwise a plain JSON object of at most `maxBytes` bytes of canonical JSON. The copy returned is
 * deeply frozen, so later changes by its producer do not reach it and nobody can change it.
 */
export function checkMetadata(value: unknown, maxBytes: number): MetadataCheck {
  if (value === undefined) return { ok: true, metadata: Object.freeze({}) };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, kind: 'not_object', problem: '`metadata` must be a JSON object' };
  }
  let text: string;
  try {
    text = canonicalJson(value);
  } catch (error) {
    const reason = (error as Error).message;
    return { ok: false, kind: 'not_json', problem: `\`metadata\` is not JSON: ${reason}`, error, reason };
  }
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > maxBytes) {
    return {
      ok: false,
      kind: 'too_large',
      problem: `\`metadata\` is ${bytes} bytes, over the ${maxBytes}-byte limit`,
      bytes,
      maxBytes,
    };
  }
  return { ok: true, metadata: deepFreeze(JSON.parse(text) as ArtifactMetadata) };
}

/** A copy of a checked artifact for code outside the harness (tools, renderers), so they cannot change ours. */
export function shareArtifact(artifact: CheckedArtifact): CheckedArtifact {
  return Object.freeze({ bytes: artifact.bytes.slice(), mediaType: artifact.mediaType, metadata: artifact.metadata });
}

/** What traces keep of an artifact: media type, size and SHA-256, never the bytes. */
export interface ArtifactDigest {
  readonly mediaType: string;
  readonly byteLength: number;
  readonly sha256: string;
}

/** The digest of an artifact. */
export function digestArtifact(artifact: RenderedArtifact): ArtifactDigest {
  return {
    mediaType: artifact.mediaType,
    byteLength: artifact.bytes.byteLength,
    sha256: createHash('sha256').update(artifact.bytes).digest('hex'),
  };
}
